#!/usr/bin/env python3
"""How good the moves of a fixed node budget are, judged by a much deeper
search: a search change screened in minutes on a few hundred positions,
where a few hundred games take most of an hour (its noise, about what
doubling the nodes moves, is no smaller than theirs: games decide).

    python3 tools/move_quality.py --records games.records --cache mq.json \\
        --reference <yaneuraou-nnue> --ref-option EvalDir=data/halfkp \\
        --ref-nodes 600000 --nodes 40000 \\
        --engine target/release/ryuo --option EvalFile=data/halfkp/nn.bin \\
        --config '' --config MateOnePly=true

The positions are the games of a match's `--records` cut every
`--step` plies from `--first` on (games shorter than a cut plus 5 plies
skip it). The reference searches each position with `go nodes
REF_NODES` and each move a candidate chose that is not its own with `go
nodes REF_NODES searchmoves <move>`; its scores are kept in `--cache`
(JSON), so later runs only pay for moves not judged before. A
candidate (`--engine` with the `--option`s and one `--config`) searches
each position after `isready` and `usinewgame` with `go nodes N`; with
`--warm K` it first searches the same game 2K, 2K − 2, ..., 2 plies
earlier (its own previous moves), as in a game, hash and histories
kept. Printed for each:
the share of positions where it plays the reference's move, and its
mean loss against the reference's best move, in centipawns (each loss
capped at 1,000; a move scored above the best by the noise of the
reference counts 0) and in expected score (the logistic of the
reference's value over 600, YaneuraOu's usual scale), with the standard
error of the latter, and the mean depth of the last complete iteration.
Every candidate after the first is also compared with the first
position by position (the paired difference and its standard error). Each `--candidate-engine` adds a binary judged with
the same options (for YaneuraOu itself: its options with
`--candidate-option`).
"""

import argparse
import json
import math
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tactics import Engine, parse_options  # noqa: E402  the same folder's USI driver
from tree_shape import positions_from_records  # noqa: E402

CAP = 1000


def depth_of(lines):
    """The depth of the last complete iteration (its line not a bound)."""
    depth = 0
    for line in lines:
        f = line.split()
        if f and f[0] == "info" and "pv" in f and "depth" in f and "bound" not in line:
            depth = int(f[f.index("depth") + 1])
    return depth


def score_of(lines):
    """The last exact score of a search's `info` lines, in centipawns
    (mates as ±30,000)."""
    value = None
    for line in lines:
        f = line.split()
        if not f or f[0] != "info" or "score" not in f or "pv" not in f:
            continue
        if "lowerbound" in f or "upperbound" in f:
            continue
        s = f.index("score")
        kind, text = f[s + 1], f[s + 2]
        if kind == "cp":
            value = int(text)
        elif kind == "mate":
            negative = text.startswith("-")
            value = -30000 if negative else 30000
    return value


def search_lines(engine, position, go):
    """One search: its output up to and including `bestmove`."""
    engine.send(position)
    engine.send(go)
    return engine.wait_for("bestmove")


def run_search(engine, position, go):
    lines = search_lines(engine, position, go)
    return lines[-1].split()[1], score_of(lines), depth_of(lines)


def expected(cp):
    return 1.0 / (1.0 + math.exp(-max(-6000, min(6000, cp)) / 600.0))


