//! The staged move picker: moves come out best-first, and each stage is
//! generated only when the previous ones are used up, so a hash move or a
//! good capture that cuts off never pays for generating quiet moves.
//!
//! Main search, not in check:
//! hash move → good captures and promotions (by `CaptureOrder`: SEE ≥ 0,
//! MVV then capture history) → killer 1 → killer 2 → quiet moves and drops
//! by history (butterfly and continuation) → bad captures.
//! In check: hash move → evasions (captures by MVV, then history).
//! Quiescence: hash move if tactical → captures and promotions.
//! With `quiet_promotions`, a promotion to an empty square is a quiet
//! move: picked among them by history, never in quiescence.

use crate::bitboard::{self, Bitboard};
use crate::eval::{capture_value, piece_value};
use crate::movegen::{generate_into, GenType, MoveSink, MAX_MOVES};
use crate::position::{CheckSquares, Position};
use crate::search::history::{Histories, Killers, QuietKeys, QuietRows, LOW_PLY};
use crate::search::see::see_ge;
use crate::types::{Color, Move, Piece, PieceType, Square};
use arrayvec::ArrayVec;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    TtMove,
    GenCaptures,
    GoodCaptures,
    Killer1,
    Killer2,
    GenQuiets,
    Quiets,
    BadCaptures,
    EvasionTt,
    GenEvasions,
    Evasions,
    QsTt,
    QsGenCaptures,
    QsCaptures,
    Done,
}

/// How captures are ordered among themselves, and which count as good.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureOrder {
    /// By the victim, then the cheaper attacker (MVV-LVA); good when the
    /// exchange loses nothing.
    Victim,
    /// By the victim, then the capture history; good when the exchange
    /// loses nothing.
    VictimThenHistory,
    /// YaneuraOu's (`YoCaptureOrder`): the capture history (on its scale)
    /// plus seven times the victim's value, so the history can lift a
    /// capture above a larger victim; good when the exchange loses less
    /// than an eighteenth of that score (a well-tried capture may give up
    /// a little, one the history dislikes must win something).
    Yo,
}

/// Captures score above every other move (promotions 500,000, quiet
/// moves within the histories' bounds).
const CAPTURE_BASE: i32 = 1_000_000;

#[derive(Clone, Copy)]
struct Scored {
    mv: Move,
    score: i32,
}

/// Picks moves for one node. Pass the same history to every `next` call.
pub struct MovePicker {
    stage: Stage,
    tt_move: Move,
    killers: Killers,
    killer_slots: usize,
    list: ArrayVec<Scored, MAX_MOVES>,
    cur: usize,
    bad_end: usize,
    quiet_start: usize,
    use_history: bool,
    captures: CaptureOrder,
    /// What the quiet moves' histories are looked up by.
    keys: QuietKeys,
    /// Quiet moves scoring below this are not sorted.
    sort_limit: i32,
    /// Added to the score of a quiet move that checks.
    quiet_check_bonus: i32,
    /// Distance from the root, and the low-ply history's weight.
    ply: usize,
    low_ply_history: i32,
    /// Promotions to empty squares are quiet moves (see the module doc).
    quiet_promotions: bool,
    /// No more quiet moves (killers included): `skip_quiets` was called.
    skip_quiets: bool,
    /// The move just given came from the good captures: its exchange is
    /// known to lose nothing.
    exchange_known_good: bool,
    /// Set by `prune_late_quiets`: the quiet moves the search would prune
    /// at once are passed over here.
    late: Option<LateQuiets>,
    /// Quiet moves passed over since the last `take_passed`.
    passed: usize,
}

/// Whether `m` drops a piece on a square next to `king` or two king steps
/// from it: such a drop may set up a mate (tsumero), and move-count
/// pruning keeps it.
#[inline]
pub fn drop_near_king(m: Move, king: Option<Square>) -> bool {
    m.is_drop() && king.is_some_and(|k| bitboard::king_two_steps(k).contains(m.to()))
}

