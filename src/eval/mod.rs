//! Hand-crafted static evaluation.
//!
//! The score is a sum of per-side terms, each computed from the bitboards in
//! one pass over each side's pieces (no incremental state: a full recompute
//! is cheap enough, see `benches/eval.rs`):
//!
//! * **material** on the board;
//! * **hand**: pieces in hand, worth a bit more than on the board, with a
//!   diminishing value per extra pawn and dead pawns (no file to drop on)
//!   worth less;
//! * **placement relative to both kings** (a KP-style table): defenders near
//!   their own king, attackers near the enemy king;
//! * **slider mobility** for lances, bishops, rooks, horses and dragons;
//! * **king safety**: enemy attackers and attacked squares around each king,
//!   the enemy's pieces in hand, minus defended squares and flight squares,
//!   turned into a quadratic penalty.
//!
//! Every number lives in `params.rs`. The evaluation treats both colours
//! through the same tables with White's board rotated 180°, so a position
//! and its colour-flipped twin get exactly opposite scores from Black's
//! point of view.

pub mod material;
pub mod params;
mod tables;

use crate::bitboard::{self, Bitboard};
use crate::position::Position;
use crate::types::{Color, Hand, PieceType, Square, Value};
use params::*;
use std::fmt::Write;
use tables::{ENEMY_KP, NO_KING_ROW, OWN_KP, REL};

crate::cpu_kernel! {
/// Score from the side to move's point of view, in centipawns.
pub fn evaluate(pos: &Position) -> Value {
    let black = Terms::compute(pos).black_total();
    match pos.side_to_move() {
        Color::Black => black,
        Color::White => -black,
    }
}
}

/// Material-only value of a piece kind on the board (for SEE, MVV-LVA,
/// futility margins). The king gets `KING_VALUE`, larger than any exchange.
#[inline(always)]
pub fn piece_value(pt: PieceType) -> Value {
    PIECE_VALUE[pt.index()]
}

/// Value of a piece of this kind captured = what the capturer gains: the
/// piece leaves the board and its unpromoted kind goes to the capturer's
/// hand (a pawn counts as a first pawn in hand).
#[inline(always)]
pub fn capture_value(pt: PieceType) -> Value {
    CAPTURE_VALUE[pt.index()]
}

/// `capture_value` for every kind, computed once at compile time.
static CAPTURE_VALUE: [Value; PieceType::NUM] = {
    let mut t = [0; PieceType::NUM];
    let mut i = 1;
    while i < PieceType::NUM {
        t[i] = PIECE_VALUE[i] + hand_gain(i);
        i += 1;
    }
    t
};

/// What the capturer's hand gains from capturing a piece of kind index `i`.
const fn hand_gain(i: usize) -> Value {
    match PieceType::from_index(i as u8) {
        Some(PieceType::King) | None => 0,
        Some(pt) => match pt.unpromote() {
            PieceType::Pawn => HAND_PAWN_VALUE[1],
            base => HAND_VALUE[base as usize],
        },
    }
}

/// Human-readable breakdown for the USI `eval` command: every term for each
/// side (from that side's point of view), and the totals.
pub fn explain(pos: &Position) -> String {
    let t = Terms::compute(pos);
    let rows: [(&str, [Value; 2]); 6] = [
        ("material (board)", t.material),
        ("hand", t.hand),
        ("own-king placement", t.own_king),
        ("enemy-king placement", t.enemy_king),
        ("slider mobility", t.mobility),
        ("king safety", t.king_safety),
    ];
    let mut s = String::new();
    let _ = writeln!(s, "{:<22}{:>8}{:>8}{:>8}", "term", "black", "white", "diff");
    for (name, [b, w]) in rows {
        let _ = writeln!(s, "{name:<22}{b:>8}{w:>8}{:>8}", b - w);
    }
    let [b, w] = t.side_totals();
    let _ = writeln!(s, "{:<22}{b:>8}{w:>8}{:>8}", "total", b - w);
    let _ = write!(
        s,
        "eval (side to move, {}): {}",
        match pos.side_to_move() {
            Color::Black => "black",
            Color::White => "white",
        },
        evaluate(pos)
    );
    s
}

