//! Move generation.
//!
//! The generators produce *pseudo-legal* moves: every move obeys how the
//! pieces move, promotion rules (forced promotion, no move or drop to a
//! square where the piece could never move again), the two-pawn rule, and,
//! in check, only addresses the check. What is left to `Position::is_legal`
//! is the cheap part: pinned pieces, king steps into attack, and pawn-drop
//! mate. `generate_legal` applies it.
//!
//! The categories serve a staged move picker and partition the moves of a
//! position not in check: `CapturesPromotions` ∪ `Quiets` ∪ `Drops`, or
//! `Captures` ∪ `NonCaptures` ∪ `Drops` (promotions to empty squares
//! among the quiet moves, as YaneuraOu orders them).

use crate::bitboard::{self, Bitboard};
use crate::position::Position;
use crate::types::{Color, Move, PieceType, Square};
use arrayvec::ArrayVec;

/// Capacity of a move list. The most legal moves known in a position is
/// 593; pseudo-legal lists can be a little longer.
pub const MAX_MOVES: usize = 1024;

/// A fixed-capacity list of moves (no allocation).
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// Which moves to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenType {
    /// Board moves that capture (promoting and not, where both are allowed)
    /// and board moves to empty squares that promote. Not in check.
    CapturesPromotions,
    /// Board moves to empty squares that do not promote. Not in check.
    Quiets,
    /// Board moves that capture (promoting and not, where both are
    /// allowed). Not in check.
    Captures,
    /// Board moves to empty squares, promoting and not. Not in check.
    NonCaptures,
    /// Drops. Not in check.
    Drops,
    /// Every move that answers a check. Only in check.
    Evasions,
    /// Every pseudo-legal move, in check or not.
    All,
}

/// Which promotion variants of a board move to emit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variants {
    /// Both where both are allowed.
    Both,
    /// Only promotions (for captures-and-promotions on empty squares).
    PromotionsOnly,
    /// Only non-promotions (quiet moves).
    NonPromotionsOnly,
}

/// Appends the pseudo-legal moves of kind `gen` to `list`.
pub fn generate(pos: &Position, gen: GenType, list: &mut MoveList) {
    generate_kind::<false, _>(pos, gen, list);
}

/// `generate` into any sink, in the same order: the move picker scores
/// the moves as they come, with what each batch shares (the moving piece,
/// the dropped kind) looked up once.
pub fn generate_into<S: MoveSink>(pos: &Position, gen: GenType, sink: &mut S) {
    generate_kind::<false, _>(pos, gen, sink);
}

/// Appends every legal move to `list`.
///
/// The same generators run with `LEGAL` set: pinned pieces move only along
/// their pin line, king steps are tested against the enemy's attacks, and a
/// mating pawn drop is left out, so no move is generated and then removed.
/// The order is that of `generate` with the illegal moves left out.
pub fn generate_legal(pos: &Position, list: &mut MoveList) {
    generate_kind::<true, _>(pos, GenType::All, list);
}

/// The number of legal moves: `generate_legal` counting instead of storing
/// (perft's bulk-counted last ply). The same generators run, only the
/// destination sets are counted rather than walked.
pub fn count_legal(pos: &Position) -> usize {
    let mut count = MoveCount(0);
    generate_kind::<true, _>(pos, GenType::All, &mut count);
    count.0
}

/// Where the generators put their moves: a move list, a counter, or the
/// move picker's scored list.
pub trait MoveSink {
    /// Moves from `from` to each square of `targets`.
    fn push_all(&mut self, from: Square, targets: Bitboard, promote: bool);
    /// Pawn pushes to each square of `targets` from the square whose index
    /// is `back` away.
    fn push_pawns(&mut self, targets: Bitboard, back: i32, promote: bool);
    /// Drops of each of `kinds` on each square of `targets`, square by square.
    fn push_drops(&mut self, kinds: &[PieceType], targets: Bitboard);
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push_all(&mut self, from: Square, targets: Bitboard, promote: bool) {
        for to in targets {
            ArrayVec::push(self, Move::normal(from, to, promote));
        }
    }