/// What the search's move-count pruning keeps once a node is past its
/// limit (checks and drops near the enemy king), for the picker to pass
/// over the rest without handing each to the search: at such nodes the
/// search was given a hundred quiet moves to count and drop one by one.
#[derive(Clone, Copy)]
pub struct LateQuiets {
    /// Where each kind of our pieces checks.
    checks: CheckSquares,
    /// Our pinned pieces and our king: their moves may be illegal, which
    /// the search must not count, so they go to it.
    to_search: Bitboard,
    /// By dropped kind: the squares where a drop is kept (it checks, or
    /// lies within two king steps of the enemy king).
    kept_drops: [Bitboard; 8],
}

impl LateQuiets {
    /// The rule in `pos`, whose check squares are `checks`.
    pub fn new(pos: &Position, checks: CheckSquares) -> LateQuiets {
        let us = pos.side_to_move();
        let mut to_search = pos.pinned(us);
        if let Some(k) = pos.king_square(us) {
            to_search = to_search.with(k);
        }
        // `drop_near_king`'s squares.
        let near = pos
            .king_square(!us)
            .map_or(Bitboard::EMPTY, bitboard::king_two_steps);
        let mut kept_drops = [Bitboard::EMPTY; 8];
        for pt in PieceType::HAND {
            kept_drops[pt as usize] = checks.squares(pt) | near;
        }
        LateQuiets {
            checks,
            to_search,
            kept_drops,
        }
    }

    /// Whether the search would count the quiet move `m` as legal and then
    /// prune it: a legal move that neither checks nor drops near the
    /// enemy king. (A pawn drop is illegal only when it mates, so checks.)
    #[inline(always)]
    fn passes_over(&self, pos: &Position, m: Move) -> bool {
        if m.is_drop() {
            return !self.kept_drops[m.dropped() as usize].contains(m.to());
        }
        !self.to_search.contains(m.from()) && !self.checks.gives_check(pos, m)
    }
}

/// What orders the moves of one node besides the position: the switches
/// of the ordering techniques and the keys of the earlier moves.
#[derive(Clone, Copy)]
pub struct Ordering {
    /// Killer slots in use: 0, 1 or 2 (the `Killers` ablation switch).
    pub killer_slots: usize,
    /// Butterfly and continuation histories for quiet moves.
    pub history: bool,
    /// How captures are ordered.
    pub captures: CaptureOrder,
    /// What the quiet moves' histories are looked up by.
    pub keys: QuietKeys,
    /// Remaining depth: quiet moves scoring below `-quiet_sort_limit ·
    /// depth` are left unsorted, after the rest.
    pub depth: i32,
    /// Promotions to empty squares are quiet moves (see the module doc).
    pub quiet_promotions: bool,
    /// Quiet moves scoring below minus this times `depth` are left
    /// unsorted (`QuietSortLimit`).
    pub quiet_sort_limit: i32,
    /// Added to a quiet move's score when it checks (`QuietCheckBonus`).
    pub quiet_check_bonus: i32,
    /// The node's distance from the root, and the low-ply history's
    /// weight there (`LowPlyHistory`).
    pub ply: usize,
    /// See `ply`.
    pub low_ply_history: i32,
}

impl MovePicker {
    /// A picker for the main search.
    pub fn new(pos: &Position, tt_move: Move, killers: Killers, ordering: Ordering) -> MovePicker {
        let in_check = pos.in_check();
        let stage = if in_check {
            Stage::EvasionTt
        } else {
            Stage::TtMove
        };
        MovePicker {
            stage,
            tt_move: validate(pos, tt_move),
            killers,
            killer_slots: ordering.killer_slots,
            list: ArrayVec::new(),
            cur: 0,
            bad_end: 0,
            quiet_start: 0,
            use_history: ordering.history,
            captures: ordering.captures,
            keys: ordering.keys,
            sort_limit: -ordering.quiet_sort_limit * ordering.depth,
            quiet_check_bonus: ordering.quiet_check_bonus,
            ply: ordering.ply,
            low_ply_history: ordering.low_ply_history,
            quiet_promotions: ordering.quiet_promotions,
            skip_quiets: false,
            exchange_known_good: false,
            late: None,
            passed: 0,
        }
    }