class Reference:
    """The deep searches, cached by position and move; two engines
    (`jobs`) share the work."""

    def __init__(self, path, options, nodes, cache_path, jobs):
        self.engines = [Engine(path, options) for _ in range(jobs)]
        for e in self.engines:
            e.send("isready")
            e.wait_for("readyok")
        self.nodes = nodes
        self.cache_path = cache_path
        self.cache = json.load(open(cache_path)) if os.path.exists(cache_path) else {}
        key = f"nodes={nodes}"
        if self.cache.get("_reference") not in (None, key):
            raise SystemExit(f"{cache_path} holds a reference of {self.cache['_reference']}")
        self.cache["_reference"] = key

    def fill(self, jobs):
        """Runs the (position, move or None) searches not cached yet."""
        todo = []
        for position, move in jobs:
            entry = self.cache.get(position)
            if entry is None or (move is not None and move not in entry["scores"]):
                todo.append((position, move))
        todo = list(dict.fromkeys(todo))
        # Best moves first: a candidate's move may turn out to be the best.
        firsts = [(p, m) for p, m in todo if m is None]
        rest = [(p, m) for p, m in todo if m is not None]
        for batch in (firsts, rest):
            self._run(batch)
        self.save()

    def _run(self, batch):
        def work(k):
            engine = self.engines[k]
            out = []
            for position, move in batch[k :: len(self.engines)]:
                entry = self.cache.get(position)
                if move is not None and (entry is None or move in entry["scores"]):
                    continue  # judged already, or a position the reference could not score
                go = f"go nodes {self.nodes}" + (f" searchmoves {move}" if move else "")
                engine.send("usinewgame")
                best, value, _ = run_search(engine, position, go)
                out.append((position, move, best, value))
            return out

        with ThreadPoolExecutor(len(self.engines)) as pool:
            for result in pool.map(work, range(len(self.engines))):
                for position, move, best, value in result:
                    if value is None:
                        continue
                    if move is None:
                        entry = self.cache.setdefault(position, {"best": best, "scores": {}})
                        entry["best"] = best
                        entry["scores"][best] = value
                    elif position in self.cache:
                        self.cache[position]["scores"][move] = value

    def save(self):
        tmp = self.cache_path + ".tmp"
        json.dump(self.cache, open(tmp, "w"))
        os.replace(tmp, self.cache_path)

    def quit(self):
        for e in self.engines:
            e.quit()


def earlier(position, plies):
    """The same game `plies` earlier (None before its first move)."""
    head, _, moves = position.partition(" moves ")
    moves = moves.split()
    if len(moves) < plies:
        return None
    return head + (" moves " + " ".join(moves[: len(moves) - plies]) if len(moves) > plies else "")


def new_game(engine):
    """As a GUI starts a game: `isready`, then `usinewgame` (YaneuraOu
    clears its hash and histories on the first, Ryuo on the second)."""
    engine.send("isready")
    engine.wait_for("readyok")
    engine.send("usinewgame")


def candidate_moves(path, options, positions, nodes, warm):
    engine = Engine(path, options)
    moves, depths = [], []
    for p in positions:
        # Each position in a new game; then, as in a game, the engine's
        # own last `warm` searches (every other ply) before this one, hash
        # and histories kept.
        new_game(engine)
        for k in range(warm, 0, -1):
            before = earlier(p, 2 * k)
            if before is not None:
                run_search(engine, before, f"go nodes {nodes}")
        move, _, depth = run_search(engine, p, f"go nodes {nodes}")
        moves.append(move)
        depths.append(depth)
    engine.quit()
    return moves, sum(depths) / max(len(depths), 1)


def moves_out_runs(path):
    """The runs a `--moves-out` file holds (name, nodes, moves), oldest
    first."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def losses(cache, positions, moves):
    """Each position's loss in expected score (None where not judged), from
    the reference's scores `cache`."""
    out = []
    for position, move in zip(positions, moves):
        entry = cache.get(position)
        if entry is None or move not in entry["scores"]:
            out.append(None)
            continue
        best = entry["scores"][entry["best"]]
        out.append(max(0.0, expected(best) - expected(entry["scores"][move])))
    return out


def mean_and_error(xs):
    n = len(xs)
    mean = sum(xs) / max(n, 1)
    var = sum((x - mean) ** 2 for x in xs) / max(n - 1, 1)
    return mean, math.sqrt(var / max(n, 1))


def paired(mine, base):
    """The mean difference of two runs' `losses` on the positions both
    have judged, and its standard error."""
    return mean_and_error([a - b for a, b in zip(mine, base) if a is not None and b is not None])


