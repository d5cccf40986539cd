#!/usr/bin/env python3
"""Cross-checks ryuo's reading of a PackedSfenValue file against cshogi.

Decodes FILE with cshogi (an independent implementation of YaneuraOu's
format) and with `ENGINE psv-dump FILE`, and compares, record by record,
the position (board, side to move, hands), the move (which must also be
legal in the position), the score, the ply and the result; cshogi must also
pack the position back to the same bits (see `same_packing`). Exits non-zero
on any mismatch; the last line is `N records, M mismatches`.
"""

import argparse
import os
import subprocess
import sys

import cshogi
import numpy as np

HAND_ORDER = "RBGSNLP"


def canonical_sfen(sfen):
    """Board, side and hands with the hands in one fixed order."""
    fields = sfen.split()
    if len(fields) < 3:
        return sfen
    counts = {}
    hand, n = fields[2], ""
    if hand != "-":
        for ch in hand:
            if ch.isdigit():
                n += ch
            else:
                counts[ch] = counts.get(ch, 0) + (int(n) if n else 1)
                n = ""
    parts = []
    for letters in (HAND_ORDER, HAND_ORDER.lower()):
        for ch in letters:
            k = counts.get(ch, 0)
            if k:
                parts.append((str(k) if k > 1 else "") + ch)
    return " ".join([fields[0], fields[1], "".join(parts) or "-"])


# Bits of one piece in hand, in cshogi's hand order (P L N S G B R).
HAND_BITS = [3, 5, 5, 5, 5, 7, 7]


def same_packing(board, packed):
    """Whether cshogi packs `board` to the bits ryuo wrote. cshogi lists a
    hand as P L N S G B R, YaneuraOu (and ryuo) as P L N S B R G; readers
    accept either, so the hand section is compared bit for bit only when a
    hand holds no gold together with a bishop or rook (the decoded hands are
    compared through the SFEN anyway)."""
    again = np.zeros(32, dtype=np.uint8)
    board.to_psfen(again)
    ours = np.unpackbits(np.asarray(packed, dtype=np.uint8), bitorder="little")
    theirs = np.unpackbits(again, bitorder="little")
    hands = board.pieces_in_hand
    hand_bits = sum(n * b for hand in hands for n, b in zip(hand, HAND_BITS))
    if any(h[4] and (h[5] or h[6]) for h in hands):
        end = 256 - hand_bits
        return bool((ours[:end] == theirs[:end]).all())
    return bool((ours == theirs).all())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--engine", default="target/release/ryuo")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--show", type=int, default=10, help="mismatches to print")
    args = ap.parse_args()

    size = os.path.getsize(args.file)
    mismatches = 0
    if size % cshogi.PackedSfenValue.itemsize:
        print(f"file size {size} is not a multiple of 40")
        mismatches += 1
    records = np.fromfile(args.file, dtype=cshogi.PackedSfenValue)
    if args.limit is not None:
        records = records[: args.limit]

    cmd = [args.engine, "psv-dump", args.file]
    if args.limit is not None:
        cmd += ["--limit", str(args.limit)]
    dump = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = dump.stdout.splitlines()
    if dump.returncode != 0:
        print(f"psv-dump exited with {dump.returncode}: {dump.stderr.strip()}")
        mismatches += 1
    if len(lines) != len(records):
        print(f"psv-dump printed {len(lines)} lines for {len(records)} records")
        mismatches += 1

    board = cshogi.Board()
    shown = 0
    for i, rec in enumerate(records):
        problems = []
        try:
            board.set_psfen(np.ascontiguousarray(rec["sfen"]))
            sfen = canonical_sfen(board.sfen())
            move = board.move_from_psv(int(rec["move"]))
            usi = cshogi.move_to_usi(move)
            if not board.is_legal(move):
                problems.append(f"move {usi} is not legal")
            if not same_packing(board, rec["sfen"]):
                problems.append("cshogi packs the position to other bits")
        except Exception as e:  # cshogi refuses the record
            sfen, usi = f"cshogi error: {e}", "?"
            problems.append(sfen)
        expected = [sfen, usi, str(int(rec["score"])), str(int(rec["gamePly"])),
                    str(int(rec["game_result"]))]
        got = lines[i].split("\t") if i < len(lines) else []
        if len(got) == 5:
            got[0] = canonical_sfen(got[0])
        if got != expected:
            problems.append(f"cshogi {expected} ryuo {got}")
        if problems:
            mismatches += 1
            if shown < args.show:
                shown += 1
                print(f"record {i}: " + "; ".join(problems))
    print(f"{len(records)} records, {mismatches} mismatches")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