    #[inline(always)]
    fn push_pawns(&mut self, targets: Bitboard, back: i32, promote: bool) {
        for to in targets {
            let from = Square::from_index((to.index() as i32 + back) as usize);
            ArrayVec::push(self, Move::normal(from, to, promote));
        }
    }

    #[inline(always)]
    fn push_drops(&mut self, kinds: &[PieceType], targets: Bitboard) {
        for to in targets {
            for &pt in kinds {
                ArrayVec::push(self, Move::drop(pt, to));
            }
        }
    }
}

/// A `MoveSink` that only counts.
struct MoveCount(usize);

impl MoveSink for MoveCount {
    #[inline(always)]
    fn push_all(&mut self, _: Square, targets: Bitboard, _: bool) {
        // Often empty, and the top 17 squares often too: without a popcount
        // instruction each half's count is a dozen instructions.
        let (lo, hi) = (targets.raw() as u64, (targets.raw() >> 64) as u64);
        if lo != 0 {
            self.0 += lo.count_ones() as usize;
        }
        if hi != 0 {
            self.0 += hi.count_ones() as usize;
        }
    }

    #[inline(always)]
    fn push_pawns(&mut self, targets: Bitboard, _: i32, _: bool) {
        self.0 += targets.count() as usize;
    }

    #[inline(always)]
    fn push_drops(&mut self, kinds: &[PieceType], targets: Bitboard) {
        self.0 += kinds.len() * targets.count() as usize;
    }
}

/// `generate`, or with `LEGAL` the legal moves of that kind, into `list`.
fn generate_kind<const LEGAL: bool, S: MoveSink>(pos: &Position, gen: GenType, list: &mut S) {
    let us = pos.side_to_move();
    let own = pos.pieces_of(us);
    let enemy = pos.pieces_of(!us);
    let empty = !pos.occupied();
    match gen {
        GenType::CapturesPromotions => {
            board_moves::<LEGAL, S>(pos, enemy, Variants::Both, true, list);
            board_moves::<LEGAL, S>(pos, empty, Variants::PromotionsOnly, true, list);
        }
        GenType::Quiets => {
            board_moves::<LEGAL, S>(pos, empty, Variants::NonPromotionsOnly, true, list)
        }
        GenType::Captures => board_moves::<LEGAL, S>(pos, enemy, Variants::Both, true, list),
        GenType::NonCaptures => board_moves::<LEGAL, S>(pos, empty, Variants::Both, true, list),
        GenType::Drops => drops::<LEGAL, S>(pos, empty, list),
        GenType::Evasions => evasions::<LEGAL, S>(pos, list),
        GenType::All => {
            if pos.in_check() {
                evasions::<LEGAL, S>(pos, list);
            } else {
                board_moves::<LEGAL, S>(pos, !own, Variants::Both, true, list);
                drops::<LEGAL, S>(pos, empty, list);
            }
        }
    }
}

/// The legal moves of `pos`, in a fresh list.
pub fn legal_moves(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    list
}

/// Emits the moves from `from` to each square of `targets` for a piece of
/// kind `pt`, choosing promotion variants by the rules and by `variants`.
#[inline(always)]
fn emit<S: MoveSink>(
    list: &mut S,
    us: Color,
    pt: PieceType,
    from: Square,
    targets: Bitboard,
    variants: Variants,
) {
    if !pt.can_promote() {
        if variants != Variants::PromotionsOnly {
            list.push_all(from, targets, false);
        }
        return;
    }
    let zone = bitboard::promotion_zone(us);
    let dead = bitboard::dead_squares(us, pt);
    let promoting = if from.in_promotion_zone(us) {
        targets
    } else {
        targets & zone
    };
    if variants != Variants::NonPromotionsOnly {
        list.push_all(from, promoting, true);
    }
    if variants != Variants::PromotionsOnly {
        list.push_all(from, targets.and_not(dead), false);
    }
}

