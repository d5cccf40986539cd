#!/usr/bin/env python3
"""Runs a USI engine with every `go ... nodes N` rewritten to a node budget
of its own, so that `match.py --nodes` can give two engines different
budgets (for instance in the ratio of their speeds in real games):

    python3 ../shared/tools/match.py \\
        --engine1 "python3 tools/node_budget.py 115000 target/release/ryuo" \\
        --engine2 "python3 tools/node_budget.py 150000 <other engine>" \\
        --nodes 1000000 ...

Everything else passes through unchanged, both ways.
"""
import subprocess
import sys


def main() -> int:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        print(__doc__, file=sys.stderr)
        return 2
    budget, command = sys.argv[1], sys.argv[2:]
    engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=sys.stdout, text=True, bufsize=1)
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["go"] and "nodes" in words[:-1]:
            words[words.index("nodes") + 1] = budget
            line = " ".join(words) + "\n"
        engine.stdin.write(line)
        engine.stdin.flush()
        if words == ["quit"]:
            break
    engine.stdin.close()
    return engine.wait()


if __name__ == "__main__":
    sys.exit(main())