    /// A picker for the quiescence search: captures and promotions (only
    /// captures with `quiet_promotions`), or all evasions when in check.
    pub fn new_qsearch(
        pos: &Position,
        tt_move: Move,
        captures: CaptureOrder,
        quiet_promotions: bool,
    ) -> MovePicker {
        let tt = validate(pos, tt_move);
        let in_check = pos.in_check();
        let tactical =
            tt.is_some() && (pos.is_capture(tt) || (tt.is_promotion() && !quiet_promotions));
        MovePicker {
            stage: if in_check {
                Stage::EvasionTt
            } else {
                Stage::QsTt
            },
            tt_move: if in_check || tactical { tt } else { Move::NONE },
            killers: Killers::default(),
            killer_slots: 0,
            list: ArrayVec::new(),
            cur: 0,
            bad_end: 0,
            quiet_start: 0,
            use_history: true,
            captures,
            keys: QuietKeys::NONE,
            sort_limit: 0,
            quiet_check_bonus: 0,
            ply: 0,
            low_ply_history: 0,
            quiet_promotions,
            skip_quiets: false,
            exchange_known_good: false,
            late: None,
            passed: 0,
        }
    }

    /// Whether the move just given is known to win or hold its exchange
    /// (`see_ge(m, 0)`): it came from the good captures, which were
    /// tested so. A caller's own test at a threshold of at most 0 would
    /// repeat that work.
    #[inline]
    pub fn exchange_known_good(&self) -> bool {
        self.exchange_known_good
    }

