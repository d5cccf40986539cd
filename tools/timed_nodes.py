#!/usr/bin/env python3
"""Nodes an engine's search gets through in a timed move, for several
configurations on the same positions: what a change costs in speed inside
a game, where a benchmark of fixed depth does not see it (work before the
search, caches shared with other tables).

    python3 tools/timed_nodes.py --records games.records --games 3 \\
        --config off target/release/ryuo RootMatePercent=0 \\
        --config on target/release/ryuo RootMatePercent=10 \\
        --option USI_Hash=64 --option Threads=1 --rounds 2

Each configuration plays through the first `--games` games of a match's
`--records` in one process (`usinewgame` per game, then every position
of the game in order with `go btime 0 wtime 0 byoyomi B`), so its tables
evolve as in a game. Printed per configuration and round: the searches
counted, the mean and median of the nodes of the last `info` line, and
how many moves a root mate test answered (a single `info` line with a
mate score, left out of the node figures; a few of the alpha-beta
search's own quick mate answers count there too). Configurations run one
after another, alternated over the rounds: run it on an otherwise idle
machine.
"""

import argparse
import statistics

from tactics import Engine, parse_options  # the same folder's USI engine driver


def games_from_records(path, count):
    out = []
    for line in open(path):
        fields = line.rstrip("\n").split("\t")
        if len(fields) >= 2 and " moves " in fields[1]:
            head, moves = fields[1].split(" moves ", 1)
            out.append((head, moves.split()))
        if len(out) == count:
            break
    return out


def run(path, options, games, byoyomi):
    engine = Engine(path, options)
    engine.send("isready")
    engine.wait_for("readyok")
    nodes, solver_moves = [], 0
    for head, moves in games:
        engine.send("usinewgame")
        for k in range(1, len(moves)):
            engine.send(f"{head} moves {' '.join(moves[:k])}")
            engine.send(f"go btime 0 wtime 0 byoyomi {byoyomi}")
            infos = [l for l in engine.wait_for("bestmove") if l.startswith("info") and " nodes " in l]
            if not infos:
                continue
            words = infos[-1].split()
            if len(infos) == 1 and "mate" in words:
                solver_moves += 1
                continue
            nodes.append(int(words[words.index("nodes") + 1]))
    engine.quit()
    return nodes, solver_moves


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", required=True)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--byoyomi", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--config", nargs="+", action="append", required=True,
                    metavar="ARG",
                    help="a name, an engine binary and its own options")
    ap.add_argument("--option", action="append", default=[],
                    help="NAME=VALUE for every configuration")
    args = ap.parse_args()
    if any(len(config) < 2 for config in args.config):
        ap.error("--config needs a name and an engine")
    games = games_from_records(args.records, args.games)
    common = parse_options(args.option)
    for r in range(args.rounds):
        for config in args.config:
            name, path, own = config[0], config[1], parse_options(config[2:])
            nodes, solver_moves = run(path, common + own, games, args.byoyomi)
            if not nodes:
                print(f"round {r} {name}: no search counted", flush=True)
                continue
            print(f"round {r} {name}: {len(nodes)} searches, mean nodes "
                  f"{statistics.mean(nodes):,.0f}, median {statistics.median(nodes):,.0f}, "
                  f"root mate answers {solver_moves}", flush=True)


if __name__ == "__main__":
    main()
