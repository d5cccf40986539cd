#!/usr/bin/env python3
"""How much a search gains from the one before it, iteration by iteration.

Each position is searched to `--depth` twice: fresh (after `isready` and
`usinewgame`, as a GUI starts a game), and after a `--before`-node search
of the same game's position two plies earlier (the engine's previous move
in a game; hash and histories kept). Per depth: the median nodes of the
fresh search and the geometric mean, over positions, of warm over fresh
nodes (below 1: the previous search pays). The positions are the keys of
a `move_quality.py` reference cache. Needs the engine to print every
iteration (`PvInterval=0` for Ryuo and YaneuraOu).
"""

import argparse
import json
import math
import random
import statistics

from move_quality import Engine, earlier, new_game, parse_options, search_lines


def iteration_nodes(engine, position, go):
    """{depth: nodes} of the exact `info` lines of one search."""
    nodes = {}
    for line in search_lines(engine, position, go):
        f = line.split()
        if f and f[0] == "info" and "depth" in f and "nodes" in f and "bound" not in line:
            nodes[int(f[f.index("depth") + 1])] = int(f[f.index("nodes") + 1])
    return nodes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", required=True, help="move_quality.py reference cache (JSON)")
    ap.add_argument("--count", type=int, default=100, help="positions to take")
    ap.add_argument("--seed", type=int, default=5, help="which positions (shuffle seed)")
    ap.add_argument("--depth", type=int, required=True)
    ap.add_argument("--before", type=int, default=40000, help="nodes of the previous search")
    ap.add_argument("--engine", required=True)
    ap.add_argument("--option", action="append", default=[], help="Name=Value")
    args = ap.parse_args()

    positions = sorted(json.load(open(args.cache)))
    random.Random(args.seed).shuffle(positions)
    positions = [p for p in positions if earlier(p, 2)][: args.count]
    engine = Engine(args.engine, parse_options(args.option))
    fresh_nodes, log_ratios = {}, {}
    for p in positions:
        new_game(engine)
        fresh = iteration_nodes(engine, p, f"go depth {args.depth}")
        new_game(engine)
        iteration_nodes(engine, earlier(p, 2), f"go nodes {args.before}")
        warm = iteration_nodes(engine, p, f"go depth {args.depth}")
        for d in fresh.keys() & warm.keys():
            fresh_nodes.setdefault(d, []).append(fresh[d])
            log_ratios.setdefault(d, []).append(math.log2(max(warm[d], 1) / max(fresh[d], 1)))
    engine.quit()
    print(f"{len(positions)} positions, previous search {args.before} nodes")
    print("depth  positions  fresh nodes (median)  warm/fresh (geometric mean)")
    for d in sorted(fresh_nodes):
        ratio = 2 ** statistics.mean(log_ratios[d])
        print(f"{d:5}  {len(log_ratios[d]):9}  {statistics.median(fresh_nodes[d]):20.0f}  {ratio:27.3f}")


if __name__ == "__main__":
    main()