    /// Yields no more quiet moves (killers included): the search has
    /// pruned the rest of them (YaneuraOu's `skip_quiet_moves`). Quiet
    /// moves not yet generated are never generated.
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
        if self.stage == Stage::Quiets {
            self.cur = 0;
            self.stage = Stage::BadCaptures;
        }
    }

    /// From now on, passes over the quiet moves the search's move-count
    /// pruning would count and prune (see `LateQuiets`), counting them
    /// for `take_passed`: the search is past its limit, and stays so.
    pub fn prune_late_quiets(&mut self, late: LateQuiets) {
        self.late = Some(late);
    }

    /// How many quiet moves were passed over since the last call: legal
    /// moves the caller counts as tried before the one just given.
    #[inline(always)]
    pub fn take_passed(&mut self) -> usize {
        std::mem::take(&mut self.passed)
    }

    /// The next pseudo-legal move, or `None` when all are out. The caller
    /// checks `is_legal`.
    #[inline]
    pub fn next(&mut self, pos: &Position, history: &Histories) -> Option<Move> {
        self.exchange_known_good = false;
        // Most calls are in the quiet stage: served here, without the
        // call into the stage machine.
        if self.stage == Stage::Quiets {
            if let Some(m) = self.next_quiet(pos) {
                return Some(m);
            }
        }
        self.next_staged(pos, history)
    }

    /// The next quiet move that is neither the hash move nor a killer (nor
    /// passed over by `prune_late_quiets`).
    #[inline(always)]
    fn next_quiet(&mut self, pos: &Position) -> Option<Move> {
        while self.cur < self.list.len() {
            let m = self.list[self.cur].mv;
            self.cur += 1;
            if m != self.tt_move && !self.killers.contains(m, self.killer_slots) {
                if let Some(late) = &self.late {
                    if late.passes_over(pos, m) {
                        self.passed += 1;
                        continue;
                    }
                }
                return Some(m);
            }
        }
        None
    }

    /// `next` through the stages.
    #[inline(never)]
    fn next_staged(&mut self, pos: &Position, history: &Histories) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove | Stage::EvasionTt | Stage::QsTt => {
                    self.stage = match self.stage {
                        Stage::TtMove => Stage::GenCaptures,
                        Stage::EvasionTt => Stage::GenEvasions,
                        _ => Stage::QsGenCaptures,
                    };
                    if self.tt_move.is_some() {
                        return Some(self.tt_move);
                    }
                }
                Stage::GenCaptures | Stage::QsGenCaptures => {
                    let gen = if self.quiet_promotions {
                        GenType::Captures
                    } else {
                        GenType::CapturesPromotions
                    };
                    self.generate_scored(pos, gen, history);
                    self.stage = if self.stage == Stage::GenCaptures {
                        Stage::GoodCaptures
                    } else {
                        Stage::QsCaptures
                    };
                }
                Stage::GoodCaptures => {
                    while self.cur < self.list.len() {
                        let m = self.pick_best();
                        if m == self.tt_move {
                            continue;
                        }
                        let threshold = self.good_capture_threshold(pos, m);
                        if see_ge(pos, m, threshold) {
                            self.exchange_known_good = threshold >= 0;
                            return Some(m);
                        }
                        // Keep it for the last stage, in a slot already used.
                        self.list[self.bad_end] = Scored { mv: m, score: 0 };
                        self.bad_end += 1;
                    }
                    self.quiet_start = self.list.len();
                    self.stage = Stage::Killer1;
                }
                Stage::Killer1 | Stage::Killer2 | Stage::GenQuiets if self.skip_quiets => {
                    self.cur = 0;
                    self.stage = Stage::BadCaptures;
                }
                Stage::Killer1 | Stage::Killer2 => {
                    let slot = if self.stage == Stage::Killer1 { 0 } else { 1 };
                    self.stage = if slot == 0 {
                        Stage::Killer2
                    } else {
                        Stage::GenQuiets
                    };
                    let k = self.killers.0[slot];
                    if slot < self.killer_slots
                        && k.is_some()
                        && k != self.tt_move
                        && !pos.is_capture(k)
                        && (self.quiet_promotions || !k.is_promotion())
                        && pos.is_pseudo_legal(k)
                    {
                        return Some(k);
                    }
                }
                Stage::GenQuiets => {
                    let gen = if self.quiet_promotions {
                        GenType::NonCaptures
                    } else {
                        GenType::Quiets
                    };
                    self.generate_scored(pos, gen, history);
                    self.generate_scored(pos, GenType::Drops, history);
                    // The promising ones first, sorted; the rest after, as
                    // generated.
                    let quiets = &mut self.list[self.quiet_start..];
                    let mut good = 0;
                    for i in 0..quiets.len() {
                        if quiets[i].score >= self.sort_limit {
                            quiets.swap(good, i);
                            good += 1;
                        }
                    }
                    quiets[..good].sort_unstable_by_key(|s| std::cmp::Reverse(s.score));
                    self.cur = self.quiet_start;
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    if let Some(m) = self.next_quiet(pos) {
                        return Some(m);
                    }
                    self.cur = 0;
                    self.stage = Stage::BadCaptures;
                }
                Stage::BadCaptures => {
                    if self.cur < self.bad_end {
                        self.cur += 1;
                        return Some(self.list[self.cur - 1].mv);
                    }
                    self.stage = Stage::Done;
                }
                Stage::GenEvasions => {
                    self.generate_scored(pos, GenType::Evasions, history);
                    self.stage = Stage::Evasions;
                }
                Stage::Evasions | Stage::QsCaptures => {
                    while self.cur < self.list.len() {
                        let m = self.pick_best();
                        if m != self.tt_move {
                            return Some(m);
                        }
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    /// The exchange `m`, the move just picked, must reach to count among
    /// the good captures (see `CaptureOrder`).
    #[inline]
    fn good_capture_threshold(&self, pos: &Position, m: Move) -> i32 {
        if self.captures == CaptureOrder::Yo && pos.is_capture(m) {
            -(self.list[self.cur - 1].score - CAPTURE_BASE) / 18
        } else {
            0
        }
    }

    /// Selection step: swaps the best remaining move to `cur` and takes it.
    fn pick_best(&mut self) -> Move {
        let mut best = self.cur;
        for i in self.cur + 1..self.list.len() {
            if self.list[i].score > self.list[best].score {
                best = i;
            }
        }
        self.list.swap(self.cur, best);
        self.cur += 1;
        self.list[self.cur - 1].mv
    }

    fn generate_scored(&mut self, pos: &Position, gen: GenType, history: &Histories) {
        let quiet = matches!(gen, GenType::Quiets | GenType::Drops);
        let checks = (quiet && self.quiet_check_bonus != 0)
            .then(|| (pos.check_squares(), self.quiet_check_bonus));
        let low_ply = (quiet && self.low_ply_history != 0 && self.ply < LOW_PLY)
            .then_some((self.ply, self.low_ply_history));
        // The two extra terms' tests cost 3 % of the instructions when
        // made at every quiet move with both off: a sink without them.
        if checks.is_some() || low_ply.is_some() {
            self.generate_with::<true>(pos, gen, history, checks, low_ply);
        } else {
            self.generate_with::<false>(pos, gen, history, None, None);
        }
    }

    /// `generate_scored` through a sink that adds the extra terms to
    /// quiet moves (`EXTRA`) or not.
    fn generate_with<const EXTRA: bool>(
        &mut self,
        pos: &Position,
        gen: GenType,
        history: &Histories,
        checks: Option<(CheckSquares, i32)>,
        low_ply: Option<(usize, i32)>,
    ) {
        let us = pos.side_to_move();
        let mut sink = ScoringSink::<EXTRA> {
            list: &mut self.list,
            pos,
            history,
            rows: history.quiet_rows(us, &self.keys),
            us,
            use_history: self.use_history,
            captures: self.captures,
            quiet_promotions: self.quiet_promotions,
            checks,
            low_ply,
        };
        generate_into(pos, gen, &mut sink);
    }
}

/// The picker's list as the generator's sink: each move scored as it is
/// emitted, with the moving piece's or dropped kind's history rows and
/// key found once per batch. Captures first by the victim, well above
/// every history score, then by the capture history (or the cheaper
/// attacker: MVV-LVA); promotions (unless quiet) by the gain; quiet
/// moves and drops by `Histories::quiet_score`.
struct ScoringSink<'a, const EXTRA: bool> {
    list: &'a mut ArrayVec<Scored, MAX_MOVES>,
    pos: &'a Position,
    history: &'a Histories,
    rows: QuietRows<'a>,
    us: Color,
    use_history: bool,
    captures: CaptureOrder,
    quiet_promotions: bool,
    /// Where each kind checks, and the bonus of a quiet check
    /// (`QuietCheckBonus`; `None`: off, or not a quiet batch).
    checks: Option<(CheckSquares, i32)>,
    /// The node's ply and the low-ply history's weight there
    /// (`LowPlyHistory`; `None`: off, too far from the root, or not a
    /// quiet batch).
    low_ply: Option<(usize, i32)>,
}