/// Each term of the evaluation, per side, from that side's point of view.
#[derive(Default, Debug, Clone, Copy)]
struct Terms {
    material: [Value; 2],
    hand: [Value; 2],
    own_king: [Value; 2],
    enemy_king: [Value; 2],
    mobility: [Value; 2],
    king_safety: [Value; 2],
}

impl Terms {
    /// Computes every term from scratch.
    #[inline(always)]
    fn compute(pos: &Position) -> Terms {
        let occ = pos.occupied();
        let black = SideScan::run(pos, Color::Black, occ);
        let white = SideScan::run(pos, Color::White, occ);
        let sides = [&black, &white];
        let mut t = Terms::default();
        for c in Color::ALL {
            let (us, them) = (sides[c.index()], sides[(!c).index()]);
            let i = c.index();
            t.material[i] = us.material;
            t.hand[i] = hand_value(pos.hand(c), us.pawn_files);
            t.own_king[i] = us.own_king;
            t.enemy_king[i] = us.enemy_king;
            t.mobility[i] = us.mobility;
            t.king_safety[i] = -king_danger_penalty(pos, c, us, them);
        }
        t
    }

    /// Each side's sum of terms.
    #[inline(always)]
    fn side_totals(&self) -> [Value; 2] {
        let side = |i: usize| {
            self.material[i]
                + self.hand[i]
                + self.own_king[i]
                + self.enemy_king[i]
                + self.mobility[i]
                + self.king_safety[i]
        };
        [side(0), side(1)]
    }

    /// The score from Black's point of view.
    #[inline(always)]
    fn black_total(&self) -> Value {
        let [b, w] = self.side_totals();
        b - w
    }
}

/// What one pass over a side's pieces gathers.
#[derive(Default)]
struct SideScan {
    /// Squares attacked by the side's pieces other than its king.
    guards: Bitboard,
    /// `guards` plus the king's own steps.
    attacks: Bitboard,
    /// Sum of `KING_ATTACKER_WEIGHT` over pieces hitting the enemy king zone.
    zone_attack: Value,
    material: Value,
    own_king: Value,
    enemy_king: Value,
    mobility: Value,
    /// Bit `f` set when the side has a pawn on file `f` (for pawn drops).
    pawn_files: u32,
}

/// The square as `us` sees the board: White's squares are rotated so that
/// both sides share the tables, which is what makes the eval symmetric.
#[inline(always)]
fn relative_index(sq: Square, us: Color) -> usize {
    match us {
        Color::Black => sq.index(),
        Color::White => 80 - sq.index(),
    }
}

/// The `REL` row for a king, seen by `us` (a missing king maps to zeros).
#[inline(always)]
fn rel_row(king: Option<Square>, us: Color) -> usize {
    king.map_or(NO_KING_ROW, |k| relative_index(k, us))
}

/// The king's zone: its square and the eight around it (empty if missing).
#[inline(always)]
fn king_zone(king: Option<Square>) -> Bitboard {
    king.map_or(Bitboard::EMPTY, |k| bitboard::king_attacks(k).with(k))
}

/// The context of one side's scan.
struct Ctx {
    us: Color,
    occ: Bitboard,
    /// Squares not holding our own pieces: where a slider can go.
    targets: Bitboard,
    enemy_zone: Bitboard,
    own_row: usize,
    enemy_row: usize,
}

