#!/usr/bin/env python3
"""Builds tests/data/nnue_positions.sfen: the position set on which Ryuo's
NNUE evaluation is compared with YaneuraOu's (see
tests/oracle/yaneuraou_eval.py).

    python3 tests/data/make_nnue_positions.py [--seed 1] \
        [--psv tests/data/sample.psv] [--out tests/data/nnue_positions.sfen]

Writes exactly --count (2,400) distinct positions, one SFEN per line
(`<board> <side> <hands> 1`, no `sfen ` prefix, hands in R B G S N L P
order), deterministic for a given seed. Every position is checked: one king
per side, no two unpromoted pawns of a side on a file, no pawn/lance on its
last rank nor knight on its last two, no more pieces of a kind than the game
has, and the side to move cannot capture the enemy king. Buckets, in file
order:

  random   uniform random play from the start position, 10-200 plies
  psv      self-play positions decoded from PackedSfenValue records (cshogi);
           if the file runs short, records are reused with 1-6 random moves
  check    the side to move is in check
  hand     >= 8 pieces in hand in total (capture-biased random play); some
           with >= 10 pawns in one hand, some with both bishops or both rooks
           in one hand
  promoted >= 3 promoted pieces on the board (promotion-biased play)
  edge     a king on an edge square (king-walk-biased play): corners, file 1
           or 9, the far rank
  sparse   fewer than 40 pieces: non-king pieces removed from random-play
           positions (board or hand), check status left unchanged

A coverage summary goes to stderr. Needs python3 and cshogi (pip install
cshogi).
"""

import argparse
import os
import random
import sys
from collections import Counter

import cshogi
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

HAND_ORDER = "RBGSNLP"
MAX_COUNT = {"P": 18, "L": 4, "N": 4, "S": 4, "G": 4, "B": 2, "R": 2, "K": 1}
PROMOTABLE = set("PLNSBR")
STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


# ---------------------------------------------------------------- SFEN text

def parse_sfen(sfen):
    """(grid, side, hands): grid[row][col] is None or a token such as 'P',
    '+p'; row 0 is rank a (White's back rank), col 0 is file 9. hands is
    {'b': Counter, 'w': Counter} of upper-case piece letters."""
    fields = sfen.split()
    board, side, hand = fields[0], fields[1], fields[2]
    rows = board.split("/")
    if len(rows) != 9:
        raise ValueError("board needs 9 ranks: " + sfen)
    grid = []
    for r in rows:
        row, promo = [], False
        for ch in r:
            if ch == "+":
                promo = True
            elif ch.isdigit():
                row.extend([None] * int(ch))
            else:
                row.append(("+" if promo else "") + ch)
                promo = False
        if len(row) != 9:
            raise ValueError("rank needs 9 squares: " + sfen)
        grid.append(row)
    hands = {"b": Counter(), "w": Counter()}
    if hand != "-":
        n = ""
        for ch in hand:
            if ch.isdigit():
                n += ch
            else:
                hands["b" if ch.isupper() else "w"][ch.upper()] += int(n) if n else 1
                n = ""
    return grid, side, hands


def build_sfen(grid, side, hands):
    rows = []
    for row in grid:
        s, empty = "", 0
        for t in row:
            if t is None:
                empty += 1
            else:
                if empty:
                    s += str(empty)
                    empty = 0
                s += t
        if empty:
            s += str(empty)
        rows.append(s)
    hs = ""
    for color, case in (("b", str.upper), ("w", str.lower)):
        for p in HAND_ORDER:
            k = hands[color][p]
            if k:
                hs += (str(k) if k > 1 else "") + case(p)
    return "/".join(rows) + " " + side + " " + (hs or "-") + " 1"


def key_of(sfen):
    return " ".join(sfen.split()[:3])


def canonical(sfen):
    return build_sfen(*parse_sfen(sfen))


def flip_side(sfen):
    f = sfen.split()
    f[1] = "w" if f[1] == "b" else "b"
    return " ".join(f)


# ---------------------------------------------------------------- checking