/// A quiet check earns its bonus only if it loses no more than this by
/// exchange (YaneuraOu's 75): a checker simply taken is no threat.
const QUIET_CHECK_SEE: i32 = -75;

impl<const EXTRA: bool> ScoringSink<'_, EXTRA> {
    /// The extra terms of the quiet move `m` putting a `kind` on `to`
    /// (0 without `EXTRA`): the check bonus when it checks directly (a
    /// discovered check is left to its history) and holds its exchange,
    /// and its low-ply history at `weight / (1 + ply)`.
    #[inline(always)]
    fn extra(&self, m: Move, kind: PieceType, to: Square) -> i32 {
        if !EXTRA {
            return 0;
        }
        let check = match &self.checks {
            Some((checks, bonus))
                if checks.squares(kind).contains(to) && see_ge(self.pos, m, QUIET_CHECK_SEE) =>
            {
                *bonus
            }
            _ => 0,
        };
        let low = self.low_ply.map_or(0, |(ply, weight)| {
            weight * self.history.low_ply.get(ply, m) / (1 + ply as i32)
        });
        check + low
    }

    /// The score of the board move `m` of `moved` (the piece as it stands
    /// after the move) to `to`.
    #[inline(always)]
    fn board_score(&self, m: Move, moved: Piece, to: Square) -> i32 {
        let victim = self.pos.piece_on(to);
        let key = moved.index() * 81 + to.index();
        if !victim.is_empty() {
            let victim = victim.kind();
            CAPTURE_BASE
                + match self.captures {
                    CaptureOrder::Victim => {
                        capture_value(victim) * 16
                            - piece_value(self.pos.piece_on(m.from()).kind()) / 16
                    }
                    CaptureOrder::VictimThenHistory => {
                        capture_value(victim) * 16 + self.history.capture.get(key, victim) / 4
                    }
                    CaptureOrder::Yo => {
                        7 * piece_value(victim) + self.history.yo_capture_stat(key, victim)
                    }
                }
        } else if m.is_promotion() && !self.quiet_promotions {
            let pt = self.pos.piece_on(m.from()).kind();
            500_000 + piece_value(pt.promote()) - piece_value(pt)
        } else if self.use_history {
            self.rows.board_move(m.from(), to, key) + self.extra(m, moved.kind(), to)
        } else {
            0
        }
    }
}

