#!/usr/bin/env python3
"""A tactical test set: positions with one clearly best move, and how many
of them an engine finds.

    # make: self-play positions where a MultiPV 2 search at depth 14 shows
    # one move at least 300 cp better than the next
    python3 tools/tactics.py make --engine target/release/ryuo \\
        --psv data/gen3/gen3-0.psv --count 150 --seed 1 --out tests/data/tactics.tsv
    # run: how many best moves an engine finds at 1 s a position
    python3 tools/tactics.py run --engine target/release/ryuo \\
        --set tests/data/tactics.tsv --byoyomi 1000 \\
        --option NetworkDelay=0 --option EvalType=Classic

Candidates are the positions of PackedSfenValue files (`ryuo psv-dump`:
self-play positions not in check whose best move at gensfen's search was
not a capture), taken in a seeded random order. A candidate is kept when
both lines of the MultiPV 2 search have centipawn scores (no mate: the mate
solver's sets test those), the best is within --max-score of zero and
the gap to the second is at least --gap. The set's format, one position a
line: `sfen<TAB>best move<TAB>gap (cp)<TAB>best score (cp)`. Every search
starts from a cleared hash (`usinewgame`, `isready`) and stops at a depth
or a node count, never a time, so `make` with one search thread is
reproducible. A search that reaches --max-nodes before --depth (a few
positions take minutes at depth 14) drops its candidate. `run` plays
`go btime 0 wtime 0 byoyomi T`: give Ryuo and YaneuraOu `NetworkDelay=0`
(and YaneuraOu's `NetworkDelay2=0`), or their margin for a GUI's lag
comes off the time.
"""

import argparse
import queue
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