impl SideScan {
    /// Walks `us`'s pieces kind by kind, adding material, placement,
    /// attacks and mobility.
    #[inline(always)]
    fn run(pos: &Position, us: Color, occ: Bitboard) -> SideScan {
        let ctx = Ctx {
            us,
            occ,
            targets: !pos.pieces_of(us),
            enemy_zone: king_zone(pos.king_square(!us)),
            own_row: rel_row(pos.king_square(us), us),
            enemy_row: rel_row(pos.king_square(!us), us),
        };
        let mut s = SideScan::default();
        s.pawns(pos.pieces(us, PieceType::Pawn), &ctx);
        // Written out rather than looped so that each call's kind is a
        // constant and its `match` folds away.
        s.steppers(PieceType::Knight, pos.pieces(us, PieceType::Knight), &ctx);
        s.steppers(PieceType::Silver, pos.pieces(us, PieceType::Silver), &ctx);
        s.steppers(PieceType::Gold, pos.pieces(us, PieceType::Gold), &ctx);
        s.steppers(PieceType::ProPawn, pos.pieces(us, PieceType::ProPawn), &ctx);
        s.steppers(
            PieceType::ProLance,
            pos.pieces(us, PieceType::ProLance),
            &ctx,
        );
        s.steppers(
            PieceType::ProKnight,
            pos.pieces(us, PieceType::ProKnight),
            &ctx,
        );
        s.steppers(
            PieceType::ProSilver,
            pos.pieces(us, PieceType::ProSilver),
            &ctx,
        );
        s.sliders(PieceType::Lance, pos.pieces(us, PieceType::Lance), &ctx);
        s.sliders(PieceType::Bishop, pos.pieces(us, PieceType::Bishop), &ctx);
        s.sliders(PieceType::Rook, pos.pieces(us, PieceType::Rook), &ctx);
        s.sliders(PieceType::Horse, pos.pieces(us, PieceType::Horse), &ctx);
        s.sliders(PieceType::Dragon, pos.pieces(us, PieceType::Dragon), &ctx);
        s.attacks = s.guards;
        if let Some(k) = pos.king_square(us) {
            let steps = bitboard::king_attacks(k);
            s.attacks |= steps;
            s.hits_zone(PieceType::King, steps, &ctx);
        }
        s
    }

    /// Material and placement of one piece relative to both kings. Material
    /// is added per piece rather than by counting bitboards because the
    /// default x86-64 target has no popcnt instruction.
    #[inline(always)]
    fn place(&mut self, pt: PieceType, sq: Square, ctx: &Ctx) {
        self.material += piece_value(pt);
        let s = relative_index(sq, ctx.us);
        self.own_king += Value::from(OWN_KP[pt.index()][REL[ctx.own_row][s] as usize]);
        self.enemy_king += Value::from(ENEMY_KP[pt.index()][REL[ctx.enemy_row][s] as usize]);
    }

    /// King-attack bookkeeping for one piece's attack set.
    #[inline(always)]
    fn hits_zone(&mut self, pt: PieceType, att: Bitboard, ctx: &Ctx) {
        let hits = (att & ctx.enemy_zone).any();
        self.zone_attack += KING_ATTACKER_WEIGHT[pt.index()] * Value::from(hits);
    }

    /// Pawns: one shift gives all their attacks; each pawn hitting the zone
    /// counts as an attacker.
    #[inline(always)]
    fn pawns(&mut self, pawns: Bitboard, ctx: &Ctx) {
        let att = pawns.shift_forward(ctx.us);
        self.guards |= att;
        self.zone_attack +=
            KING_ATTACKER_WEIGHT[PieceType::Pawn.index()] * (att & ctx.enemy_zone).count() as Value;
        for sq in pawns {
            self.place(PieceType::Pawn, sq, ctx);
            self.pawn_files |= 1 << sq.file();
        }
    }

    /// Non-sliding pieces other than pawns and the king.
    #[inline(always)]
    fn steppers(&mut self, pt: PieceType, bb: Bitboard, ctx: &Ctx) {
        for sq in bb {
            let att = match pt {
                PieceType::Knight => bitboard::knight_attacks(ctx.us, sq),
                PieceType::Silver => bitboard::silver_attacks(ctx.us, sq),
                _ => bitboard::gold_attacks(ctx.us, sq),
            };
            self.guards |= att;
            self.hits_zone(pt, att, ctx);
            self.place(pt, sq, ctx);
        }
    }

    /// Lances, bishops, rooks and their promotions: attacks plus mobility of
    /// the sliding part.
    #[inline(always)]
    fn sliders(&mut self, pt: PieceType, bb: Bitboard, ctx: &Ctx) {
        for sq in bb {
            let slide = match pt {
                PieceType::Lance => bitboard::lance_attacks(ctx.us, sq, ctx.occ),
                PieceType::Bishop | PieceType::Horse => bitboard::bishop_attacks(sq, ctx.occ),
                _ => bitboard::rook_attacks(sq, ctx.occ),
            };
            let reach = (slide & ctx.targets).count() as usize;
            self.mobility += match pt {
                PieceType::Lance => LANCE_MOBILITY[reach],
                PieceType::Bishop | PieceType::Horse => BISHOP_MOBILITY[reach],
                _ => ROOK_MOBILITY[reach],
            };
            let att = match pt {
                PieceType::Horse | PieceType::Dragon => slide | bitboard::king_attacks(sq),
                _ => slide,
            };
            self.guards |= att;
            self.hits_zone(pt, att, ctx);
            self.place(pt, sq, ctx);
        }
    }
}

