#!/usr/bin/env python3
"""The shape of two engines' search trees on the same positions, by
remaining depth.

    # Ryuo built with the counters (they print to stderr at `quit`):
    CARGO_TARGET_DIR=target/stats cargo build --release --features stats
    # positions: plies 30, 50 and 70 of the games of a match's --records
    python3 tools/tree_shape.py --records games.records --nodes 140000 \\
        --engine target/stats/release/ryuo \\
        --option EvalType=Material --option USI_Hash=256 --option Threads=1 \\
        --engine yaneuraou-material-stats \\
        --option BookFile=no_book --option USI_Hash=256 --option Threads=1 \\
        --option PvInterval=0

Each engine searches every position once (`usinewgame` and `isready`,
then `go nodes N`, or `go depth D` with `--depth`) in one process, and
its counts are summed over the positions: each `--option` applies to
the engine named before it. An engine must write
lines `stats depth D key value key value ...` to stderr when it quits
(Ryuo's `stats` build writes nodes, loop, moves, hash, rfp, null,
probcut, lmr (moves searched reduced first), research (of those, the
ones searched again deeper), lmr_cut and research_cut (the same at
cut nodes only), cut, cut1 and cutidx (fail highs in the loop, by
the first move, the sum of the cutting moves' numbers), and mtact,
mcheck and mdrop (the captures and promotions, quiet checks and quiet
drops among the moves), loop_tt and cut_tt (the nodes of the loop with
a hash move, the cutoffs by it), ntt_first_tact, cut_ntt, cut_ntt1 and
cut_ntt_tact (at nodes without one: the first move a capture or
promotion, the cutoffs, those by the first move, those by a capture or
promotion), counted at non-PV nodes not in check, pvmove
and checkmove (the moves of PV nodes and of nodes in check, which the
other counts leave out), and a line `stats total qs Q pv P check C
root R rootmoves M`: the quiescence, PV and in-check nodes, the
searches of the root and the moves searched there);
README, "The shape of the tree", says how YaneuraOu's counts were had).
Printed per depth: the nodes, the share of them that reach the move
loop, the moves searched per node in the loop, each other count as a
share of the nodes, except lmr (a share of the moves), research and
lmr_cut (shares of lmr), research_cut (a share of lmr_cut), cut (the
nodes of the loop a move failed high at, a share of loop), cut1 (those
by the first move searched, a share of cut) and cutidx (the cutting
move's mean number in the move count: move ordering's quality),
mtact, mcheck and mdrop (shares of the moves), loop_tt and
ntt_first_tact (shares of loop), cut_tt (of loop_tt), cut_ntt (of cut),
cut_ntt1 and cut_ntt_tact (of cut_ntt). Also
the mean depth of the last completed iteration (YaneuraOu needs
`PvInterval=0` for it: otherwise a search this short writes only its
last line, often a bound).
"""

import argparse
import re
import subprocess


def positions_from_records(path, plies, games=None, from_end=False):
    """`position ... moves ...` commands: each game (the first `games`, or
    all) cut at each of `plies` (games shorter than a cut plus 5 plies skip
    it); with `from_end`, that many plies before the game's end (cuts at
    ply 20 or earlier skipped)."""
    out = []
    taken = 0
    for line in open(path):
        fields = line.rstrip("\n").split("\t")
        if len(fields) < 2 or " moves " not in fields[1]:
            continue
        if games is not None and taken == games:
            break
        taken += 1
        head, moves = fields[1].split(" moves ", 1)
        moves = moves.split()
        for k in plies:
            cut = len(moves) - k if from_end else k
            if (cut > 20) if from_end else (len(moves) > k + 5):
                out.append(head + " moves " + " ".join(moves[:cut]))
    return out


def positions_from_openings(path, count):
    out = []
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        out.append(line if line.startswith("position") else
                   "position " + (line if line.startswith(("sfen", "startpos")) else "sfen " + line))
        if len(out) == count:
            break
    return out