def validate(sfen):
    """None if the position is acceptable, else the reason."""
    grid, side, hands = parse_sfen(sfen)
    if side not in ("b", "w"):
        return "side"
    counts = Counter()
    pawn_files = Counter()
    for row in range(9):
        for col in range(9):
            t = grid[row][col]
            if t is None:
                continue
            base = t[-1].upper()
            if base not in MAX_COUNT:
                return "unknown piece " + t
            if t.startswith("+") and base not in PROMOTABLE:
                return "bad promotion " + t
            counts[base] += 1
            black = t[-1].isupper()
            if not t.startswith("+"):
                last = 0 if black else 8
                last2 = (0, 1) if black else (7, 8)
                if base in "PL" and row == last:
                    return "dead " + t
                if base == "N" and row in last2:
                    return "dead " + t
                if base == "P":
                    pawn_files[(black, col)] += 1
    if any(v > 1 for v in pawn_files.values()):
        return "nifu"
    for c in ("b", "w"):
        for p, k in hands[c].items():
            if p == "K" or p not in MAX_COUNT:
                return "bad hand piece"
            counts[p] += k
    black_k = sum(1 for row in grid for t in row if t == "K")
    white_k = sum(1 for row in grid for t in row if t == "k")
    if black_k != 1 or white_k != 1:
        return "kings"
    for p, k in counts.items():
        if k > MAX_COUNT[p] * (2 if p == "K" else 1):
            return "too many " + p
    b = cshogi.Board(sfen)
    if key_of(canonical(b.sfen())) != key_of(canonical(sfen)):
        return "cshogi round trip"
    if cshogi.Board(flip_side(sfen)).is_check():
        return "side to move can capture the king"
    return None


def features(sfen):
    grid, side, hands = parse_sfen(sfen)
    f = {}
    b = cshogi.Board(sfen)
    f["in_check"] = b.is_check()
    f["no_legal_moves"] = not any(True for _ in b.legal_moves)
    f["side_w"] = side == "w"
    hb, hw = sum(hands["b"].values()), sum(hands["w"].values())
    f["hand_total"] = hb + hw
    f["max_pawns_one_hand"] = max(hands["b"]["P"], hands["w"]["P"])
    f["both_bishops_one_hand"] = hands["b"]["B"] == 2 or hands["w"]["B"] == 2
    f["both_rooks_one_hand"] = hands["b"]["R"] == 2 or hands["w"]["R"] == 2
    f["promoted"] = sum(1 for row in grid for t in row if t and t.startswith("+"))
    on_board = sum(1 for row in grid for t in row if t)
    f["pieces"] = on_board + hb + hw
    edge = corner = file_edge = far_rank = 0
    for row in range(9):
        for col in range(9):
            t = grid[row][col]
            if t in ("K", "k"):
                if row in (0, 8) or col in (0, 8):
                    edge += 1
                if row in (0, 8) and col in (0, 8):
                    corner += 1
                if col in (0, 8):
                    file_edge += 1
                if (t == "K" and row == 0) or (t == "k" and row == 8):
                    far_rank += 1
                if t == "K":
                    f["black_king_home_rank"] = row == 8
                else:
                    f["white_king_home_rank"] = row == 0
    f["kings_on_edge"] = edge
    f["kings_in_corner"] = corner
    f["kings_on_file_1_or_9"] = file_edge
    f["kings_on_far_rank"] = far_rank
    return f


# ---------------------------------------------------------------- play

def is_capture(board, m):
    return not cshogi.move_is_drop(m) and board.piece(cshogi.move_to(m)) != 0


def gives_check(board, m):
    board.push(m)
    c = board.is_check()
    board.pop()
    return c


def uniform(rng, board, moves):
    return rng.choice(moves)


def play(rng, board, plies, policy=uniform, visit=None):
    """Plays up to `plies` moves chosen by policy; calls visit(board) after
    each. Returns the number of moves played (fewer if the game ended)."""
    for i in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            return i
        board.push(policy(rng, board, moves))
        if visit is not None:
            visit(board)
    return plies