impl<const EXTRA: bool> MoveSink for ScoringSink<'_, EXTRA> {
    #[inline(always)]
    fn push_all(&mut self, from: Square, targets: Bitboard, promote: bool) {
        let pc = self.pos.piece_on(from);
        let moved = if promote {
            Piece::new(pc.color(), pc.kind().promote())
        } else {
            pc
        };
        for to in targets {
            let m = Move::normal(from, to, promote);
            let score = self.board_score(m, moved, to);
            self.list.push(Scored { mv: m, score });
        }
    }

    #[inline(always)]
    fn push_pawns(&mut self, targets: Bitboard, back: i32, promote: bool) {
        let moved = Piece::new(
            self.us,
            if promote {
                PieceType::ProPawn
            } else {
                PieceType::Pawn
            },
        );
        for to in targets {
            let from = Square::from_index((to.index() as i32 + back) as usize);
            let m = Move::normal(from, to, promote);
            let score = self.board_score(m, moved, to);
            self.list.push(Scored { mv: m, score });
        }
    }

    #[inline(always)]
    fn push_drops(&mut self, kinds: &[PieceType], targets: Bitboard) {
        for to in targets {
            for &pt in kinds {
                let score = if self.use_history {
                    let key = Piece::new(self.us, pt).index() * 81 + to.index();
                    self.rows.drop(pt, to, key) + self.extra(Move::drop(pt, to), pt, to)
                } else {
                    0
                };
                self.list.push(Scored {
                    mv: Move::drop(pt, to),
                    score,
                });
            }
        }
    }
}

