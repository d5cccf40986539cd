#!/usr/bin/env python3
"""Mean depth an engine completes in a fixed number of nodes, for several
configurations on the same positions: how much a change to the search
costs or buys in depth, before any game is played.

    python3 tools/depth_at_nodes.py --records games.records --games 40 \\
        --nodes 140000 --engine target/release/ryuo \\
        --option USI_Hash=256 --option Threads=1 --option PvInterval=0 \\
        --config EvalType=Material \\
        --config EvalType=Material,SingularExtension=false

The positions are the games of a match's `--records` cut at `--plies`
(games shorter than a cut plus 5 plies skip it), or with `--before-end`
that many plies before each game's end (the endgame; games of 20 plies
or fewer before the cut skip it). Each configuration
(comma-separated `Name=Value` pairs on top of the `--option`s; an empty
string for none) runs in one process: `usinewgame`, the position, `go
nodes N`; a position's depth is that of its last `info` line with a PV
that is not a bound. Searches ending on a mate score are left out of
the mean (a proven mate stops the deepening early). Printed: the
positions counted, the mean depth and the wall time, then the nodes
each even depth took to complete (the geometric mean over the positions,
for the depths every counted position completed): where a change makes
the tree grow faster or slower with depth.
"""

import argparse
import re
import statistics
import time

from tactics import Engine, parse_options  # the same folder's USI engine driver
from tree_shape import positions_from_records


def mean_depth(engine_path, options, positions, nodes):
    engine = Engine(engine_path, options)
    engine.send("isready")
    engine.wait_for("readyok")
    depths = []
    # Per position: the nodes at which each depth was first completed.
    nodes_to_depth = []
    start = time.time()
    for position in positions:
        # YaneuraOu ignores `usinewgame` and clears its hash at `isready`:
        # both, so that no engine starts a position with the last one's.
        engine.send("usinewgame")
        engine.send("isready")
        engine.wait_for("readyok")
        engine.send(position)
        engine.send(f"go nodes {nodes}")
        complete = [line for line in engine.wait_for("bestmove") if line.startswith("info")
                    and " depth " in line and " pv " in line and "bound" not in line]
        if complete and " score mate " in complete[-1]:
            continue
        depths.append(int(re.search(r" depth (\d+)", complete[-1]).group(1)) if complete else 0)
        reached = {}
        for line in complete:
            found = re.search(r" depth (\d+) .*? nodes (\d+)", line)
            if found:
                reached.setdefault(int(found.group(1)), int(found.group(2)))
        nodes_to_depth.append(reached)
    elapsed = time.time() - start
    engine.quit()
    return len(depths), sum(depths) / max(len(depths), 1), elapsed, nodes_to_depth


def depth_costs(nodes_to_depth):
    """`depth:nodes` for each even depth that every position completed
    (the geometric mean of its nodes, in thousands)."""
    costs = []
    for d in range(2, 64, 2):
        counts = [reached[d] for reached in nodes_to_depth if d in reached]
        if not counts or len(counts) < len(nodes_to_depth):
            continue
        mean = statistics.geometric_mean(max(n, 1) for n in counts)
        costs.append(f"{d}:{mean / 1000:.0f}k")
    return " ".join(costs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", required=True, help="match.py --records file")
    ap.add_argument("--games", type=int, default=40, help="games of it to take")
    ap.add_argument("--plies", default="30,50,70", help="where the games are cut")
    ap.add_argument("--before-end", help="cut this many plies before each game's end instead (comma list)")
    ap.add_argument("--nodes", type=int, default=140000)
    ap.add_argument("--engine", required=True)
    ap.add_argument("--option", action="append", default=[], help="Name=Value for every run")
    ap.add_argument("--config", action="append", required=True,
                    help="Name=Value,... on top of the options ('' for none)")
    args = ap.parse_args()
    cuts = args.before_end or args.plies
    positions = positions_from_records(args.records, [int(c) for c in cuts.split(",")],
                                       args.games, from_end=bool(args.before_end))
    if not positions:
        raise SystemExit("no positions: are the games longer than the cuts?")
    base = parse_options(args.option)
    for config in args.config:
        extra = parse_options(o for o in config.split(",") if o)
        counted, depth, elapsed, reached = mean_depth(args.engine, base + extra, positions,
                                                      args.nodes)
        print(f"{config or '(defaults)':50s} positions {counted} of {len(positions)} "
              f"mean depth {depth:.2f} time {elapsed:.1f} s", flush=True)
        print(f"{'':50s} nodes to depth {depth_costs(reached)}", flush=True)


if __name__ == "__main__":
    main()
