#!/usr/bin/env python3
"""Side-by-side perft 6 wall-clock: Ryuo's `perft 6` command vs YaneuraOu's
`go perft 6` timed from the command to its answer (after isready, so hash
allocation is excluded). Alternated runs, medians."""
import subprocess, time, statistics, sys
RYUO, YO = sys.argv[1], sys.argv[2]
def ryuo():
    t = time.perf_counter()
    out = subprocess.run([RYUO, "perft", "6"], capture_output=True, text=True).stdout
    return time.perf_counter() - t, out.strip().splitlines()[-1]
def yo():
    p = subprocess.Popen([YO], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    p.stdin.write("usi\nsetoption name USI_Hash value 16\nisready\n"); p.stdin.flush()
    for line in p.stdout:
        if line.strip() == "readyok": break
    p.stdin.write("position startpos\ngo perft 6\n"); p.stdin.flush()
    t = time.perf_counter(); last = ""
    for line in p.stdout:
        last = line.strip()
        if "547581517" in line or line.lower().startswith("nodes") or "Nodes" in line: break
    dt = time.perf_counter() - t
    p.stdin.write("quit\n"); p.stdin.flush(); p.wait()
    return dt, last
r, y = [], []
for i in range(5):
    a = ryuo(); b = yo(); r.append(a[0]); y.append(b[0])
    print(f"run {i}: ryuo {a[0]:.2f} s ({a[1]}), yaneuraou {b[0]:.2f} s ({b[1]})", flush=True)
print(f"median: ryuo {statistics.median(r):.2f} s, yaneuraou {statistics.median(y):.2f} s")
