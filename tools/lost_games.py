#!/usr/bin/env python3
"""Where Ryuo's lost games were lost: the ply from which the winner's
engine judged the game won, and the mates it saw that Ryuo's search misses.

    # decided: per game Ryuo lost, the winner's engine's score (for the
    # winner, --nodes a position) along the game, and the first ply from
    # which it stays at least --won
    python3 tools/lost_games.py decided --records <match.py --records file> \\
        --engine <yaneuraou-material> --option BookFile=no_book --option Threads=1 \\
        --option USI_Hash=256 --nodes 150000 --games 12
    # blunders: Ryuo's moves in the --before plies before each game was
    # decided, judged by the winner's engine at --judge-nodes, against the
    # moves Ryuo (and any engine as --mover) chooses at each --go budget
    python3 tools/lost_games.py blunders --records <match.py --records file> \\
        --engine <yaneuraou-material> --option BookFile=no_book --option Threads=1 \\
        --option USI_Hash=256 --mover target/release/ryuo --mover-option EvalType=Material \\
        --mover-option Threads=1 --mover-option USI_Hash=256 \\
        --go "go nodes 150000" --go "go nodes 1500000"
    # collect: in each game Ryuo lost by checkmate, the earliest position of
    # the last --tail plies (the winner to move) where the winner's engine
    # reports a mate of at least --min-mate plies at --nodes
    python3 tools/lost_games.py collect --records <match.py --records file> \\
        --engine <yaneuraou-material> --option BookFile=no_book --option Threads=1 \\
        --option USI_Hash=256 --nodes 150000 --out data/yo_mates.tsv
    # run: how many of those mates each configuration reports (a mate
    # score in any line of the search, bounds too) at the same budget
    python3 tools/lost_games.py run --set data/yo_mates.tsv \\
        --engine target/release/ryuo --option EvalType=Material --option Threads=1 \\
        --option USI_Hash=256 --option NetworkDelay=0 --go "go btime 0 wtime 0 byoyomi 100" \\
        --config "" --config MateOnePly=true

The set's format, one position a line: `sfen [moves ...]<TAB>mate length
(plies, as the winner's engine reported it)<TAB>game number<TAB>ply`.
A screen of how far ahead of the horizon each search sees a mating attack;
not of strength (the README's search-parity section has both).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tactics import Engine, parse_options  # noqa: E402


STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
MATE = 30000


def lost_games(path, loser):
    """(sfen, moves, game number) of each game `loser` lost by checkmate."""
    number = 0
    with open(path) as f:
        for line in f:
            head, _, position = line.rstrip("\n").partition("\t")
            fields = dict(x.split("=", 1) for x in head.split() if "=" in x)
            if fields.get("reason") != "checkmate" or fields.get("result") not in ("1-0", "0-1"):
                continue
            lost = fields["white"] if fields["result"] == "1-0" else fields["black"]
            if not lost.startswith(loser):
                continue
            number += 1
            base, _, moves = position.partition(" moves ")
            base = base.removeprefix("position ")
            sfen = STARTPOS if base == "startpos" else base.removeprefix("sfen ")
            yield sfen, moves.split(), number


def at(sfen, moves):
    """The game's position after `moves`, as `position sfen` takes it."""
    return sfen + (" moves " + " ".join(moves) if moves else "")


def winner_to_move(moves, ply):
    """Whether the winner is to move before `ply`: it made the last move
    (the loser was mated), so the plies left to the end are odd in number."""
    return (len(moves) - ply) % 2 == 1


def scores(engine, sfen, go):
    """The scores of the search's info lines, for the side to move, mates as
    +-MATE less their length; bounds count too (at a node limit YaneuraOu's
    last line is often an aspiration window's fail)."""
    engine.send("usinewgame")
    engine.send("isready")
    engine.wait_for("readyok")
    engine.send(f"position sfen {sfen}")
    engine.send(go)
    out = []
    for line in engine.wait_for("bestmove"):
        f = line.split()
        if f[:1] != ["info"] or "score" not in f:
            continue
        kind, value = f[f.index("score") + 1:f.index("score") + 3]
        try:
            v = int(value)
        except ValueError:
            continue  # YaneuraOu's `score mate -` (a mate of unknown length)
        out.append(v if kind == "cp" else MATE - v if v > 0 else -MATE - v)
    return out


def score(engine, sfen, go):
    """The last score; None without one (a single legal move is played at
    once)."""
    s = scores(engine, sfen, go)
    return s[-1] if s else None


def mate_length(engine, sfen, go):
    """The first mate for the side to move any line reports, in plies."""
    return next((MATE - s for s in scores(engine, sfen, go) if s > MATE - 1000), None)


def winner_values(engine, base, moves, go):
    """The engine's score for the winner before each ply of a lost game
    (None where it gave none)."""
    values = []
    for ply in range(len(moves)):
        s = score(engine, at(base, moves[:ply]), go)
        values.append(None if s is None else s if winner_to_move(moves, ply) else -s)
    return values


def won_from(values, won):
    """The first ply from which every known score is at least `won`."""
    return next(p for p in range(len(values) + 1)
                if all(v is None or v >= won for v in values[p:]))


