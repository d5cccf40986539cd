#!/usr/bin/env python3
"""Builds the mate solver's problem set (tests/data/tsume.tsv) from
self-play positions: candidates are positions whose side to move is
winning by the search score recorded in PackedSfenValue files; each is
solved by `ryuo mate` at a long time limit, and the proven answers are
kept, mates spread over lengths, plus proven no-mate positions (the side to
move has checks but no mate).

    python3 tests/data/make_tsume.py --engine target/release/ryuo \
        --psv tests/data/sample.psv --psv data/gen2.psv --out tests/data/tsume.tsv

(data/gen2.psv is made by the README's gen-2 gensfen command.) --jobs N
solves N candidates at once. Positions
are taken in a seeded random order; a position whose answer is not proven
within --time-ms is dropped.
"""

import argparse
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor


def positions(engine, psv, min_score):
    out = subprocess.run([engine, "psv-dump", psv], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) >= 3 and int(f[2]) >= min_score:
            yield f[0]


def solve(engine, sfen, time_ms):
    out = subprocess.run(
        [engine, "mate", "--sfen", sfen, "--time-ms", str(time_ms)], capture_output=True, text=True
    ).stdout.split()
    if len(out) < 2 or out[0] != "checkmate":
        return None
    if out[1] == "nomate":
        return ("nomate", 0)
    if out[1] == "timeout":
        return None
    moves = []
    for tok in out[1:]:
        if tok == "info":
            break
        moves.append(tok)
    return ("mate", len(moves))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", required=True)
    p.add_argument("--psv", action="append", required=True)
    p.add_argument("--min-score", type=int, default=1500)
    p.add_argument("--time-ms", type=int, default=3000)
    p.add_argument("--mates", type=int, default=120, help="mates to keep")
    p.add_argument("--per-length", type=int, default=12, help="at most this many mates of one length")
    p.add_argument("--nomates", type=int, default=40)
    p.add_argument("--max-candidates", type=int, default=4000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="solver processes at once")
    p.add_argument("--out", required=True)
    args = p.parse_args()

    cands = []
    for psv in args.psv:
        cands += list(dict.fromkeys(positions(args.engine, psv, args.min_score)))
    random.Random(args.seed).shuffle(cands)
    mates, nomates, by_len = [], [], {}
    tried = 0
    # Candidates are solved a few at a time on `jobs` processes and taken
    # in their seeded order (which answers come within the time limit
    # still depends on the machine's speed).
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    pending = cands[: args.max_candidates]
    solved = []
    while True:
        if len(mates) >= args.mates and len(nomates) >= args.nomates:
            break
        if not solved:
            if not pending:
                break
            chunk, pending = pending[: 4 * args.jobs], pending[4 * args.jobs :]
            solved = list(zip(chunk, pool.map(lambda s: solve(args.engine, s, args.time_ms), chunk)))
        sfen, r = solved.pop(0)
        tried += 1
        if tried % 200 == 0:
            print(f"{tried} tried: {len(mates)} mates {dict(sorted(by_len.items()))}, "
                  f"{len(nomates)} nomates", flush=True)
        if r is None:
            continue
        kind, plies = r
        if kind == "mate" and len(mates) < args.mates and by_len.get(plies, 0) < args.per_length:
            by_len[plies] = by_len.get(plies, 0) + 1
            mates.append((sfen, plies))
        elif kind == "nomate" and len(nomates) < args.nomates:
            # Only positions where checks exist are worth a solver's time:
            # with none, `nomate` is immediate and says nothing.
            quick = subprocess.run(
                [args.engine, "mate", "--sfen", sfen, "--time-ms", "1000"], capture_output=True, text=True
            ).stdout
            nodes = int(quick.split("nodes ")[1].split()[0]) if "nodes " in quick else 0
            if nodes > 1:
                nomates.append(sfen)
    mates.sort(key=lambda m: m[1])
    with open(args.out, "w") as f:
        f.write("# Mate solver problem set: sfen<TAB>mate|nomate<TAB>plies of the mate found at long time.\n")
        f.write(f"# Made by tests/data/make_tsume.py --min-score {args.min_score} --time-ms {args.time_ms} "
                f"--mates {args.mates} --per-length {args.per_length} --nomates {args.nomates} --seed {args.seed} "
                f"--psv {' --psv '.join(args.psv)}\n")
        f.write(f"# {len(mates)} mates (plies: {dict(sorted(by_len.items()))}), {len(nomates)} no-mate positions, "
                f"from {tried} candidates tried.\n")
        for sfen, plies in mates:
            f.write(f"{sfen}\tmate\t{plies}\n")
        for sfen in nomates:
            f.write(f"{sfen}\tnomate\t0\n")
    print(f"{len(mates)} mates {dict(sorted(by_len.items()))}, {len(nomates)} nomates, {tried} tried")


if __name__ == "__main__":
    main()