/// Value of a hand. Pawns follow `HAND_PAWN_VALUE` unless every file already
/// holds one of the side's pawns (`pawn_files` full), when none can drop.
#[inline(always)]
fn hand_value(hand: Hand, pawn_files: u32) -> Value {
    const ALL_FILES: u32 = (1 << 9) - 1;
    let pawns = hand.count(PieceType::Pawn) as usize;
    let mut v = if pawn_files == ALL_FILES {
        UNDROPPABLE_HAND_PAWN_VALUE * pawns as Value
    } else {
        HAND_PAWN_VALUE[pawns.min(HAND_PAWN_VALUE.len() - 1)]
    };
    for pt in &PieceType::HAND[1..] {
        v += HAND_VALUE[pt.index()] * hand.count(*pt) as Value;
    }
    v
}

/// Danger that the enemy's hand adds to our king: each kind held counts
/// once, and every further non-pawn piece a little more.
#[inline(always)]
fn hand_danger(enemy_hand: Hand) -> Value {
    let mut d = 0;
    for pt in PieceType::HAND {
        let n = enemy_hand.count(pt) as Value;
        if n > 0 {
            d += KING_HAND_DANGER[pt.index()];
            if pt != PieceType::Pawn {
                d += KING_HAND_EXTRA_PIECE_DANGER * (n - 1);
            }
        }
    }
    d
}

/// The king-safety penalty of `us` (non-negative): attackers, attacked
/// squares and enemy hand pieces against defended and flight squares,
/// squared so that combined attacks cost far more than lone ones.
#[inline(always)]
fn king_danger_penalty(pos: &Position, us: Color, own: &SideScan, enemy: &SideScan) -> Value {
    let Some(ksq) = pos.king_square(us) else {
        return 0;
    };
    let around = bitboard::king_attacks(ksq);
    let zone = around.with(ksq);
    let escapes = around
        .and_not(pos.pieces_of(us))
        .and_not(enemy.attacks)
        .count() as Value;
    let danger = enemy.zone_attack
        + KING_ZONE_ATTACKED_WEIGHT * (enemy.attacks & zone).count() as Value
        + hand_danger(pos.hand(!us))
        - KING_ZONE_DEFENDED_WEIGHT * (own.guards & around).count() as Value
        - KING_ESCAPE_WEIGHT * escapes;
    if danger <= 0 {
        0
    } else {
        (danger * danger / KING_DANGER_DIVISOR).min(KING_DANGER_MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_value_adds_hand_value() {
        assert_eq!(
            capture_value(PieceType::Rook),
            PIECE_VALUE[PieceType::Rook.index()] + HAND_VALUE[PieceType::Rook.index()]
        );
        // A captured dragon goes to hand as a rook.
        assert_eq!(
            capture_value(PieceType::Dragon),
            PIECE_VALUE[PieceType::Dragon.index()] + HAND_VALUE[PieceType::Rook.index()]
        );
        assert!(capture_value(PieceType::Pawn) > piece_value(PieceType::Pawn));
        assert_eq!(capture_value(PieceType::King), KING_VALUE);
    }

    #[test]
    fn dead_hand_pawns_are_worth_less() {
        let mut hand = Hand::EMPTY;
        hand.add(PieceType::Pawn);
        hand.add(PieceType::Pawn);
        assert!(hand_value(hand, 0x1ff) < hand_value(hand, 0x0ff));
    }

    #[test]
    fn hand_pawn_values_diminish() {
        for n in 1..HAND_PAWN_VALUE.len() - 1 {
            let a = HAND_PAWN_VALUE[n] - HAND_PAWN_VALUE[n - 1];
            let b = HAND_PAWN_VALUE[n + 1] - HAND_PAWN_VALUE[n];
            assert!(b <= a && b > 0, "marginal pawn value at {n}");
        }
    }
}
