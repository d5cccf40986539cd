#!/usr/bin/env python3
"""Runs of `move_quality.py` made at different times, paired position by
position against one of them: its `--moves-out` file holds each run's
moves, its `--cache` the reference's scores, so no engine is started.

    python3 tools/pair_moves.py --moves moves.jsonl --cache mq.json \\
        --records games.records --games 80 --first 16 --step 5 \\
        --nodes 120000 --base '(defaults)'

The cut arguments must be the ones the runs were made with (they name the
positions the moves belong to). For every run at `--nodes` (the last of
each name): its positions judged, its mean loss in expected score (as
`move_quality.py` prints it) and the paired difference from the base run
with its standard error, far smaller than either loss's own.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from move_quality import losses, mean_and_error, moves_out_runs, paired  # noqa: E402  the same folder's proxy
from tree_shape import positions_from_records  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", required=True, help="a move_quality.py --moves-out file")
    ap.add_argument("--cache", required=True, help="the runs' --cache file")
    ap.add_argument("--records", required=True)
    ap.add_argument("--games", type=int)
    ap.add_argument("--first", type=int, default=16)
    ap.add_argument("--step", type=int, default=8)
    ap.add_argument("--last", type=int, default=200)
    ap.add_argument("--nodes", type=int, required=True, help="the runs' budget")
    ap.add_argument("--base", default="(defaults)", help="the run the others are paired with")
    args = ap.parse_args()

    positions = positions_from_records(
        args.records, list(range(args.first, args.last + 1, args.step)), args.games)
    runs = {}
    for record in moves_out_runs(args.moves):
        if record["nodes"] == args.nodes:
            runs[record["name"]] = record  # the last run of a name counts
    if args.base not in runs:
        raise SystemExit(f"no run named {args.base!r} at {args.nodes} nodes")
    cache = json.load(open(args.cache))
    judged = {name: losses(cache, positions, r["moves"]) for name, r in runs.items()}
    base = judged[args.base]
    for name, mine in judged.items():
        own = [x for x in mine if x is not None]
        mean, error = mean_and_error(own)
        line = f"{name:50s} positions {len(own)} loss {1000 * mean:6.2f} ± {1000 * error:4.2f} ‰"
        if name != args.base:
            d, e = paired(mine, base)
            line += f"  vs {args.base} {1000 * d:+6.2f} ± {1000 * e:4.2f} ‰"
        print(line)


if __name__ == "__main__":
    main()