/// Board moves of every piece to `target` squares; with `LEGAL`, only the
/// legal ones.
fn board_moves<const LEGAL: bool, S: MoveSink>(
    pos: &Position,
    target: Bitboard,
    variants: Variants,
    with_king: bool,
    list: &mut S,
) {
    let us = pos.side_to_move();
    let occ = pos.occupied();
    let own = pos.pieces_of(us);
    let king = pos.king_square(us);
    let pinned = match king {
        Some(_) if LEGAL => pos.pinned(us),
        _ => Bitboard::EMPTY,
    };
    // A pinned piece keeps to the ray from its king through itself.
    let legal_targets = |from: Square, t: Bitboard| match king {
        Some(k) if pinned.any() && pinned.contains(from) => t & bitboard::ray_through(k, from),
        _ => t,
    };

    // Pawns move as a set: the origin is one step back from each target. A
    // pinned pawn may step forward only when pinned along its file.
    let mut pawns = pos.pieces(us, PieceType::Pawn);
    if let Some(k) = king.filter(|_| pinned.any()) {
        pawns = pawns.and_not(pinned.and_not(bitboard::file_mask(k.file())));
    }
    let pawn_targets = pawns.shift_forward(us) & target;
    if pawn_targets.any() {
        let zone = bitboard::promotion_zone(us);
        let back: i32 = if us == Color::Black { 1 } else { -1 };
        if variants != Variants::NonPromotionsOnly {
            list.push_pawns(pawn_targets & zone, back, true);
        }
        if variants != Variants::PromotionsOnly {
            let dead = bitboard::dead_squares(us, PieceType::Pawn);
            list.push_pawns(pawn_targets.and_not(dead), back, false);
        }
    }

    for from in pos.pieces(us, PieceType::Lance) {
        let t = legal_targets(from, bitboard::lance_attacks(us, from, occ) & target);
        emit(list, us, PieceType::Lance, from, t, variants);
    }
    for from in pos.pieces(us, PieceType::Knight) {
        let t = legal_targets(from, bitboard::knight_attacks(us, from) & target);
        emit(list, us, PieceType::Knight, from, t, variants);
    }
    for from in pos.pieces(us, PieceType::Silver) {
        let t = legal_targets(from, bitboard::silver_attacks(us, from) & target);
        emit(list, us, PieceType::Silver, from, t, variants);
    }
    for from in pos.pieces(us, PieceType::Bishop) {
        let t = legal_targets(from, bitboard::bishop_attacks(from, occ) & target);
        emit(list, us, PieceType::Bishop, from, t, variants);
    }
    for from in pos.pieces(us, PieceType::Rook) {
        let t = legal_targets(from, bitboard::rook_attacks(from, occ) & target);
        emit(list, us, PieceType::Rook, from, t, variants);
    }
    if variants == Variants::PromotionsOnly {
        return;
    }
    for from in pos.golds() & own {
        let t = legal_targets(from, bitboard::gold_attacks(us, from) & target);
        emit(list, us, PieceType::Gold, from, t, variants);
    }
    for from in pos.pieces(us, PieceType::Horse) {
        let t = (bitboard::bishop_attacks(from, occ) | bitboard::king_attacks(from)) & target;
        let t = legal_targets(from, t);
        emit(list, us, PieceType::Horse, from, t, variants);
    }
    for from in pos.pieces(us, PieceType::Dragon) {
        let t = (bitboard::rook_attacks(from, occ) | bitboard::king_attacks(from)) & target;
        let t = legal_targets(from, t);
        emit(list, us, PieceType::Dragon, from, t, variants);
    }
    if let Some(ksq) = king.filter(|_| with_king) {
        let t = bitboard::king_attacks(ksq) & target;
        let t = if LEGAL { king_safe(pos, ksq, t) } else { t };
        emit(list, us, PieceType::King, ksq, t, variants);
    }
}

