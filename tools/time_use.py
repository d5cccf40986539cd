#!/usr/bin/env python3
"""Time a move per engine from a `match.py --log` dialogue: the wall time
from each `go` to the engine's `bestmove`.

    python3 tools/time_use.py clock.log

Unlike `tools/move_times.py` it accepts logs of `--concurrency 2`, where
two processes of the same name may think at once: each `bestmove` is
paired with the oldest open `go` of that name. The pairs may then be
crossed, but the sum of the times, and so the mean, is exact; the median
and percentiles are close.
"""

import re
import statistics
import sys
from collections import defaultdict

GO = re.compile(r"([\d.]+) (\S+)< go ")
BESTMOVE = re.compile(r"([\d.]+) (\S+)> bestmove")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    open_gos = defaultdict(list)
    used = defaultdict(list)
    with open(sys.argv[1]) as f:
        for line in f:
            m = GO.match(line)
            if m:
                open_gos[m.group(2)].append(float(m.group(1)))
                continue
            m = BESTMOVE.match(line)
            if m and open_gos[m.group(2)]:
                start = open_gos[m.group(2)].pop(0)
                used[m.group(2)].append((float(m.group(1)) - start) * 1000)
    for name, times in sorted(used.items()):
        times.sort()
        print(
            f"{name}: {len(times)} moves, mean {statistics.mean(times):.0f} ms, "
            f"median {statistics.median(times):.0f}, "
            f"p90 {times[int(len(times) * 0.9)]:.0f}, max {times[-1]:.0f}"
        )


if __name__ == "__main__":
    main()
