#!/usr/bin/env python3
"""tools/tactics.py end to end on the committed gensfen sample: `make` at a
small depth keeps positions whose best move is legal (cshogi) and leads
the second by the gap asked, one engine or two make the same file, a
smaller count makes its prefix, and
`run` reports a count over the set it reads.

    python3 tests/oracle/test_tactics.py --engine target/release/ryuo
"""

import argparse
import os
import subprocess
import sys
import tempfile

import cshogi

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "tactics.py")
SAMPLE = os.path.join(ROOT, "tests", "data", "sample.psv")


def make(engine, out, jobs, count=3):
    subprocess.run([sys.executable, TOOL, "make", "--engine", engine, "--psv", SAMPLE, "--jobs", str(jobs),
                    "--depth", "6", "--gap", "300", "--count", str(count), "--max-candidates", "300",
                    "--seed", "1", "--option", "Threads=1", "--out", out],
                   check=True, capture_output=True, text=True)
    return open(out).read()


def check_rows(rows, where):
    """Each row's best move is legal (cshogi) and leads by the gap asked,
    its score within the bound."""
    for sfen, best, gap, score in rows:
        board = cshogi.Board(sfen)
        move = board.move_from_usi(best)
        assert move and board.is_legal(move), f"{where}: {best} is not legal in {sfen}"
        assert int(gap) >= 300 and abs(int(score)) <= 1500, f"{where}: {sfen}: gap {gap}, score {score}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        first = make(args.engine, os.path.join(tmp, "a.tsv"), 1)
        second = make(args.engine, os.path.join(tmp, "b.tsv"), 2)
        assert first == second, "--jobs 1 and --jobs 2 made two different sets"
        rows = [l.split("\t") for l in first.splitlines() if l and not l.startswith("#")]
        assert len(rows) == 3, f"expected 3 positions, got {len(rows)}"
        # The set is written as it grows: a smaller count is its prefix.
        smaller = make(args.engine, os.path.join(tmp, "c.tsv"), 1, count=2)
        assert [l for l in smaller.splitlines() if not l.startswith("#")] == \
            ["\t".join(r) for r in rows[:2]], "--count 2 is not the prefix of --count 3"
        check_rows(rows, "made set")
        out = subprocess.run([sys.executable, TOOL, "run", "--engine", args.engine,
                              "--set", os.path.join(tmp, "a.tsv"), "--byoyomi", "50",
                              "--option", "NetworkDelay=0"],
                             check=True, capture_output=True, text=True).stdout
        assert out.startswith("found ") and out.split()[1].endswith("/3"), out
    # The committed set: 150 positions, each best move legal.
    committed = [l.rstrip("\n").split("\t") for l in open(os.path.join(ROOT, "tests", "data", "tactics.tsv"))
                 if l.strip() and not l.startswith("#")]
    assert len(committed) == 150, f"tests/data/tactics.tsv holds {len(committed)} positions"
    check_rows(committed, "tactics.tsv")
    print(f"tactics: 3 positions, the same with 1 and 2 engines, legal best moves; {out.strip()}; "
          f"tests/data/tactics.tsv: 150 legal best moves")


if __name__ == "__main__":
    main()