def judge(reference, positions, moves):
    agree, cp_losses, wp_losses = 0, [], []
    for position, move in zip(positions, moves):
        entry = reference.cache.get(position)
        if entry is None or move not in entry["scores"]:
            continue
        best = entry["scores"][entry["best"]]
        value = entry["scores"][move]
        agree += move == entry["best"]
        cp_losses.append(min(CAP, max(0, best - value)))
        wp_losses.append(max(0.0, expected(best) - expected(value)))
    n = len(wp_losses)
    mean, error = mean_and_error(wp_losses)
    return n, agree / max(n, 1), sum(cp_losses) / max(n, 1), mean, error


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", required=True, help="match.py --records file")
    ap.add_argument("--games", type=int, help="games of it to take (default all)")
    ap.add_argument("--first", type=int, default=16, help="the first cut (ply)")
    ap.add_argument("--step", type=int, default=8, help="plies between cuts")
    ap.add_argument("--last", type=int, default=200, help="no cut after this ply")
    ap.add_argument("--reference", required=True, help="the judging engine")
    ap.add_argument("--ref-option", action="append", default=[])
    ap.add_argument("--ref-nodes", type=int, default=600000)
    ap.add_argument("--cache", required=True, help="JSON file of the reference's scores")
    ap.add_argument("--jobs", type=int, default=2, help="reference engines in parallel")
    ap.add_argument("--nodes", type=int, default=40000, help="the candidates' budget")
    ap.add_argument("--warm", type=int, default=0,
                    help="the candidate first searches the game's position 2, 4, ... plies earlier, this many")
    ap.add_argument("--engine", required=True)
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--config", action="append", default=[],
                    help="Name=Value,... on top of the options ('' for none)")
    ap.add_argument("--moves-out", help="append each run's moves here (JSON lines) to pair runs later")
    ap.add_argument("--candidate-engine", action="append", default=[],
                    help="another binary judged too, with --candidate-option")
    ap.add_argument("--candidate-option", action="append", default=[])
    args = ap.parse_args()

    cuts = list(range(args.first, args.last + 1, args.step))
    positions = positions_from_records(args.records, cuts, args.games)
    if not positions:
        raise SystemExit("no positions: are the games longer than the cuts?")
    reference = Reference(args.reference, parse_options(args.ref_option), args.ref_nodes,
                          args.cache, args.jobs)
    reference.fill((p, None) for p in positions)

    runs = [(args.engine, parse_options(args.option) + parse_options(o for o in c.split(",") if o),
             c or "(defaults)") for c in (args.config or [""])]
    runs += [(e, parse_options(args.candidate_option), os.path.basename(e))
             for e in args.candidate_engine]

    def play(run):
        path, options, name = run
        return name, candidate_moves(path, options, positions, args.nodes, args.warm)

    # Two candidates at a time on two cores; the reference waits.
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(play, runs))
    first = None
    for name, (moves, depth) in results:
        reference.fill(zip(positions, moves))
        n, agree, cp, wp, se = judge(reference, positions, moves)
        line = (f"{name:50s} positions {n} depth {depth:5.2f} agree {100 * agree:5.1f} % "
                f"loss {cp:6.1f} cp  {1000 * wp:6.2f} ± {1000 * se:4.2f} ‰")
        mine = losses(reference.cache, positions, moves)
        if first is None:
            first = mine
        else:
            # Paired with the first run on the same positions: far less noise.
            d, e = paired(mine, first)
            line += f"  vs first {1000 * d:+6.2f} ± {1000 * e:4.2f} ‰"
        print(line, flush=True)
        if args.moves_out:
            with open(args.moves_out, "a") as out:
                record = {"name": name, "nodes": args.nodes, "warm": args.warm, "moves": moves}
                out.write(json.dumps(record) + "\n")
    reference.quit()


if __name__ == "__main__":
    main()
