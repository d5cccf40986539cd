#!/usr/bin/env python3
"""Whether a search misses a move for want of nodes or cannot see it at
all: the proxy's positions where one run's move loses and another's does
not (say Ryuo's at 120,000 and 240,000 nodes against YaneuraOu's at
120,000), searched again with many more nodes, each judged by the
reference's cached scores as `move_quality.py` judges them.

    python3 tools/more_nodes.py --moves moves120.jsonl --moves moves240.jsonl \\
        --cache mq.json --records games900.records --games 80 --first 16 --step 5 \\
        --losing '(defaults)@120000' --losing '(defaults)@240000' \\
        --holding 'yaneuraou-nnue@120000' \\
        --engine target/release/ryuo --option EvalFile=$PWD/data/halfkp/nn.bin \\
        --option USI_Hash=64 --nodes 1000000 --nodes 8000000

A position is taken when every `--losing` run (name@nodes, from the
`--moves` files) loses more than `--lose` in expected score there and
every `--holding` run less than `--hold`. Each `--nodes` budget searches
only the positions the smaller budgets left unsolved (a new game each,
no warm-up): a position the search solves with nodes is not a blind
spot of its rules. Moves the reference never judged count as unsolved.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from move_quality import losses, moves_out_runs, new_game, run_search  # noqa: E402
from tactics import Engine, parse_options  # noqa: E402
from tree_shape import positions_from_records  # noqa: E402


def runs_by_tag(paths):
    """Each run's moves by `name@nodes` (the last run of a tag counts)."""
    runs = {}
    for path in paths:
        for record in moves_out_runs(path):
            runs[f"{record['name']}@{record['nodes']}"] = record["moves"]
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", action="append", required=True, help="move_quality.py --moves-out files")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--records", required=True)
    ap.add_argument("--games", type=int)
    ap.add_argument("--first", type=int, default=16)
    ap.add_argument("--step", type=int, default=8)
    ap.add_argument("--last", type=int, default=200)
    ap.add_argument("--losing", action="append", required=True, help="name@nodes")
    ap.add_argument("--holding", action="append", default=[], help="name@nodes")
    ap.add_argument("--lose", type=float, default=0.04)
    ap.add_argument("--hold", type=float, default=0.01)
    ap.add_argument("--engine", required=True)
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--nodes", type=int, action="append", required=True)
    args = ap.parse_args()

    positions = positions_from_records(
        args.records, list(range(args.first, args.last + 1, args.step)), args.games)
    cache = json.load(open(args.cache))
    runs = runs_by_tag(args.moves)
    for tag in args.losing + args.holding:
        if tag not in runs:
            raise SystemExit(f"no run {tag!r} in the --moves files")
    losing = [losses(cache, positions, runs[t]) for t in args.losing]
    holding = [losses(cache, positions, runs[t]) for t in args.holding]
    chosen = [
        i for i in range(len(positions))
        if all(ls[i] is not None and ls[i] > args.lose for ls in losing)
        and all(ls[i] is not None and ls[i] < args.hold for ls in holding)
    ]
    share = sum(losing[0][i] for i in chosen) / len(positions)
    print(f"{len(chosen)} positions, {1000 * share:.2f} ‰ of {args.losing[0]}'s mean loss")

    engine = Engine(args.engine, parse_options(args.option))
    unsolved = chosen
    for nodes in sorted(args.nodes):
        still = []
        for i in unsolved:
            new_game(engine)
            move, _, depth = run_search(engine, positions[i], f"go nodes {nodes}")
            loss = losses(cache, [positions[i]], [move])[0]
            solved = loss is not None and loss < args.hold
            judged = "unjudged" if loss is None else f"loss {1000 * loss:.0f} ‰"
            print(f"  {nodes:>9} position {i}: {move} depth {depth} {judged}")
            if not solved:
                still.append(i)
        print(f"{nodes} nodes: {len(unsolved) - len(still)} of {len(unsolved)} solved, "
              f"{len(still)} left")
        unsolved = still
    engine.quit()


if __name__ == "__main__":
    main()
