#!/usr/bin/env python3
"""How each engine spends its clock over a game: the wall time from each
`go` to its `bestmove`, by the game's ply, read from the dialogue that
`match.py --log` writes.

    python3 ../shared/tools/match.py ... --time 10000 --inc 100 --games 6 \\
        --concurrency 1 --log clock.log
    python3 tools/move_times.py clock.log --bucket 10

The log does not say which of two engine processes of the same name wrote
a line, so the match must be played with `--concurrency 1` (the script
refuses a log where an engine is sent `go` while it is still thinking).
Plies count from the game's first move after the opening.
"""

import argparse
import re
import sys
from collections import defaultdict

LINE = re.compile(r"(\d+\.\d+) (.+?)([<>]) (\S+)")


def move_times(lines):
    """{engine: {ply: [ms, ...]}} from the log's lines."""
    spent = defaultdict(lambda: defaultdict(list))
    thinking = {}  # engine -> time its `go` was sent
    ply = 0
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        stamp, engine, direction, command = float(m[1]), m[2], m[3], m[4]
        if direction == "<" and command == "usinewgame":
            ply = 0
        elif direction == "<" and command == "go":
            if engine in thinking:
                raise ValueError(
                    f"{engine} was sent go while thinking: play the match with --concurrency 1"
                )
            thinking[engine] = stamp
        elif direction == ">" and command == "bestmove" and engine in thinking:
            spent[engine][ply].append((stamp - thinking.pop(engine)) * 1000)
            ply += 1
    return spent


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log", help="match.py --log file of a --concurrency 1 match")
    ap.add_argument("--bucket", type=int, default=10, help="plies per row (default 10)")
    args = ap.parse_args()
    with open(args.log, encoding="utf-8", errors="replace") as f:
        try:
            spent = move_times(f)
        except ValueError as e:
            sys.exit(f"move_times: {e}")
    if not spent:
        sys.exit("move_times: no go/bestmove pairs in the log")
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