def run(command, options, positions, go):
    p = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, bufsize=1)

    def send(s):
        p.stdin.write(s + "\n")
        p.stdin.flush()

    def wait_for(token):
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit(f"{command}: ended before '{token}'")
            if line.split() and line.split()[0] == token:
                return

    send("usi")
    wait_for("usiok")
    for name, value in options:
        send(f"setoption name {name} value {value}")
    send("isready")
    wait_for("readyok")
    depths = []
    for pos in positions:
        # YaneuraOu ignores `usinewgame` and clears its hash at `isready`:
        # both, so that no engine starts a position with the last one's.
        send("usinewgame")
        send("isready")
        wait_for("readyok")
        send(pos)
        send(go)
        depth = 0
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit(f"{command}: ended during a search")
            if line.startswith("bestmove"):
                break
            m = re.search(r"\bdepth (\d+) ", line)
            if m and " pv " in line and "bound" not in line:
                depth = max(depth, int(m.group(1)))
        depths.append(depth)
    send("quit")
    _, err = p.communicate(timeout=60)
    rows = {}
    totals = {}
    for line in err.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] == "stats" and words[1] == "depth":
            rows[int(words[2])] = {k: int(v) for k, v in zip(words[3::2], words[4::2])}
        elif len(words) >= 2 and words[:2] == ["stats", "total"]:
            totals = {k: int(v) for k, v in zip(words[2::2], words[3::2])}
    if not rows:
        raise SystemExit(f"{command}: no 'stats depth' lines at quit (a build without counters?)")
    return depths, rows, totals


# Counts shown as a share of another count than the nodes.
SHARE_OF = {"lmr": "moves", "research": "lmr", "lmr_cut": "lmr", "research_cut": "lmr_cut",
            "cut": "loop", "cut1": "cut", "mtact": "moves", "mcheck": "moves", "mdrop": "moves",
            "loop_tt": "loop", "cut_tt": "loop_tt", "ntt_first_tact": "loop",
            "cut_ntt": "cut", "cut_ntt1": "cut_ntt", "cut_ntt_tact": "cut_ntt"}
# Sums shown as a mean per another count (not a percentage).
MEAN_OF = {"cutidx": "cut"}


def table(name, depths, rows, totals):
    keys = [k for k in next(iter(rows.values())) if k not in ("nodes", "loop", "moves")]
    print(f"{name}: mean depth {sum(depths) / len(depths):.2f} over {len(depths)} positions")
    if totals:
        counted = sum(r["nodes"] for r in rows.values())
        print(f"nodes counted below {counted}, and not counted: "
              + ", ".join(f"{k} {v}" for k, v in totals.items()))
    print("depth      nodes  loop %  moves/loop  "
          + "  ".join(f"{k if k in MEAN_OF else k + ' %':>9}" for k in keys))
    for d in sorted(rows):
        r = rows[d]
        n = max(1, r["nodes"])
        cells = "  ".join(
            f"{r.get(k, 0) / max(1, r.get(MEAN_OF[k], 0)):9.2f}" if k in MEAN_OF else
            f"{100 * r.get(k, 0) / max(1, r.get(SHARE_OF.get(k, 'nodes'), 0)):9.1f}"
            for k in keys)
        print(f"{d:5d} {r['nodes']:10d} {100 * r['loop'] / n:7.1f} "
              f"{r['moves'] / max(1, r['loop']):11.2f}  {cells}")
    print()


class EngineAction(argparse.Action):
    """`--engine E`: a new engine, with no options yet."""

    def __call__(self, parser, namespace, value, option_string=None):
        getattr(namespace, self.dest).append((value, []))


class OptionAction(argparse.Action):
    """`--option Name=Value`: an option of the engine named last."""

    def __call__(self, parser, namespace, value, option_string=None):
        engines = getattr(namespace, self.dest)
        if not engines:
            parser.error("--option before any --engine")
        name, _, setting = value.partition("=")
        engines[-1][1].append((name, setting))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", action=EngineAction, dest="engines", default=[],
                    help="an engine with counters")
    ap.add_argument("--option", action=OptionAction, dest="engines",
                    help="Name=Value for the engine named before it")
    ap.add_argument("--records", help="match.py --records file: positions from its games")
    ap.add_argument("--plies", default="30,50,70", help="where the games are cut (with --records)")
    ap.add_argument("--openings", help="a file of openings instead")
    ap.add_argument("--count", type=int, default=100, help="openings to take")
    ap.add_argument("--nodes", type=int, default=140000)
    ap.add_argument("--depth", type=int, help="go depth D instead of go nodes")
    args = ap.parse_args()
    go = f"go depth {args.depth}" if args.depth else f"go nodes {args.nodes}"
    if args.records:
        positions = positions_from_records(args.records, [int(x) for x in args.plies.split(",")])
    elif args.openings:
        positions = positions_from_openings(args.openings, args.count)
    else:
        raise SystemExit("give --records or --openings")
    if not positions:
        raise SystemExit("no positions")
    if not args.engines:
        raise SystemExit("give --engine")
    for engine, options in args.engines:
        depths, rows, totals = run(engine, options, positions, go)
        table(engine, depths, rows, totals)


if __name__ == "__main__":
    main()