class Engine:
    """A USI engine in a subprocess."""

    def __init__(self, path, options):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.send("usi")
        self.wait_for("usiok")
        for name, value in options:
            self.send(f"setoption name {name} value {value}")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait_for(self, prefix):
        """Lines up to and including the first that starts with `prefix`."""
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the engine exited")
            line = line.strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def search(self, sfen, go):
        """(bestmove, {multipv: (score kind, value, first move, depth)})
        of the last line of each."""
        self.send("usinewgame")
        self.send("isready")
        self.wait_for("readyok")
        self.send(f"position sfen {sfen}")
        self.send(go)
        lines = self.wait_for("bestmove")
        best = lines[-1].split()[1]
        lines_by_pv = {}
        for line in lines:
            f = line.split()
            if not f or f[0] != "info" or "pv" not in f or "score" not in f:
                continue
            if "lowerbound" in f or "upperbound" in f:
                continue
            try:
                pv = int(f[f.index("multipv") + 1]) if "multipv" in f else 1
                s = f.index("score")
                depth = int(f[f.index("depth") + 1]) if "depth" in f else 0
                lines_by_pv[pv] = (f[s + 1], int(f[s + 2]), f[f.index("pv") + 1], depth)
            except (ValueError, IndexError):
                continue  # e.g. YaneuraOu's `score mate -` (a mate of unknown length)
        return best, lines_by_pv

    def quit(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def parse_options(texts):
    return [tuple(t.split("=", 1)) for t in texts]


def positions(engine, psv):
    out = subprocess.run([engine, "psv-dump", psv], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split("\t")
        if f and f[0] and not f[0].startswith("#"):
            yield f[0]


def verdict(args, engine, sfen):
    """(best move, gap, score) if `sfen` has one clearly best move, else None."""
    best, pvs = engine.search(sfen, f"go depth {args.depth} nodes {args.max_nodes}")
    if not (1 in pvs and 2 in pvs) or min(pvs[1][3], pvs[2][3]) < args.depth:
        return None  # the node cap struck first: a rare, explosive search
    if pvs[1][0] == "cp" and pvs[2][0] == "cp":
        first, second = pvs[1][1], pvs[2][1]
        if abs(first) <= args.max_score and first - second >= args.gap and pvs[1][2] == best:
            return best, first - second, first
    return None


def make(args):
    cands = []
    for psv in args.psv:
        cands += list(dict.fromkeys(positions(args.engine, psv)))
    random.Random(args.seed).shuffle(cands)
    cands = cands[: args.max_candidates]
    options = [("MultiPV", "2")] + parse_options(args.option)
    engines = queue.Queue()
    for _ in range(args.jobs):
        engines.put(Engine(args.engine, options))

    def judge(sfen):
        engine = engines.get()
        try:
            return verdict(args, engine, sfen)
        finally:
            engines.put(engine)

    # Candidates are judged a chunk at a time on `jobs` engines and taken
    # in their seeded order, so the set does not depend on --jobs. Each
    # position is written as it is kept: a run cut short leaves the prefix
    # of its set (the set of a smaller --count).
    kept, tried, start = 0, 0, time.time()
    with open(args.out, "w") as out, ThreadPoolExecutor(max_workers=args.jobs) as pool:
        out.write("# Tactical set: sfen<TAB>best move<TAB>gap to the second move (cp)<TAB>best score (cp)\n")
        out.write(f"# Made by tools/tactics.py make --depth {args.depth} --max-nodes {args.max_nodes} --gap {args.gap} "
                  f"--max-score {args.max_score} --count {args.count} --seed {args.seed} "
                  f"--psv {' --psv '.join(args.psv)}"
                  + "".join(f" --option {o}" for o in args.option) + "\n")
        out.flush()
        while cands and kept < args.count:
            chunk, cands = cands[: 2 * args.jobs], cands[2 * args.jobs :]
            for sfen, found in zip(chunk, pool.map(judge, chunk)):
                if kept >= args.count:
                    break
                tried += 1
                if found:
                    kept += 1
                    best, gap, score = found
                    out.write(f"{sfen}\t{best}\t{gap}\t{score}\n")
                    out.flush()
                if tried % 50 == 0:
                    print(f"{tried} tried, {kept} kept, {time.time() - start:.0f} s", flush=True)
        out.write(f"# {kept} positions kept of {tried} tried.\n")
    while not engines.empty():
        engines.get().quit()
    print(f"{kept} kept of {tried} tried")


def run(args):
    problems = []
    for line in open(args.set):
        if line.startswith("#") or not line.strip():
            continue
        sfen, best = line.rstrip("\n").split("\t")[:2]
        problems.append((sfen, best))
    engine = Engine(args.engine, parse_options(args.option))
    found = 0
    for n, (sfen, best) in enumerate(problems):
        played, _ = engine.search(sfen, f"go btime 0 wtime 0 byoyomi {args.byoyomi}")
        found += played == best
        if args.verbose:
            print(f"{n:4} {'ok  ' if played == best else 'MISS'} {played:7} (best {best}) {sfen}", flush=True)
    engine.quit()
    print(f"found {found}/{len(problems)} at byoyomi {args.byoyomi} ms: {args.engine}")
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make", help="make a set from self-play positions")
    m.add_argument("--engine", required=True)
    m.add_argument("--psv", action="append", required=True)
    m.add_argument("--depth", type=int, default=14)
    m.add_argument("--max-nodes", type=int, default=20_000_000,
                   help="a search still short of --depth after this many nodes drops its candidate")
    m.add_argument("--gap", type=int, default=300, help="cp the best move must lead the second by")
    m.add_argument("--max-score", type=int, default=1500, help="|best score| at most this (cp)")
    m.add_argument("--count", type=int, default=150)
    m.add_argument("--max-candidates", type=int, default=5000)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--jobs", type=int, default=1, help="engines searching at once (the set is the same)")
    m.add_argument("--option", action="append", default=[], help="NAME=VALUE, a USI option")
    m.add_argument("--out", required=True)
    r = sub.add_parser("run", help="count the best moves an engine finds")
    r.add_argument("--engine", required=True)
    r.add_argument("--set", required=True)
    r.add_argument("--byoyomi", type=int, default=1000, help="ms a position")
    r.add_argument("--option", action="append", default=[], help="NAME=VALUE, a USI option")
    r.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    if args.command == "make":
        make(args)
    else:
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