/// The squares of `targets` the king on `ksq` may step to.
#[inline(always)]
fn king_safe(pos: &Position, ksq: Square, targets: Bitboard) -> Bitboard {
    if targets.is_empty() {
        return targets;
    }
    pos.king_escapes(pos.side_to_move(), ksq, targets)
}

/// Files holding a pawn of the set `pawns` (at most one per file), as
/// whole files: adding 0xff to each nine-bit file sets its top bit exactly
/// when the file is non-empty, and no carry leaves the file.
#[inline(always)]
fn pawn_files(pawns: Bitboard) -> Bitboard {
    const ADD: u128 = {
        let mut m = 0u128;
        let mut f = 0;
        while f < 9 {
            m |= 0xffu128 << (9 * f);
            f += 1;
        }
        m
    };
    const LOW: u128 = {
        let mut m = 0u128;
        let mut f = 0;
        while f < 9 {
            m |= 1u128 << (9 * f);
            f += 1;
        }
        m
    };
    let tops = ((pawns.raw() + ADD) >> 8) & LOW;
    Bitboard::from_raw(tops * 0x1ff)
}

/// Drops onto `target` (empty squares); with `LEGAL`, no mating pawn drop.
fn drops<const LEGAL: bool, S: MoveSink>(pos: &Position, target: Bitboard, list: &mut S) {
    let us = pos.side_to_move();
    let hand = pos.hand(us);
    if hand.is_empty() {
        return;
    }
    if hand.has(PieceType::Pawn) {
        let t = target
            .and_not(bitboard::dead_squares(us, PieceType::Pawn))
            .and_not(pawn_files(pos.pieces(us, PieceType::Pawn)));
        // Only the square in front of the enemy king can give check, hence mate.
        let front = pos.king_square(!us).and_then(|k| k.forward(!us));
        let t = match front {
            Some(sq) if LEGAL && t.contains(sq) && pos.is_pawn_drop_mate(sq) => t.without(sq),
            _ => t,
        };
        list.push_drops(&[PieceType::Pawn], t);
    }
    // Kinds that may be dropped anywhere, then the lance (not on the last
    // rank) and the knight (not on the last two).
    let mut kinds: ArrayVec<PieceType, 6> = ArrayVec::new();
    for pt in [
        PieceType::Silver,
        PieceType::Gold,
        PieceType::Bishop,
        PieceType::Rook,
    ] {
        if hand.has(pt) {
            kinds.push(pt);
        }
    }
    let free = kinds.len();
    let has_lance = hand.has(PieceType::Lance);
    if has_lance {
        kinds.push(PieceType::Lance);
    }
    let lance_end = kinds.len();
    if hand.has(PieceType::Knight) {
        kinds.push(PieceType::Knight);
    }
    if kinds.is_empty() {
        return;
    }
    let last_rank = bitboard::relative_ranks(us, 0, 0);
    let second_rank = bitboard::relative_ranks(us, 1, 1);
    list.push_drops(&kinds[..free], target & last_rank);
    list.push_drops(&kinds[..lance_end], target & second_rank);
    list.push_drops(&kinds, target.and_not(last_rank | second_rank));
}