class Collector:
    def __init__(self, seen):
        self.seen = seen
        self.out = []
        self.rejects = Counter()

    def add(self, sfen, bucket):
        s = canonical(sfen)
        k = key_of(s)
        if k in self.seen:
            self.rejects["duplicate"] += 1
            return False
        why = validate(s)
        if why:
            self.rejects[why] += 1
            return False
        self.seen.add(k)
        self.out.append((bucket, s))
        return True


def bucket_random(rng, col, n):
    got = 0
    while got < n:
        b = cshogi.Board()
        plies = rng.randint(10, 200)
        if play(rng, b, plies) == plies and col.add(b.sfen(), "random"):
            got += 1


def bucket_psv(rng, col, n, psv_path):
    data = np.fromfile(psv_path, dtype=cshogi.PackedSfenValue)
    order = list(range(len(data)))
    rng.shuffle(order)
    got, rounds = 0, 0
    b = cshogi.Board()
    while got < n:
        for idx in order:
            if got >= n:
                break
            b.set_psfen(np.ascontiguousarray(data["sfen"][idx]))
            if rounds > 0:  # the file ran short: continue the game a little
                k = rng.randint(1, 6)
                if play(rng, b, k) != k:
                    continue
            if col.add(b.sfen(), "psv"):
                got += 1
        rounds += 1
        if rounds > 50:
            raise SystemExit("could not get %d positions out of %s" % (n, psv_path))
    return len(data), rounds


def bucket_check(rng, col, n):
    got = 0
    while got < n:
        b = cshogi.Board()
        target = rng.randint(10, 200)
        if play(rng, b, target - 1) != target - 1:
            continue
        for _ in range(20):  # look for a checking move, else play on
            moves = list(b.legal_moves)
            if not moves:
                break
            checks = [m for m in moves if gives_check(b, m)]
            if checks:
                b.push(rng.choice(checks))
                if col.add(b.sfen(), "check"):
                    got += 1
                break
            b.push(rng.choice(moves))


def hand_sizes(board):
    hb, hw = board.pieces_in_hand
    return hb, hw


def capture_policy(favour_pawns_side):
    """Mostly captures and board moves, few drops; one side prefers taking
    pawns, so one hand fills with pawns."""
    def pol(rng, board, moves):
        caps = [m for m in moves if is_capture(board, m)]
        if caps and rng.random() < 0.9:
            if board.turn == favour_pawns_side:
                pawn_caps = [m for m in caps
                             if board.piece(cshogi.move_to(m)) % 16 in (cshogi.PAWN, cshogi.PROM_PAWN)]
                if pawn_caps and rng.random() < 0.9:
                    return rng.choice(pawn_caps)
            return rng.choice(caps)
        non_drops = [m for m in moves if not cshogi.move_is_drop(m)]
        if non_drops and rng.random() < 0.9:
            return rng.choice(non_drops)
        return rng.choice(moves)
    return pol