/// `m` if it is a pseudo-legal move here, else `Move::NONE`.
fn validate(pos: &Position, m: Move) -> Move {
    if m.is_some() && pos.is_pseudo_legal(m) {
        m
    } else {
        Move::NONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::{generate, MoveList};
    use crate::search::history::piece_to;

    /// A middle game from a match (Ryuo against YaneuraOu): pieces in
    /// hand, captures that win and lose, quiet moves and drops.
    fn middle_game() -> Position {
        Position::from_sfen(
            "l2g3nl/g3k2s1/3pppg1p/p6p1/1Bn3p2/3PPN1P1/4bPP1P/3+rS1K2/1L5SL w R3Pgsn2p 108",
        )
        .expect("a valid position")
    }

    /// The scores given as the moves are generated are the move-by-move
    /// formulas', with every history table holding different values.
    #[test]
    fn batch_scores_are_the_move_by_move_scores() {
        let pos = middle_game();
        let us = pos.side_to_move();
        let mut all = MoveList::new();
        generate(&pos, GenType::All, &mut all);
        let keys = QuietKeys {
            cont: [piece_to(&pos, all[3]), piece_to(&pos, all[7]), 1_000],
            pawn_slot: 17,
        };
        let mut history = Histories::default();
        for (i, &m) in all.iter().enumerate() {
            let key = piece_to(&pos, m);
            let bonus = (i as i32 * 37) % 900 - 400;
            history.main.update(us, m, bonus);
            history.pawn.update(keys.pawn_slot, key, bonus / 2);
            for (j, &prev) in keys.cont.iter().enumerate() {
                history
                    .continuation
                    .update(prev, key, bonus / (j as i32 + 1));
            }
            if pos.is_capture(m) {
                history
                    .capture
                    .update(key, pos.piece_on(m.to()).kind(), -bonus);
            }
        }
        let mut p = picker(&pos);
        p.keys = keys;
        for gen in [GenType::CapturesPromotions, GenType::Quiets, GenType::Drops] {
            p.generate_scored(&pos, gen, &history);
        }
        assert_eq!(p.list.len(), all.len());
        let mut quiet = 0;
        for s in p.list.iter() {
            let m = s.mv;
            let key = piece_to(&pos, m);
            let expect = if pos.is_capture(m) {
                let victim = pos.piece_on(m.to()).kind();
                1_000_000 + capture_value(victim) * 16 + history.capture.get(key, victim) / 4
            } else if m.is_promotion() {
                let pt = pos.moved_piece(m).kind();
                500_000 + piece_value(pt.promote()) - piece_value(pt)
            } else {
                quiet += 1;
                let cont = |i: usize| history.continuation.get(keys.cont[i], key);
                2 * history.main.get(us, m)
                    + 2 * history.pawn.get(keys.pawn_slot, key)
                    + cont(0)
                    + cont(1)
                    + cont(2)
            };
            assert_eq!(s.score, expect, "{}", m.to_usi());
        }
        assert!(quiet > 100, "{quiet}");
    }

    /// `LateQuiets` passes over exactly the legal quiet moves and drops
    /// that neither check nor drop near the enemy king, but for the moves
    /// of pinned pieces and of the king, which it leaves to the search.
    #[test]
    fn late_quiets_passes_over_what_the_search_prunes() {
        let mut passed = 0;
        for pos in crate::testing::random_positions() {
            if pos.in_check() {
                continue;
            }
            let us = pos.side_to_move();
            let late = LateQuiets::new(&pos, pos.check_squares());
            let mut quiets = MoveList::new();
            generate(&pos, GenType::Quiets, &mut quiets);
            generate(&pos, GenType::Drops, &mut quiets);
            for &m in quiets.iter() {
                let pruned = pos.is_legal(m)
                    && !pos.gives_check(m)
                    && !drop_near_king(m, pos.king_square(!us));
                let to_search = !m.is_drop()
                    && (pos.pinned(us).contains(m.from()) || pos.king_square(us) == Some(m.from()));
                assert_eq!(
                    late.passes_over(&pos, m),
                    pruned && !to_search,
                    "{} {}",
                    pos.to_sfen(),
                    m.to_usi()
                );
                passed += usize::from(pruned && !to_search);
            }
        }
        assert!(passed > 1000, "{passed}");
    }

    fn picker(pos: &Position) -> MovePicker {
        picker_ordering_captures(pos, CaptureOrder::VictimThenHistory)
    }

    fn picker_ordering_captures(pos: &Position, captures: CaptureOrder) -> MovePicker {
        let ordering = Ordering {
            killer_slots: 2,
            history: true,
            captures,
            keys: QuietKeys::NONE,
            depth: 3,
            quiet_promotions: false,
            quiet_sort_limit: 3_000,
            quiet_check_bonus: 0,
            ply: 0,
            low_ply_history: 0,
        };
        MovePicker::new(pos, Move::NONE, Killers::default(), ordering)
    }

    /// `QuietCheckBonus`: with no history, a quiet move or drop scores the
    /// bonus exactly when it checks directly and holds its exchange (the
    /// move-by-move tests), and the rest score 0; the position has both.
    #[test]
    fn quiet_checks_that_hold_their_exchange_get_the_bonus() {
        let pos = middle_game();
        let history = Histories::default();
        let mut p = picker(&pos);
        p.quiet_check_bonus = 5_000;
        for gen in [GenType::Quiets, GenType::Drops] {
            p.generate_scored(&pos, gen, &history);
        }
        let (mut checks, mut safe) = (0, 0);
        for s in p.list.iter() {
            let m = s.mv;
            if !is_quiet(&pos, m) {
                continue;
            }
            // The position has no discovered check: every check is direct.
            let discovers = !m.is_drop() && pos.check_squares().discoverers().contains(m.from());
            assert!(!(discovers && pos.gives_check(m)), "{}", m.to_usi());
            let direct = pos.gives_check(m);
            let earns = direct && see_ge(&pos, m, QUIET_CHECK_SEE);
            checks += usize::from(direct);
            safe += usize::from(earns);
            assert_eq!(s.score, if earns { 5_000 } else { 0 }, "{}", m.to_usi());
        }
        eprintln!("{checks} quiet checks, {safe} holding their exchange");
        assert!(checks > safe && safe > 0, "{checks} checks, {safe} safe");
    }

    /// `LowPlyHistory`: a quiet move's low-ply score counts at `weight /
    /// (1 + ply)` at the picker's ply, and not from `LOW_PLY` on.
    #[test]
    fn the_low_ply_history_counts_near_the_root_only() {
        let pos = middle_game();
        let mut history = Histories::default();
        let mut quiets = MoveList::new();
        generate(&pos, GenType::Quiets, &mut quiets);
        generate(&pos, GenType::Drops, &mut quiets);
        for (i, &m) in quiets.iter().enumerate() {
            history.update_low_ply(1, m, (i as i32 * 53) % 2_000 - 1_000, false);
        }
        for ply in [1, 2, LOW_PLY] {
            let mut p = picker(&pos);
            (p.ply, p.low_ply_history) = (ply, 8);
            for gen in [GenType::Quiets, GenType::Drops] {
                p.generate_scored(&pos, gen, &history);
            }
            let mut nonzero = 0;
            for s in p.list.iter().filter(|s| is_quiet(&pos, s.mv)) {
                let expect = if ply < LOW_PLY {
                    8 * history.low_ply.get(ply, s.mv) / (1 + ply as i32)
                } else {
                    0
                };
                nonzero += usize::from(expect != 0);
                assert_eq!(s.score, expect, "ply {ply} {}", s.mv.to_usi());
            }
            assert_eq!(nonzero > 100, ply == 1, "ply {ply}: {nonzero}");
        }
    }

    fn is_quiet(pos: &Position, m: Move) -> bool {
        !pos.is_capture(m) && !m.is_promotion()
    }

    /// With every capture order: each move once, and a move marked as
    /// a known good exchange really holds it (YaneuraOu's order also
    /// passes captures that lose a little, which must not be marked).
    #[test]
    fn the_picker_yields_every_move_once_and_marks_the_good_captures() {
        let pos = middle_game();
        let history = Histories::default();
        for captures in [
            CaptureOrder::Victim,
            CaptureOrder::VictimThenHistory,
            CaptureOrder::Yo,
        ] {
            let mut p = picker_ordering_captures(&pos, captures);
            let mut seen = Vec::new();
            let mut known_good = 0;
            while let Some(m) = p.next(&pos, &history) {
                assert!(!seen.contains(&m), "{} twice", m.to_usi());
                seen.push(m);
                if p.exchange_known_good() {
                    assert!(see_ge(&pos, m, 0), "{captures:?} {}", m.to_usi());
                    assert!(pos.is_capture(m) || m.is_promotion());
                    known_good += 1;
                }
            }
            // YaneuraOu's order with empty histories passes its good
            // captures below a threshold of 0: none is marked.
            if captures != CaptureOrder::Yo {
                assert!(
                    known_good > 0,
                    "{captures:?}: the position has a good capture"
                );
            }
            let mut all = MoveList::new();
            generate(&pos, GenType::All, &mut all);
            assert_eq!(seen.len(), all.len(), "{captures:?}");
            assert!(all.iter().all(|m| seen.contains(m)));
        }
    }

    #[test]
    fn skipping_quiets_ends_the_quiet_moves_but_not_the_bad_captures() {
        let pos = middle_game();
        let history = Histories::default();
        let mut all = Vec::new();
        let mut p = picker(&pos);
        while let Some(m) = p.next(&pos, &history) {
            all.push(m);
        }
        let first_quiet = all.iter().position(|&m| is_quiet(&pos, m)).unwrap();
        let bad_captures: Vec<Move> = all[first_quiet..]
            .iter()
            .copied()
            .filter(|&m| !is_quiet(&pos, m))
            .collect();
        assert!(
            !bad_captures.is_empty(),
            "the position has a losing capture"
        );

        // Skipped at the first quiet move: only the bad captures follow.
        let mut p = picker(&pos);
        let mut after = Vec::new();
        let mut skipped = false;
        while let Some(m) = p.next(&pos, &history) {
            if skipped {
                after.push(m);
            } else if is_quiet(&pos, m) {
                p.skip_quiets();
                skipped = true;
            }
        }
        assert_eq!(after, bad_captures);

        // Skipped before any quiet move: none comes, not even a killer.
        let mut p = picker(&pos);
        p.skip_quiets();
        let mut rest = Vec::new();
        while let Some(m) = p.next(&pos, &history) {
            rest.push(m);
        }
        assert!(rest.iter().all(|&m| !is_quiet(&pos, m)));
        assert_eq!(rest.len(), first_quiet + bad_captures.len());
    }
}