/// Moves that answer a check: king steps, and for a single check, captures
/// of the checker and interpositions (board moves and drops).
fn evasions<const LEGAL: bool, S: MoveSink>(pos: &Position, list: &mut S) {
    let us = pos.side_to_move();
    let Some(ksq) = pos.king_square(us) else {
        return;
    };
    let checkers = pos.checkers();
    let own = pos.pieces_of(us);
    // King steps; squares the checking sliders sweep through the king are
    // left to `is_legal`, which tests with the king lifted.
    let steps = bitboard::king_attacks(ksq).and_not(own);
    let steps = if LEGAL {
        king_safe(pos, ksq, steps)
    } else {
        steps
    };
    list.push_all(ksq, steps, false);
    if checkers.more_than_one() {
        return;
    }
    let checker = checkers.lsb();
    let between = bitboard::between(ksq, checker);
    let target = between.with(checker);
    // Board moves of everything but the king (its steps are above).
    board_moves::<LEGAL, S>(pos, target, Variants::Both, false, list);
    if between.any() {
        drops::<LEGAL, S>(pos, between, list);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pawn_files_fill() {
        let pos = Position::startpos();
        let files = pawn_files(pos.pieces(Color::Black, PieceType::Pawn));
        assert_eq!(files, Bitboard::ALL);
        let pos = Position::from_sfen("4k4/9/9/9/9/9/2P6/9/4K4 b P 1").unwrap();
        let files = pawn_files(pos.pieces(Color::Black, PieceType::Pawn));
        assert_eq!(files, bitboard::file_mask(6));
    }

    #[test]
    fn categories_partition_all_moves() {
        let sfens = [
            crate::position::STARTPOS_SFEN,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
        ];
        for sfen in sfens {
            let pos = Position::from_sfen(sfen).unwrap();
            assert!(!pos.in_check());
            let mut all = MoveList::new();
            generate(&pos, GenType::All, &mut all);
            let mut a: Vec<u16> = all.iter().map(|m| m.raw()).collect();
            a.sort_unstable();
            for split in [
                [GenType::CapturesPromotions, GenType::Quiets, GenType::Drops],
                [GenType::Captures, GenType::NonCaptures, GenType::Drops],
            ] {
                let mut parts = MoveList::new();
                for g in split {
                    generate(&pos, g, &mut parts);
                }
                let mut b: Vec<u16> = parts.iter().map(|m| m.raw()).collect();
                b.sort_unstable();
                assert_eq!(a, b, "{sfen}");
            }
        }
    }

    #[test]
    fn legal_generation_matches_filtered_pseudo_legal() {
        let sfens = [
            crate::position::STARTPOS_SFEN,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
            // Pins along a file, a rank and a diagonal; pawn-drop mate.
            "k3r4/9/9/9/9/1b7/4S4/3G5/r1P1K4 b Pp 1",
            "k8/1+R7/9/9/9/9/9/9/4K4 w p 1",
            "kn7/9/1G7/9/9/9/9/9/4K4 b P 1",
            // In check, with a pinned would-be blocker.
            "4k4/9/9/9/4r4/9/9/3b5/4K3L b G 1",
        ];
        for sfen in sfens {
            let pos = Position::from_sfen(sfen).unwrap();
            let mut all = MoveList::new();
            generate(&pos, GenType::All, &mut all);
            let mut expected: Vec<Move> = all.into_iter().filter(|&m| pos.is_legal(m)).collect();
            let mut legal = legal_moves(&pos);
            // Same moves in the same relative order.
            assert_eq!(legal.as_slice(), expected.as_slice(), "{sfen}");
            legal.sort_unstable_by_key(|m| m.raw());
            expected.sort_unstable_by_key(|m| m.raw());
            assert_eq!(legal.as_slice(), expected.as_slice(), "{sfen}");
        }
    }

    #[test]
    fn count_legal_counts_the_legal_moves() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for _ in 0..100 {
            let mut pos = Position::startpos();
            for _ in 0..200 {
                let moves = legal_moves(&pos);
                assert_eq!(count_legal(&pos), moves.len(), "{}", pos.to_sfen());
                if moves.is_empty() {
                    break;
                }
                pos.do_move(moves[rng.gen_range(0..moves.len())]);
            }
        }
    }

    #[test]
    fn generated_moves_are_pseudo_legal() {
        let pos = Position::from_sfen(
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        )
        .unwrap();
        let mut all = MoveList::new();
        generate(&pos, GenType::All, &mut all);
        for m in all {
            assert!(pos.is_pseudo_legal(m), "{m}");
        }
    }
}