def decided(args):
    engine = Engine(args.engine, parse_options(args.option))
    go = f"go nodes {args.nodes}"
    plies = []
    for base, moves, number in lost_games(args.records, args.loser):
        if number > args.games:
            break
        values = winner_values(engine, base, moves, go)
        won = won_from(values, args.won)
        plies.append((won, len(moves)))
        around = range(max(0, won - 8), min(len(values), won + 4))
        shown = " ".join(f"{p}:{'?' if values[p] is None else values[p]}" for p in around)
        print(f"game {number}: {len(moves)} plies, won from ply {won}; {shown}", flush=True)
    engine.quit()
    if plies:
        before = sorted(n - w for w, n in plies)
        median = before[len(before) // 2]
        print(f"{len(plies)} games: decided a median {median} plies before the mate")


def blunders(args):
    """In the plies before each game was decided, the loser's moves judged
    by the winner's engine at --judge-nodes against the moves the loser's
    engine chooses at each --go budget (from a cleared table)."""
    winner = Engine(args.engine, parse_options(args.option))
    loser = Engine(args.mover, parse_options(args.mover_option))
    judge = f"go nodes {args.judge_nodes}"
    worse = {go: 0 for go in args.go}
    total = bad = 0
    for base, moves, number in lost_games(args.records, args.loser):
        if number > args.games:
            break
        won = won_from(winner_values(winner, base, moves, f"go nodes {args.nodes}"), args.won)
        for ply in range(max(0, won - args.before), min(won + 1, len(moves))):
            if winner_to_move(moves, ply):
                continue
            chosen = {go: loser.search(at(base, moves[:ply]), go)[0] for go in args.go}

            def value(m):
                s = score(winner, at(base, moves[:ply] + [m]), judge)
                return None if s is None else -s
            played = value(moves[ply])
            alternatives = {go: value(m) for go, m in chosen.items()}
            if played is None or None in alternatives.values():
                continue
            total += 1
            if max(alternatives.values()) - played >= args.margin:
                bad += 1
                for go, v in alternatives.items():
                    worse[go] += v - played >= args.margin
            shown = " ".join(f"{chosen[go]}:{v}" for go, v in alternatives.items())
            print(f"game {number} ply {ply}: played {moves[ply]}:{played}; {shown}", flush=True)
    winner.quit()
    loser.quit()
    print(f"{total} moves; {bad} played at least {args.margin} below a move chosen at a budget;")
    for go in args.go:
        print(f"  '{go}' avoids {worse[go]} of them")


def collect(args):
    engine = Engine(args.engine, parse_options(args.option))
    go = f"go nodes {args.nodes}"
    with open(args.out, "w") as out:
        for base, moves, number in lost_games(args.records, args.loser):
            if number > args.games:
                break
            for ply in range(max(0, len(moves) - args.tail), len(moves)):
                if not winner_to_move(moves, ply):
                    continue
                sfen = at(base, moves[:ply])
                mate = mate_length(engine, sfen, go)
                if mate is not None and mate >= args.min_mate:
                    out.write(f"{sfen}\t{mate}\t{number}\t{ply}\n")
                    out.flush()
                    break
    engine.quit()


def run(args):
    rows = [line.rstrip("\n").split("\t") for line in open(args.set) if line.strip()]
    for config in args.config or [""]:
        extra = [o for o in config.split(",") if o]
        engine = Engine(args.engine, parse_options(args.option + extra))
        missed = [i for i, row in enumerate(rows) if mate_length(engine, row[0], args.go) is None]
        engine.quit()
        found = len(rows) - len(missed)
        print(f"{config or 'as given':50s} {found:4d}/{len(rows)}  missed {missed}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    # What `decided` and `collect` share: the games and the winner's engine.
    games = argparse.ArgumentParser(add_help=False)
    games.add_argument("--records", required=True, help="match.py --records file")
    games.add_argument("--loser", default="Ryuo", help="name prefix of the losing engine")
    games.add_argument("--engine", required=True, help="the winner's engine")
    games.add_argument("--option", action="append", default=[], help="Name=Value")
    games.add_argument("--nodes", type=int, default=150000)
    d = sub.add_parser("decided", parents=[games])
    d.add_argument("--games", type=int, default=12)
    d.add_argument("--won", type=int, default=400, help="score that counts as won")
    b = sub.add_parser("blunders", parents=[games])
    b.add_argument("--games", type=int, default=12)
    b.add_argument("--won", type=int, default=400, help="score that counts as won")
    b.add_argument("--before", type=int, default=12, help="plies before the decided one")
    b.add_argument("--mover", required=True, help="the loser's engine")
    b.add_argument("--mover-option", action="append", default=[], help="Name=Value")
    b.add_argument("--go", action="append", required=True, help="a budget for the loser")
    b.add_argument("--judge-nodes", type=int, default=1000000)
    b.add_argument("--margin", type=int, default=200)
    c = sub.add_parser("collect", parents=[games])
    c.add_argument("--games", type=int, default=1000)
    c.add_argument("--tail", type=int, default=40)
    c.add_argument("--min-mate", type=int, default=9)
    c.add_argument("--out", required=True)
    r = sub.add_parser("run")
    r.add_argument("--set", required=True)
    r.add_argument("--engine", required=True)
    r.add_argument("--option", action="append", default=[], help="Name=Value for every config")
    r.add_argument("--config", action="append", default=[],
                   help="Name=Value[,...] on top of --option; repeatable")
    r.add_argument("--go", default="go nodes 150000")
    args = ap.parse_args()
    commands = {"decided": decided, "blunders": blunders, "collect": collect, "run": run}
    commands[args.command](args)


if __name__ == "__main__":
    main()
