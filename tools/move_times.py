#!/usr/bin/env python3
"""How each engine spends its clock over a game: the wall time from each
`go` to its `bestmove`, by the game's ply, read from the dialogue that
`match.py --log` writes.

    python3 ../shared/tools/match.py ... --time 10000 --inc 100 --games 6 \\
        --concurrency 1 --log clock.log
    python3 tools/move_times.py clock.log --bucket 10

With `--nodes`, the size of each search instead: the nodes and depth of
the last `info` line before each `bestmove`, summed up per engine (mean,
median and geometric mean of the nodes, mean depth). Played at a fixed
depth (`match.py --depth D`), it compares how many nodes each engine's
search spends on the same nominal depth.

The log does not say which of two engine processes of the same name wrote
a line, so the match must be played with `--concurrency 1` (the script
refuses a log where an engine is sent `go` while it is still thinking).
Plies count from the game's first move after the opening.

With `--overlapping`, a log of `--concurrency 2` is read too: each
`bestmove` is paired with the oldest open `go` of that engine's name. The
pairs may then cross between the two games, but the sum of the times, so
the mean, is exact (the median and 90th percentile close); it prints only
each engine's summary, since plies cannot be told apart.
"""

import argparse
import re
import statistics
import sys
from collections import defaultdict

LINE = re.compile(r"(\d+\.\d+) (.+?)([<>]) (\S+)")


NODES = re.compile(r" nodes (\d+)")
DEPTH = re.compile(r" depth (\d+)")


def move_times(lines, searches=None):
    """{engine: {ply: [ms, ...]}} from the log's lines; with `searches` (a
    dict), also {engine: [(nodes, depth), ...]} of each move's last `info`
    line that counts nodes."""
    spent = defaultdict(lambda: defaultdict(list))
    thinking = {}  # engine -> time its `go` was sent
    last_info = {}  # engine -> (nodes, depth) of its last info line
    ply = 0
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        stamp, engine, direction, command = float(m[1]), m[2], m[3], m[4]
        if direction == ">" and command == "info" and engine in thinking:
            nodes = NODES.search(line)
            if nodes:
                depth = DEPTH.search(line)
                last_info[engine] = (int(nodes[1]), int(depth[1]) if depth else 0)
        elif direction == "<" and command == "usinewgame":
            ply = 0
        elif direction == "<" and command == "go":
            if engine in thinking:
                raise ValueError(
                    f"{engine} was sent go while thinking: play the match with --concurrency 1"
                )
            thinking[engine] = stamp
            last_info.pop(engine, None)
        elif direction == ">" and command == "bestmove" and engine in thinking:
            spent[engine][ply].append((stamp - thinking.pop(engine)) * 1000)
            if searches is not None and engine in last_info:
                searches.setdefault(engine, []).append(last_info[engine])
            ply += 1
    return spent


def overlapping_times(lines):
    """{engine: [ms, ...]}: each `bestmove` paired with the oldest open `go`
    of the same name (see `--overlapping`)."""
    open_gos = defaultdict(list)
    spent = defaultdict(list)
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        stamp, engine, direction, command = float(m[1]), m[2], m[3], m[4]
        if direction == "<" and command == "go":
            open_gos[engine].append(stamp)
        elif direction == ">" and command == "bestmove" and open_gos[engine]:
            spent[engine].append((stamp - open_gos[engine].pop(0)) * 1000)
    return spent


def print_searches(searches):
    """Per engine: the nodes and depth of its searches, summed up."""
    for e in sorted(searches):
        nodes = [n for n, _ in searches[e]]
        depths = [d for _, d in searches[e]]
        geomean = statistics.geometric_mean([n for n in nodes if n > 0])
        print(
            f"{e}: {len(nodes)} searches, nodes mean {statistics.mean(nodes):.0f}, "
            f"median {statistics.median(nodes):.0f}, geometric mean {geomean:.0f}; "
            f"depth mean {statistics.mean(depths):.2f}"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log", help="match.py --log file of a --concurrency 1 match")
    ap.add_argument("--bucket", type=int, default=10, help="plies per row (default 10)")
    ap.add_argument("--nodes", action="store_true", help="the searches' nodes and depths instead")
    ap.add_argument(
        "--overlapping", action="store_true", help="a --concurrency 2 log: each engine's summary only"
    )
    args = ap.parse_args()
    if args.overlapping:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            spent = overlapping_times(f)
        for e, xs in sorted(spent.items()):
            xs.sort()
            print(
                f"{e}: {len(xs)} moves, mean {statistics.mean(xs):.0f} ms, "
                f"median {statistics.median(xs):.0f}, p90 {xs[int(len(xs) * 0.9)]:.0f}, max {xs[-1]:.0f}"
            )
        return
    searches = {} if args.nodes else None
    with open(args.log, encoding="utf-8", errors="replace") as f:
        try:
            spent = move_times(f, searches)
        except ValueError as e:
            sys.exit(f"move_times: {e}")
    if not spent:
        sys.exit("move_times: no go/bestmove pairs in the log")
    if args.nodes:
        print_searches(searches)
        return
    engines = sorted(spent)
    print("plies    " + "".join(f"{e[:24]:>28}" for e in engines))
    print("         " + "".join(f"{'mean ms (moves)':>28}" for _ in engines))
    last = max(p for e in engines for p in spent[e])
    for start in range(0, last + 1, args.bucket):
        row = f"{start:4d}-{start + args.bucket - 1:<4d}"
        for e in engines:
            xs = [x for p in range(start, start + args.bucket) for x in spent[e].get(p, [])]
            cell = f"{sum(xs) / len(xs):.0f} ({len(xs)})" if xs else "-"
            row += f"{cell:>28}"
        print(row)
    for e in engines:
        xs = [x for v in spent[e].values() for x in v]
        print(f"{e}: {len(xs)} moves, mean {sum(xs) / len(xs):.0f} ms, total {sum(xs) / 1000:.1f} s")


if __name__ == "__main__":
    main()