def bucket_hand(rng, col, n):
    # sub-buckets: (name, quota, test on (black hand, white hand) lists in
    # cshogi order P L N S G B R)
    subs = [
        ("hand>=8", n - 2 * (n // 3),
         lambda hb, hw: sum(hb) + sum(hw) >= 8),
        ("pawns>=10", n // 3,
         lambda hb, hw: sum(hb) + sum(hw) >= 8 and max(hb[0], hw[0]) >= 10),
        ("two B or R", n // 3,
         lambda hb, hw: sum(hb) + sum(hw) >= 8 and (hb[5] == 2 or hw[5] == 2 or hb[6] == 2 or hw[6] == 2)),
    ]
    for name, quota, test in subs:
        got = tries = 0
        while got < quota:
            tries += 1
            if tries > quota * 200:
                raise SystemExit("hand bucket %s: gave up" % name)
            b = cshogi.Board()
            cands = []
            pol = capture_policy(rng.randint(0, 1))

            def visit(board):
                hb, hw = hand_sizes(board)
                if test(hb, hw):
                    cands.append(board.sfen())
            play(rng, b, rng.randint(40, 250), pol, visit)
            if cands and col.add(rng.choice(cands), "hand"):
                got += 1


def promotion_policy(rng, board, moves):
    r = rng.random()
    if r < 0.6:
        proms = [m for m in moves if cshogi.move_is_promotion(m)]
        if proms:
            return rng.choice(proms)
    if r < 0.8:
        caps = [m for m in moves if is_capture(board, m)]
        if caps:
            return rng.choice(caps)
    return rng.choice(moves)


def promoted_on_board(board):
    return sum(1 for p in board.pieces if p and (p % 16) in
               (cshogi.PROM_PAWN, cshogi.PROM_LANCE, cshogi.PROM_KNIGHT,
                cshogi.PROM_SILVER, cshogi.PROM_BISHOP, cshogi.PROM_ROOK))


def bucket_promoted(rng, col, n):
    got = 0
    while got < n:
        b = cshogi.Board()
        cands = []
        need = rng.choice((3, 3, 4, 5, 6, 8))

        def visit(board):
            if promoted_on_board(board) >= need:
                cands.append(board.sfen())
        play(rng, b, rng.randint(20, 200), promotion_policy, visit)
        if cands and col.add(rng.choice(cands), "promoted"):
            got += 1


def sq_fr(sq):
    """cshogi square -> (file index 0..8 = file 1..9, rank index 0..8 = a..i)."""
    return sq // 9, sq % 9


def king_walk_policy(targets, p):
    def pol(rng, board, moves):
        if rng.random() < p:
            ksq = board.king_square(board.turn)
            tf, tr = targets[board.turn]
            kf, kr = sq_fr(ksq)
            d0 = max(abs(kf - tf), abs(kr - tr))
            closer = [m for m in moves if not cshogi.move_is_drop(m) and cshogi.move_from(m) == ksq
                      and max(abs(sq_fr(cshogi.move_to(m))[0] - tf), abs(sq_fr(cshogi.move_to(m))[1] - tr)) < d0]
            if closer:
                return rng.choice(closer)
        return rng.choice(moves)
    return pol


def bucket_edge(rng, col, n):
    corners = [(0, 0), (0, 8), (8, 0), (8, 8)]

    def file_edge_sq():
        return (rng.choice((0, 8)), rng.randint(1, 7))

    def far_rank_sq(color):
        return (rng.randint(0, 8), 0 if color == cshogi.BLACK else 8)

    def kings(board):
        return [sq_fr(board.king_square(c)) for c in (0, 1)]

    subs = [
        ("corner", n - 2 * (n // 3),
         lambda: {c: rng.choice(corners) for c in (0, 1)},
         lambda ks: any(f in (0, 8) and r in (0, 8) for f, r in ks)),
        ("file 1/9", n // 3,
         lambda: {c: file_edge_sq() for c in (0, 1)},
         lambda ks: any(f in (0, 8) and r not in (0, 8) for f, r in ks)),
        ("far rank", n // 3,
         lambda: {c: far_rank_sq(c) for c in (0, 1)},
         lambda ks: ks[0][1] == 0 or ks[1][1] == 8),
    ]
    for name, quota, make_targets, test in subs:
        got = tries = 0
        while got < quota:
            tries += 1
            if tries > quota * 200:
                raise SystemExit("edge bucket %s: gave up" % name)
            b = cshogi.Board()
            cands = []
            pol = king_walk_policy(make_targets(), rng.choice((0.3, 0.5, 0.7)))

            def visit(board):
                if test(kings(board)):
                    cands.append(board.sfen())
            play(rng, b, rng.randint(20, 250), pol, visit)
            if cands and col.add(rng.choice(cands), "edge"):
                got += 1


def bucket_sparse(rng, col, n):
    got = 0
    while got < n:
        b = cshogi.Board()
        plies = rng.randint(10, 200)
        if play(rng, b, plies) != plies:
            continue
        sfen = canonical(b.sfen())
        was_check = b.is_check()
        grid, side, hands = parse_sfen(sfen)
        slots = [("board", r, c) for r in range(9) for c in range(9)
                 if grid[r][c] and grid[r][c] not in ("K", "k")]
        for color in ("b", "w"):
            for p, k in hands[color].items():
                slots += [("hand", color, p)] * k
        remove = rng.randint(1, len(slots))
        for s in rng.sample(slots, remove):
            if s[0] == "board":
                grid[s[1]][s[2]] = None
            else:
                hands[s[1]][s[2]] -= 1
        new = build_sfen(grid, side, hands)
        if validate(new) is not None:
            continue
        if cshogi.Board(new).is_check() != was_check:
            continue  # removing a blocker must not make up a check
        if col.add(new, "sparse"):
            got += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--psv", default=os.path.join(HERE, "sample.psv"))
    ap.add_argument("--out", default=os.path.join(HERE, "nnue_positions.sfen"))
    ap.add_argument("--count", type=int, default=2400)
    ap.add_argument("--sparse", type=int, default=100, help="positions with fewer than 40 pieces")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    seen = set()
    col = Collector(seen)
    rest = args.count - args.sparse
    names = ["random", "psv", "check", "hand", "promoted", "edge"]
    quota = {nm: rest // len(names) + (1 if i < rest % len(names) else 0) for i, nm in enumerate(names)}

    bucket_random(rng, col, quota["random"])
    psv_records, psv_rounds = bucket_psv(rng, col, quota["psv"], args.psv)
    bucket_check(rng, col, quota["check"])
    bucket_hand(rng, col, quota["hand"])
    bucket_promoted(rng, col, quota["promoted"])
    bucket_edge(rng, col, quota["edge"])
    bucket_sparse(rng, col, args.sparse)

    assert len(col.out) == args.count, len(col.out)
    assert len({key_of(s) for _, s in col.out}) == args.count
    with open(args.out, "w") as f:
        for _, s in col.out:
            f.write(s + "\n")

    # ------------------------------------------------ coverage summary
    per_bucket = Counter(bk for bk, _ in col.out)
    feats = [features(s) for _, s in col.out]
    c = Counter()
    for f in feats:
        c["white to move"] += f["side_w"]
        c["side to move in check"] += f["in_check"]
        c["no legal moves (mated)"] += f["no_legal_moves"]
        c[">= 8 pieces in hand"] += f["hand_total"] >= 8
        c[">= 10 pawns in one hand"] += f["max_pawns_one_hand"] >= 10
        c["both bishops in one hand"] += f["both_bishops_one_hand"]
        c["both rooks in one hand"] += f["both_rooks_one_hand"]
        c["any piece in hand"] += f["hand_total"] > 0
        c[">= 1 promoted on board"] += f["promoted"] >= 1
        c[">= 3 promoted on board"] += f["promoted"] >= 3
        c["a king on an edge square"] += f["kings_on_edge"] > 0
        c["a king off its home rank on an edge"] += (
            f["kings_on_file_1_or_9"] > 0 or f["kings_on_far_rank"] > 0)
        c["a king in a corner"] += f["kings_in_corner"] > 0
        c["a king on file 1 or 9"] += f["kings_on_file_1_or_9"] > 0
        c["a king on its far rank"] += f["kings_on_far_rank"] > 0
        c["both kings off their home rank"] += (
            not f["black_king_home_rank"] and not f["white_king_home_rank"])
        c["< 40 pieces"] += f["pieces"] < 40
    e = sys.stderr
    print("wrote %d positions to %s (seed %d)" % (len(col.out), args.out, args.seed), file=e)
    print("buckets: " + ", ".join("%s %d" % (nm, per_bucket[nm]) for nm in names + ["sparse"]), file=e)
    print("psv: %d records in %s, %d pass(es) over them" % (psv_records, args.psv, psv_rounds), file=e)
    print("coverage (whole set):", file=e)
    for k, v in c.items():
        print("  %-38s %5d" % (k, v), file=e)
    pieces = [f["pieces"] for f in feats]
    print("  pieces (board+hand): min %d, max %d" % (min(pieces), max(pieces)), file=e)
    print("  max pawns in one hand: %d; max promoted on board: %d; max hand total: %d" % (
        max(f["max_pawns_one_hand"] for f in feats), max(f["promoted"] for f in feats),
        max(f["hand_total"] for f in feats)), file=e)
    print("rejected candidates: " + (", ".join("%s %d" % kv for kv in col.rejects.most_common()) or "none"), file=e)


if __name__ == "__main__":
    main()
