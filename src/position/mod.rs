//! The shogi position: board, hands, side to move, and the undo stack.
//!
//! `do_move`/`undo_move` keep the Zobrist key, checkers and slider blockers
//! (pins) up to date, so legality tests in the move generator and the search
//! are a few bitboard operations. The game rules that need history
//! (repetition, perpetual check) and the entering-king declaration live in
//! `rules.rs`; SFEN reading and writing in `sfen.rs`.

mod material;
mod rules;
use rules::KeyCounts;
mod sfen;

pub use material::piece_material;
pub use rules::{EnteringKingRule, Repetition};
pub use sfen::SfenError;
pub(crate) use sfen::{write_sfen, write_sfen_with_counts};

use crate::bitboard::{self, Bitboard};
use crate::types::{Color, Hand, Move, Piece, PieceType, Square};

/// The SFEN of the initial position.
pub const STARTPOS_SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// Zobrist keys, generated at compile time by SplitMix64 from a fixed seed.
mod zobrist {
    const fn splitmix(state: u64) -> (u64, u64) {
        let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (s, z ^ (z >> 31))
    }

    /// Keys per (piece index, square) and per (colour, hand kind); hand keys
    /// are added once per piece held, so a count change is one add/sub.
    pub struct Keys {
        pub psq: [[u64; 81]; 32],
        pub hand: [[u64; 8]; 2],
    }

    pub static KEYS: Keys = {
        let mut psq = [[0u64; 81]; 32];
        let mut hand = [[0u64; 8]; 2];
        let mut state = 0x5259_554F_2024_u64; // "RYUO"
        let mut p = 0;
        while p < 32 {
            let mut sq = 0;
            while sq < 81 {
                let (s, k) = splitmix(state);
                state = s;
                // Bit 0 is reserved for the side to move.
                psq[p][sq] = k & !1;
                sq += 1;
            }
            p += 1;
        }
        let mut c = 0;
        while c < 2 {
            let mut pt = 0;
            while pt < 8 {
                let (s, k) = splitmix(state);
                state = s;
                hand[c][pt] = k & !1;
                pt += 1;
            }
            c += 1;
        }
        Keys { psq, hand }
    };

    /// XORed in when White is to move (bit 0 of the key is the side to move).
    pub const SIDE: u64 = 1;
}

/// What a position remembers about how it was reached, one per ply; the
/// `undo_move` data and the incremental keys.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StateInfo {
    /// Key of board and side to move.
    board_key: u64,
    /// Key of both hands.
    hand_key: u64,
    /// Keys of parts of the board (`PieceSetKeys`), for the search's
    /// correction history.
    set_keys: PieceSetKeys,
    /// Hand of the side to move in this state (the other hand follows from
    /// the board, so this and `board_key` identify the position).
    hand: Hand,
    /// Piece captured by the move that led here.
    captured: Piece,
    /// Piece that made the move that led here, as it stood before moving
    /// (the dropped piece for a drop): with `captured`, `last_move` and the
    /// previous state's hand, what an incremental evaluation needs to
    /// replay the move.
    moved: Piece,
    /// Move that led here (`Move::NONE` at the root of the game record).
    last_move: Move,
    /// Pieces giving check to the side to move.
    checkers: Bitboard,
    /// `blockers[c]`: pieces of either colour that alone stand between
    /// `c`'s king and an enemy slider.
    blockers: [Bitboard; 2],
    /// Plies since each side last made a non-checking move, counted as in
    /// the repetition rule: +2 per consecutive checking move.
    continuous_check: [u16; 2],
    /// Plies since the last null move (repetition looks no further back).
    plies_from_null: u16,
    /// Material balance, Black's pieces minus White's (`material.rs`).
    material: i32,
}

/// Zobrist keys of parts of the board: the search's correction history
/// learns the static evaluation's error per such part (YaneuraOu's and
/// Stockfish's minor-piece and non-pawn correction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PieceSetKeys {
    /// The minor pieces of both sides: lances, knights, silvers, golds
    /// and the pieces that promote to gold's moves (YaneuraOu's choice).
    pub minor: u64,
    /// Each side's pieces other than unpromoted pawns, king included.
    pub non_pawn: [u64; 2],
}

impl PieceSetKeys {
    /// Adds or removes `pc` on `sq`: the keys are XORs, so both are one
    /// toggle.
    #[inline(always)]
    fn toggle(&mut self, pc: Piece, sq: Square) {
        let pt = pc.kind();
        if pt == PieceType::Pawn {
            return;
        }
        let k = zobrist::KEYS.psq[pc.index()][sq.index()];
        self.non_pawn[pc.color().index()] ^= k;
        if !matches!(
            pt,
            PieceType::Bishop
                | PieceType::Rook
                | PieceType::King
                | PieceType::Horse
                | PieceType::Dragon
        ) {
            self.minor ^= k;
        }
    }
}

/// What one move changed, read back from the history (`state_change`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StateChange {
    pub mv: Move,
    pub moved: Piece,
    pub captured: Piece,
    pub hand_before: Hand,
}

/// A shogi position with its history.
#[derive(Clone)]
pub struct Position {
    board: [Piece; 81],
    by_color: [Bitboard; 2],
    by_type: [Bitboard; PieceType::NUM],
    /// Union of gold and the four gold-moving promoted kinds.
    golds: Bitboard,
    hands: [Hand; 2],
    king_sq: [Option<Square>; 2],
    side_to_move: Color,
    /// Move number as in SFEN (1 for the first move of the game).
    game_ply: u32,
    states: Vec<StateInfo>,
    /// The states' board keys counted by bucket (kept with `states`).
    key_counts: KeyCounts,
}

impl Position {
    /// The initial position.
    pub fn startpos() -> Position {
        Position::from_sfen(STARTPOS_SFEN).expect("the start position is valid")
    }

    fn empty() -> Position {
        let mut states = Vec::with_capacity(1024);
        states.push(StateInfo::default());
        Position {
            board: [Piece::EMPTY; 81],
            by_color: [Bitboard::EMPTY; 2],
            by_type: [Bitboard::EMPTY; PieceType::NUM],
            golds: Bitboard::EMPTY,
            hands: [Hand::EMPTY; 2],
            king_sq: [None; 2],
            side_to_move: Color::Black,
            game_ply: 1,
            key_counts: KeyCounts::of(&states),
            states,
        }
    }

    // -- Accessors ---------------------------------------------------------

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// The piece on `sq` (possibly `Piece::EMPTY`).
    #[inline(always)]
    pub fn piece_on(&self, sq: Square) -> Piece {
        self.board[sq.index()]
    }

    /// The material balance (YaneuraOu's piece values, `material.rs`)
    /// from `c`'s point of view, kept up to date by `do_move`.
    #[inline(always)]
    pub fn material(&self, c: Color) -> i32 {
        material::relative(c, self.st().material)
    }

    /// The hand of `c`.
    #[inline(always)]
    pub fn hand(&self, c: Color) -> Hand {
        self.hands[c.index()]
    }

    /// All occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// Squares occupied by `c`.
    #[inline(always)]
    pub fn pieces_of(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    /// Squares holding pieces of kind `pt`, either colour.
    #[inline(always)]
    pub fn pieces_of_type(&self, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()]
    }

    /// Squares holding `c`'s pieces of kind `pt`.
    #[inline(always)]
    pub fn pieces(&self, c: Color, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()] & self.by_color[c.index()]
    }

    /// Squares holding gold-moving pieces (gold, tokin, promoted lance,
    /// knight and silver), either colour.
    #[inline(always)]
    pub fn golds(&self) -> Bitboard {
        self.golds
    }

    /// `c`'s king square; a tsume problem may leave the attacker without one.
    #[inline(always)]
    pub fn king_square(&self, c: Color) -> Option<Square> {
        self.king_sq[c.index()]
    }

    #[inline(always)]
    fn st(&self) -> &StateInfo {
        // The stack always holds the root state.
        &self.states[self.states.len() - 1]
    }

    /// The Zobrist key of the whole position (board, hands, side to move).
    #[inline(always)]
    pub fn key(&self) -> u64 {
        let st = self.st();
        st.board_key ^ st.hand_key
    }

    /// Number of states in the history: the root state plus one per move
    /// (or null move) played since.
    #[inline(always)]
    pub(crate) fn state_count(&self) -> usize {
        self.states.len()
    }

    /// The key of state `i` (0 = the root of the history).
    #[inline(always)]
    pub(crate) fn state_key(&self, i: usize) -> u64 {
        let st = &self.states[i];
        st.board_key ^ st.hand_key
    }

    /// How state `i` (≥ 1) was reached from state `i - 1`: the move, the
    /// piece that made it (before promotion), the piece it captured, and
    /// the mover's hand before the move. A null move has `Move::NULL`.
    #[inline(always)]
    pub(crate) fn state_change(&self, i: usize) -> StateChange {
        let st = &self.states[i];
        StateChange {
            mv: st.last_move,
            moved: st.moved,
            captured: st.captured,
            hand_before: self.states[i - 1].hand,
        }
    }

    /// Keys of the minor pieces and of each side's non-pawn pieces.
    #[inline(always)]
    pub fn piece_set_keys(&self) -> PieceSetKeys {
        self.st().set_keys
    }

    /// The key of the board and side to move only (hands left out), for
    /// detecting the same board with different hands.
    #[inline(always)]
    pub fn board_key(&self) -> u64 {
        self.st().board_key
    }

    /// Pieces giving check to the side to move.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.st().checkers
    }

    /// Whether the side to move is in check.
    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.st().checkers.any()
    }

    /// `c`'s pieces pinned to its own king.
    #[inline(always)]
    pub fn pinned(&self, c: Color) -> Bitboard {
        self.st().blockers[c.index()] & self.by_color[c.index()]
    }

    /// Pieces of either colour that alone block an enemy slider from `c`'s king.
    #[inline(always)]
    pub fn blockers_for_king(&self, c: Color) -> Bitboard {
        self.st().blockers[c.index()]
    }

    /// The piece captured by the last move (`Piece::EMPTY` if none).
    #[inline(always)]
    pub fn captured_piece(&self) -> Piece {
        self.st().captured
    }

    /// The last move played (`Move::NONE` at the start of the record).
    #[inline(always)]
    pub fn last_move(&self) -> Move {
        self.st().last_move
    }

    /// Move number as in SFEN.
    #[inline(always)]
    pub fn game_ply(&self) -> u32 {
        self.game_ply
    }

    /// Number of moves made on this object since it was set up.
    #[inline(always)]
    pub fn moves_played(&self) -> usize {
        self.states.len() - 1
    }

    /// How many pieces of kind `pt` `c` has, on the board and (for hand
    /// kinds, counting promoted ones as their base kind) in hand.
    pub fn material_count(&self, c: Color, pt: PieceType) -> u32 {
        let base = pt.unpromote();
        let mut n = self.pieces(c, base).count();
        if base.can_promote() {
            n += self.pieces(c, base.promote()).count();
        }
        if base != PieceType::King {
            n += self.hands[c.index()].count(base);
        }
        n
    }

    // -- Attacks -----------------------------------------------------------

    /// `c`'s pieces that attack `sq` given the occupancy `occ`.
    #[inline]
    pub fn attackers_to(&self, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let them = !c; // attacks *to* sq are attacks *from* sq of the other colour
        let t = &self.by_type;
        let hdk =
            t[PieceType::Horse.index()] | t[PieceType::Dragon.index()] | t[PieceType::King.index()];
        let bh = t[PieceType::Bishop.index()] | t[PieceType::Horse.index()];
        let rd = t[PieceType::Rook.index()] | t[PieceType::Dragon.index()];
        let ours = self.by_color[c.index()];
        let steps = (bitboard::pawn_attacks(them, sq) & t[PieceType::Pawn.index()])
            | (bitboard::knight_attacks(them, sq) & t[PieceType::Knight.index()])
            | (bitboard::silver_attacks(them, sq) & t[PieceType::Silver.index()])
            | (bitboard::gold_attacks(them, sq) & self.golds)
            | (bitboard::king_attacks(sq) & hdk);
        let mut attackers = steps & ours;
        // A slider's attacks are the costly part: computed only when one
        // of that kind stands on an empty-board line through `sq`.
        let lances = t[PieceType::Lance.index()] & ours;
        if (bitboard::lance_pseudo_attacks(them, sq) & lances).any() {
            attackers |= bitboard::lance_attacks(them, sq, occ) & lances;
        }
        let bh = bh & ours;
        if (bitboard::bishop_pseudo_attacks(sq) & bh).any() {
            attackers |= bitboard::bishop_attacks(sq, occ) & bh;
        }
        let rd = rd & ours;
        if (bitboard::rook_pseudo_attacks(sq) & rd).any() {
            attackers |= bitboard::rook_attacks(sq, occ) & rd;
        }
        attackers
    }

    /// Pieces of both colours attacking `sq` given `occ` (the attackers SEE
    /// starts from): one pass, so the slider attacks, the costly part, are
    /// computed once rather than once per colour.
    #[inline]
    pub fn all_attackers_to(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let t = &self.by_type;
        let hdk =
            t[PieceType::Horse.index()] | t[PieceType::Dragon.index()] | t[PieceType::King.index()];
        let bh = t[PieceType::Bishop.index()] | t[PieceType::Horse.index()];
        let rd = t[PieceType::Rook.index()] | t[PieceType::Dragon.index()];
        let mut shared = bitboard::king_attacks(sq) & hdk;
        // The slider attacks only where a slider of that kind stands on an
        // empty-board line through `sq`.
        if (bitboard::bishop_pseudo_attacks(sq) & bh).any() {
            shared |= bitboard::bishop_attacks(sq, occ) & bh;
        }
        if (bitboard::rook_pseudo_attacks(sq) & rd).any() {
            shared |= bitboard::rook_attacks(sq, occ) & rd;
        }
        let lances = t[PieceType::Lance.index()];
        // Pieces of `c` reach `sq` as the other colour's moves leave it.
        let directed = |c: Color| {
            let them = !c;
            let ours = self.by_color[c.index()];
            let steps = (bitboard::pawn_attacks(them, sq) & t[PieceType::Pawn.index()])
                | (bitboard::knight_attacks(them, sq) & t[PieceType::Knight.index()])
                | (bitboard::silver_attacks(them, sq) & t[PieceType::Silver.index()])
                | (bitboard::gold_attacks(them, sq) & self.golds);
            let lances = lances & ours;
            let lance = if (bitboard::lance_pseudo_attacks(them, sq) & lances).any() {
                bitboard::lance_attacks(them, sq, occ) & lances
            } else {
                Bitboard::EMPTY
            };
            (steps | lance) & ours
        };
        shared | directed(Color::Black) | directed(Color::White)
    }

    /// Whether any piece of `c` attacks `sq` in the current occupancy.
    #[inline]
    pub fn is_attacked_by(&self, c: Color, sq: Square) -> bool {
        self.attacks_square(c, sq, self.occupied())
    }

    /// Whether any piece of `c` attacks `sq` given `occ`; like
    /// `attackers_to(..).any()` but stops at the first kind found, cheap
    /// step pieces before sliders (king-move legality is its hot caller).
    #[inline]
    pub fn attacks_square(&self, c: Color, sq: Square, occ: Bitboard) -> bool {
        let them = !c;
        let t = &self.by_type;
        let ours = self.by_color[c.index()];
        let steps = (bitboard::pawn_attacks(them, sq) & t[PieceType::Pawn.index()])
            | (bitboard::knight_attacks(them, sq) & t[PieceType::Knight.index()])
            | (bitboard::silver_attacks(them, sq) & t[PieceType::Silver.index()])
            | (bitboard::gold_attacks(them, sq) & self.golds)
            | (bitboard::king_attacks(sq)
                & (t[PieceType::Horse.index()]
                    | t[PieceType::Dragon.index()]
                    | t[PieceType::King.index()]));
        if (steps & ours).any() {
            return true;
        }
        let rd = (t[PieceType::Rook.index()] | t[PieceType::Dragon.index()]) & ours;
        let lances = t[PieceType::Lance.index()] & ours;
        if (bitboard::rook_pseudo_attacks(sq) & rd).any()
            && (bitboard::rook_attacks(sq, occ) & rd).any()
        {
            return true;
        }
        if (bitboard::lance_pseudo_attacks(them, sq) & lances).any()
            && (bitboard::lance_attacks(them, sq, occ) & lances).any()
        {
            return true;
        }
        let bh = (t[PieceType::Bishop.index()] | t[PieceType::Horse.index()]) & ours;
        (bitboard::bishop_pseudo_attacks(sq) & bh).any()
            && (bitboard::bishop_attacks(sq, occ) & bh).any()
    }

    /// The squares of `targets`, all next to `c`'s king on `ksq`, that the
    /// king may step to: those no piece of `!c` attacks once the king has
    /// left `ksq` (a slider checking through it then sees behind it). One
    /// pass over the few enemy pieces that could matter, instead of a full
    /// attack test per square.
    pub fn king_escapes(&self, c: Color, ksq: Square, targets: Bitboard) -> Bitboard {
        let them = !c;
        let enemy = self.by_color[them.index()];
        let occ = self.occupied().without(ksq);
        let t = &self.by_type;
        let mut attacked = Bitboard::EMPTY;
        // Anything close enough to step there, whatever its kind.
        for s in enemy & bitboard::near(ksq) {
            let pt = self.board[s.index()].kind();
            attacked |= bitboard::attacks(them, pt, s, occ);
        }
        // Sliders from farther away, when their empty-board lines meet a
        // target; most are on no line through the king's neighbourhood.
        let far = enemy.and_not(bitboard::near(ksq));
        let rook_far = far & bitboard::slider_lines_near(1, ksq);
        let bishop_far = far & bitboard::slider_lines_near(0, ksq);
        for s in t[PieceType::Lance.index()] & rook_far {
            if (bitboard::lance_pseudo_attacks(them, s) & targets).any() {
                attacked |= bitboard::lance_attacks(them, s, occ);
            }
        }
        for s in (t[PieceType::Bishop.index()] | t[PieceType::Horse.index()]) & bishop_far {
            if (bitboard::bishop_pseudo_attacks(s) & targets).any() {
                attacked |= bitboard::bishop_attacks(s, occ);
            }
        }
        for s in (t[PieceType::Rook.index()] | t[PieceType::Dragon.index()]) & rook_far {
            if (bitboard::rook_pseudo_attacks(s) & targets).any() {
                attacked |= bitboard::rook_attacks(s, occ);
            }
        }
        targets.and_not(attacked)
    }

    /// Pieces of either colour that alone block a slider of `!c` from the
    /// square `ksq` (for `c`'s king: its pins and the enemy's discoveries).
    fn slider_blockers(&self, c: Color, ksq: Square) -> Bitboard {
        let them = !c;
        let t = &self.by_type;
        let snipers = ((bitboard::lance_pseudo_attacks(c, ksq) & t[PieceType::Lance.index()])
            | (bitboard::bishop_pseudo_attacks(ksq)
                & (t[PieceType::Bishop.index()] | t[PieceType::Horse.index()]))
            | (bitboard::rook_pseudo_attacks(ksq)
                & (t[PieceType::Rook.index()] | t[PieceType::Dragon.index()])))
            & self.by_color[them.index()];
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        for s in snipers {
            let b = bitboard::between(ksq, s) & occ;
            if b.any() && !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }

    // -- Board editing -----------------------------------------------------

    #[inline(always)]
    fn put_piece(&mut self, sq: Square, pc: Piece) {
        let pt = pc.kind();
        let b = Bitboard::from_square(sq);
        self.board[sq.index()] = pc;
        self.by_color[pc.color().index()] |= b;
        self.by_type[pt.index()] |= b;
        if is_gold_like(pt) {
            self.golds |= b;
        }
        if pt == PieceType::King {
            self.king_sq[pc.color().index()] = Some(sq);
        }
    }

    /// Moves `pc` from `from` to the empty square `to` (one XOR per set).
    #[inline(always)]
    fn move_piece(&mut self, from: Square, to: Square, pc: Piece) {
        let pt = pc.kind();
        let b = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.board[from.index()] = Piece::EMPTY;
        self.board[to.index()] = pc;
        self.by_color[pc.color().index()] ^= b;
        self.by_type[pt.index()] ^= b;
        if is_gold_like(pt) {
            self.golds ^= b;
        }
        if pt == PieceType::King {
            self.king_sq[pc.color().index()] = Some(to);
        }
    }

    #[inline(always)]
    fn remove_piece(&mut self, sq: Square) -> Piece {
        let pc = self.board[sq.index()];
        let pt = pc.kind();
        let b = Bitboard::from_square(sq);
        self.board[sq.index()] = Piece::EMPTY;
        self.by_color[pc.color().index()] ^= b;
        self.by_type[pt.index()] ^= b;
        if is_gold_like(pt) {
            self.golds ^= b;
        }
        pc
    }

    /// Recomputes checkers and blockers of the current state from the board.
    fn update_check_info(&mut self) {
        let us = self.side_to_move;
        // Most positions are not in check: the early-exit test settles them.
        let checkers = match self.king_sq[us.index()] {
            Some(k) if self.attacks_square(!us, k, self.occupied()) => {
                self.attackers_to(!us, k, self.occupied())
            }
            _ => Bitboard::EMPTY,
        };
        self.set_check_info(checkers);
    }

    /// The checkers after `m`, just played by `!self.side_to_move`, from what
    /// the move can do: the moved piece checks directly, or it uncovers a
    /// slider when it was a blocker of the enemy king (`prev_blockers`, the
    /// blockers before the move) and left the line. Nothing else changed.
    fn checkers_after(&self, m: Move, prev_blockers: Bitboard) -> Bitboard {
        let them = self.side_to_move;
        let Some(k) = self.king_sq[them.index()] else {
            return Bitboard::EMPTY;
        };
        let to = m.to();
        let occ = self.occupied();
        let pc = self.board[to.index()];
        let mut checkers = Bitboard::EMPTY;
        if bitboard::attacks(!them, pc.kind(), to, occ).contains(k) {
            checkers = Bitboard::from_square(to);
        }
        if !m.is_drop() && prev_blockers.contains(m.from()) && !bitboard::same_ray(k, m.from(), to)
        {
            checkers |= self.attackers_to(!them, k, occ);
        }
        checkers
    }

    /// The blockers after `m`, just played: a king's blockers (`prev` before
    /// the move) stay as they were unless the move touched a square on one
    /// of the king's lines, since snipers and what stands between them and
    /// the king are all on those lines. A king move touches its own lines.
    fn blockers_after(&self, m: Move, prev: &[Bitboard; 2]) -> [Bitboard; 2] {
        let mut blockers = *prev;
        for c in Color::ALL {
            if let Some(k) = self.king_sq[c.index()] {
                let on_lines = |sq: Square| sq == k || bitboard::aligned(k, sq);
                if on_lines(m.to()) || (!m.is_drop() && on_lines(m.from())) {
                    blockers[c.index()] = self.slider_blockers(c, k);
                }
            }
        }
        blockers
    }

    /// Stores `checkers` and the recomputed blockers in the current state.
    fn set_check_info(&mut self, checkers: Bitboard) {
        let mut blockers = [Bitboard::EMPTY; 2];
        for c in Color::ALL {
            if let Some(k) = self.king_sq[c.index()] {
                blockers[c.index()] = self.slider_blockers(c, k);
            }
        }
        let st = self.states.last_mut().expect("root state");
        st.checkers = checkers;
        st.blockers = blockers;
    }

    /// Recomputes the keys of the current state from scratch.
    fn compute_keys(&self) -> (u64, u64) {
        let keys = &zobrist::KEYS;
        let mut board_key = if self.side_to_move == Color::White {
            zobrist::SIDE
        } else {
            0
        };
        for sq in self.occupied() {
            board_key ^= keys.psq[self.board[sq.index()].index()][sq.index()];
        }
        let mut hand_key = 0u64;
        for c in Color::ALL {
            for pt in PieceType::HAND {
                let n = self.hands[c.index()].count(pt) as u64;
                hand_key = hand_key.wrapping_add(keys.hand[c.index()][pt.index()].wrapping_mul(n));
            }
        }
        (board_key, hand_key)
    }

    /// Recomputes the current state's `PieceSetKeys` from scratch.
    fn compute_set_keys(&self) -> PieceSetKeys {
        let mut keys = PieceSetKeys::default();
        for sq in self.occupied() {
            keys.toggle(self.board[sq.index()], sq);
        }
        keys
    }

    /// Sets the root state (keys, checks) after the board was filled in.
    fn init_state(&mut self) {
        let (board_key, hand_key) = self.compute_keys();
        self.states.clear();
        let material = material::compute(self);
        self.states.push(StateInfo {
            board_key,
            hand_key,
            set_keys: self.compute_set_keys(),
            hand: self.hands[self.side_to_move.index()],
            material,
            ..StateInfo::default()
        });
        self.key_counts = KeyCounts::of(&self.states);
        self.update_check_info();
    }

    /// Checks every invariant the incremental updates must keep: the board
    /// array against the bitboards, the king squares, the piece supply, the
    /// keys, the side-to-move hand and the check information. It recomputes
    /// everything, so it is slow: `do_move`/`undo_move` assert it only in
    /// builds with debug assertions (the `checked` profile run by CI).
    pub fn is_ok(&self) -> Result<(), &'static str> {
        let mut by_color = [Bitboard::EMPTY; 2];
        let mut by_type = [Bitboard::EMPTY; PieceType::NUM];
        let mut golds = Bitboard::EMPTY;
        let mut kings = [None; 2];
        for sq in Square::all() {
            let pc = self.board[sq.index()];
            if pc.is_empty() {
                continue;
            }
            let b = Bitboard::from_square(sq);
            by_color[pc.color().index()] |= b;
            by_type[pc.kind().index()] |= b;
            if is_gold_like(pc.kind()) {
                golds |= b;
            }
            if pc.kind() == PieceType::King {
                if kings[pc.color().index()].is_some() {
                    return Err("two kings of one colour");
                }
                kings[pc.color().index()] = Some(sq);
            }
        }
        if by_color != self.by_color || by_type != self.by_type || golds != self.golds {
            return Err("bitboards disagree with the board");
        }
        if kings != self.king_sq {
            return Err("king squares disagree with the board");
        }
        for pt in PieceType::HAND {
            let supply = match pt {
                PieceType::Pawn => 18,
                PieceType::Rook | PieceType::Bishop => 2,
                _ => 4,
            };
            let n = self.material_count(Color::Black, pt) + self.material_count(Color::White, pt);
            if n > supply {
                return Err("more pieces of a kind than the set has");
            }
        }
        let st = self.st();
        if self.compute_keys() != (st.board_key, st.hand_key)
            || self.compute_set_keys() != st.set_keys
        {
            return Err("incremental keys disagree with a recomputation");
        }
        if !self.key_counts.agrees_with(&self.states) {
            return Err("board-key counts disagree with the states");
        }
        if st.hand != self.hands[self.side_to_move.index()] {
            return Err("state hand is not the side to move's hand");
        }
        if st.material != material::compute(self) {
            return Err("incremental material disagrees with a recomputation");
        }
        let us = self.side_to_move;
        let checkers = self.king_sq[us.index()].map_or(Bitboard::EMPTY, |k| {
            self.attackers_to(!us, k, self.occupied())
        });
        if checkers != st.checkers {
            return Err("checkers disagree with a recomputation");
        }
        for c in Color::ALL {
            let blockers =
                self.king_sq[c.index()].map_or(Bitboard::EMPTY, |k| self.slider_blockers(c, k));
            if blockers != st.blockers[c.index()] {
                return Err("blockers disagree with a recomputation");
            }
        }
        Ok(())
    }

    // -- Making moves ------------------------------------------------------

    /// Plays `m`, which must be legal (see `is_legal`).
    pub fn do_move(&mut self, m: Move) {
        let keys = &zobrist::KEYS;
        let us = self.side_to_move;
        let prev = *self.st();
        let mut board_key = prev.board_key ^ zobrist::SIDE;
        let mut hand_key = prev.hand_key;
        let mut set_keys = prev.set_keys;
        let mut captured = Piece::EMPTY;
        let mut material = prev.material;
        let to = m.to();
        let moved_piece;

        if m.is_drop() {
            let pt = m.dropped();
            let pc = Piece::new(us, pt);
            moved_piece = pc;
            self.hands[us.index()].remove(pt);
            hand_key = hand_key.wrapping_sub(keys.hand[us.index()][pt.index()]);
            self.put_piece(to, pc);
            board_key ^= keys.psq[pc.index()][to.index()];
            set_keys.toggle(pc, to);
        } else {
            let from = m.from();
            let pc = self.board[from.index()];
            moved_piece = pc;
            board_key ^= keys.psq[pc.index()][from.index()];
            set_keys.toggle(pc, from);
            if !self.board[to.index()].is_empty() {
                captured = self.remove_piece(to);
                board_key ^= keys.psq[captured.index()][to.index()];
                set_keys.toggle(captured, to);
                let base = captured.kind().unpromote();
                self.hands[us.index()].add(base);
                hand_key = hand_key.wrapping_add(keys.hand[us.index()][base.index()]);
                material += material::relative(us, material::capture_gain(captured.kind()));
            }
            let moved = if m.is_promotion() {
                material += material::relative(us, material::promotion_gain(pc.kind()));
                self.remove_piece(from);
                let moved = Piece::new(us, pc.kind().promote());
                self.put_piece(to, moved);
                moved
            } else {
                self.move_piece(from, to, pc);
                pc
            };
            board_key ^= keys.psq[moved.index()][to.index()];
            set_keys.toggle(moved, to);
        }

        self.side_to_move = !us;
        self.game_ply += 1;
        self.key_counts.add(board_key);
        self.states.push(StateInfo {
            board_key,
            hand_key,
            set_keys,
            hand: self.hands[(!us).index()],
            captured,
            moved: moved_piece,
            last_move: m,
            checkers: Bitboard::EMPTY,
            blockers: [Bitboard::EMPTY; 2],
            continuous_check: prev.continuous_check,
            plies_from_null: prev.plies_from_null + 1,
            material,
        });
        let checkers = self.checkers_after(m, prev.blockers[(!us).index()]);
        let blockers = self.blockers_after(m, &prev.blockers);
        let st = self.states.last_mut().expect("state just pushed");
        st.checkers = checkers;
        st.blockers = blockers;
        st.continuous_check[us.index()] = if st.checkers.any() {
            prev.continuous_check[us.index()] + 2
        } else {
            0
        };
        debug_assert_eq!(self.is_ok(), Ok(()), "after {m}");
    }

    /// Takes back `m`, which must be the last move played.
    pub fn undo_move(&mut self, m: Move) {
        let st = self.states.pop().expect("a move to undo");
        self.key_counts.remove(st.board_key);
        debug_assert_eq!(st.last_move, m);
        let us = !self.side_to_move;
        self.side_to_move = us;
        self.game_ply -= 1;
        let to = m.to();
        if m.is_drop() {
            let pc = self.remove_piece(to);
            self.hands[us.index()].add(pc.kind());
        } else {
            if m.is_promotion() {
                let moved = self.remove_piece(to);
                self.put_piece(m.from(), Piece::new(us, moved.kind().unpromote()));
            } else {
                self.move_piece(to, m.from(), self.board[to.index()]);
            }
            if !st.captured.is_empty() {
                self.put_piece(to, st.captured);
                self.hands[us.index()].remove(st.captured.kind().unpromote());
            }
        }
        debug_assert_eq!(self.is_ok(), Ok(()), "after undoing {m}");
    }

    /// Passes the move to the other side (null-move pruning). Only when not
    /// in check.
    pub fn do_null_move(&mut self) {
        debug_assert!(!self.in_check());
        let prev = *self.st();
        self.side_to_move = !self.side_to_move;
        self.key_counts.add(prev.board_key ^ zobrist::SIDE);
        self.states.push(StateInfo {
            board_key: prev.board_key ^ zobrist::SIDE,
            hand: self.hands[self.side_to_move.index()],
            captured: Piece::EMPTY,
            moved: Piece::EMPTY,
            last_move: Move::NULL,
            checkers: Bitboard::EMPTY,
            plies_from_null: 0,
            ..prev
        });
        debug_assert_eq!(self.is_ok(), Ok(()), "after a null move");
    }

    /// Takes back a null move.
    pub fn undo_null_move(&mut self) {
        if let Some(st) = self.states.pop() {
            self.key_counts.remove(st.board_key);
        }
        self.side_to_move = !self.side_to_move;
    }

    /// The key the position would have after `m` (for prefetching and for
    /// the mate solver); cheaper than `do_move`.
    pub fn key_after(&self, m: Move) -> u64 {
        let keys = &zobrist::KEYS;
        let us = self.side_to_move;
        let mut hand_key = self.st().hand_key;
        if m.is_drop() {
            hand_key = hand_key.wrapping_sub(keys.hand[us.index()][m.dropped().index()]);
        } else {
            let cap = self.board[m.to().index()];
            if !cap.is_empty() {
                let base = cap.kind().unpromote();
                hand_key = hand_key.wrapping_add(keys.hand[us.index()][base.index()]);
            }
        }
        self.board_key_after(m) ^ hand_key
    }

    /// The board-and-side key (`board_key`) the position would have after
    /// `m`: the mate solver indexes its table by it, hands apart.
    pub fn board_key_after(&self, m: Move) -> u64 {
        let keys = &zobrist::KEYS;
        let us = self.side_to_move;
        let mut board_key = self.st().board_key ^ zobrist::SIDE;
        let to = m.to();
        if m.is_drop() {
            return board_key ^ keys.psq[Piece::new(us, m.dropped()).index()][to.index()];
        }
        let pc = self.board[m.from().index()];
        board_key ^= keys.psq[pc.index()][m.from().index()];
        let cap = self.board[to.index()];
        if !cap.is_empty() {
            board_key ^= keys.psq[cap.index()][to.index()];
        }
        let moved = if m.is_promotion() {
            Piece::new(us, pc.kind().promote())
        } else {
            pc
        };
        board_key ^ keys.psq[moved.index()][to.index()]
    }

    // -- Move properties ---------------------------------------------------

    /// The piece a board move moves, or the dropped piece of a drop.
    #[inline(always)]
    pub fn moved_piece(&self, m: Move) -> Piece {
        if m.is_drop() {
            Piece::new(self.side_to_move, m.dropped())
        } else {
            self.board[m.from().index()]
        }
    }

    /// Whether `m` captures a piece.
    #[inline(always)]
    pub fn is_capture(&self, m: Move) -> bool {
        !m.is_drop() && !self.board[m.to().index()].is_empty()
    }

    /// Whether the pseudo-legal move `m` checks the opponent's king.
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side_to_move;
        let Some(ksq) = self.king_sq[(!us).index()] else {
            return false;
        };
        let to = m.to();
        if m.is_drop() {
            return bitboard::attacks(us, m.dropped(), to, self.occupied()).contains(ksq);
        }
        let from = m.from();
        let pt = self.board[from.index()].kind();
        let pt = if m.is_promotion() { pt.promote() } else { pt };
        let occ = self.occupied().without(from).with(to);
        if bitboard::attacks(us, pt, to, occ).contains(ksq) {
            return true;
        }
        self.st().blockers[(!us).index()].contains(from) && !bitboard::same_ray(ksq, from, to)
    }

    /// The squares from which each kind of the mover's pieces would give
    /// check: for a loop over many moves, [`CheckSquares::gives_check`]
    /// answers with a bit test where [`gives_check`](Self::gives_check)
    /// computes the moved piece's attacks.
    #[inline]
    pub fn check_squares(&self) -> CheckSquares {
        let us = self.side_to_move;
        let Some(ksq) = self.king_sq[(!us).index()] else {
            return CheckSquares {
                king: None,
                by_kind: [Bitboard::EMPTY; PieceType::NUM],
                discoverers: Bitboard::EMPTY,
            };
        };
        // A piece of ours attacks the king from `s` exactly when the same
        // kind of theirs on the king's square attacks `s`.
        let them = !us;
        let occ = self.occupied();
        let gold = bitboard::gold_attacks(them, ksq);
        let bishop = bitboard::bishop_attacks(ksq, occ);
        let rook = bitboard::rook_attacks(ksq, occ);
        let king = bitboard::king_attacks(ksq);
        let mut by_kind = [Bitboard::EMPTY; PieceType::NUM];
        by_kind[PieceType::Pawn as usize] = bitboard::pawn_attacks(them, ksq);
        by_kind[PieceType::Lance as usize] = bitboard::lance_attacks(them, ksq, occ);
        by_kind[PieceType::Knight as usize] = bitboard::knight_attacks(them, ksq);
        by_kind[PieceType::Silver as usize] = bitboard::silver_attacks(them, ksq);
        by_kind[PieceType::Bishop as usize] = bishop;
        by_kind[PieceType::Rook as usize] = rook;
        for pt in [
            PieceType::Gold,
            PieceType::ProPawn,
            PieceType::ProLance,
            PieceType::ProKnight,
            PieceType::ProSilver,
        ] {
            by_kind[pt as usize] = gold;
        }
        by_kind[PieceType::Horse as usize] = bishop | king;
        by_kind[PieceType::Dragon as usize] = rook | king;
        CheckSquares {
            king: Some(ksq),
            by_kind,
            discoverers: self.st().blockers[them.index()],
        }
    }

    /// Whether `m`, which the move generator produced (or which passed
    /// `is_pseudo_legal`), is legal: the king is not left in check and a
    /// pawn drop does not give mate.
    #[inline]
    pub fn is_legal(&self, m: Move) -> bool {
        self.is_legal_in(&self.legality_context(), m)
    }

    /// What `is_legal` looks up, gathered once so that a loop over many
    /// moves (`generate_legal`) pays for it once.
    #[inline]
    pub fn legality_context(&self) -> LegalityContext {
        let us = self.side_to_move;
        LegalityContext {
            king: self.king_sq[us.index()],
            pinned: self.pinned(us),
            // The only square where a pawn drop can give check, hence mate.
            pawn_check_square: self.king_sq[(!us).index()]
                .filter(|_| self.hands[us.index()].has(PieceType::Pawn))
                .and_then(|k| k.forward(!us)),
        }
    }

    /// `is_legal` with the context gathered beforehand.
    #[inline(always)]
    pub fn is_legal_in(&self, ctx: &LegalityContext, m: Move) -> bool {
        if m.is_drop() {
            return Some(m.to()) != ctx.pawn_check_square
                || m.dropped() != PieceType::Pawn
                || !self.is_pawn_drop_mate(m.to());
        }
        let Some(ksq) = ctx.king else {
            return true;
        };
        let from = m.from();
        if from == ksq {
            let occ = self.occupied().without(from);
            return !self.attacks_square(!self.side_to_move, m.to(), occ);
        }
        !ctx.pinned.contains(from) || bitboard::same_ray(ksq, from, m.to())
    }

    /// Whether dropping a pawn on `to` would mate the opponent (which the
    /// rules forbid). Cheap unless the drop gives check.
    pub fn is_pawn_drop_mate(&self, to: Square) -> bool {
        let us = self.side_to_move;
        let them = !us;
        let Some(ksq) = self.king_sq[them.index()] else {
            return false;
        };
        if !bitboard::pawn_attacks(us, to).contains(ksq) {
            return false; // no check, so no mate
        }
        // 1. The king takes the pawn unless we defend it.
        // A slider behind the king would see through its old square.
        if self
            .attackers_to(us, to, self.occupied().without(ksq))
            .is_empty()
        {
            return false;
        }
        // 2. Another defender takes it (the king excluded; pinned pieces only
        //    along their pin line, which a capture next to the king rarely is).
        let pinned = self.pinned(them);
        let mut takers = self.attackers_to(them, to, self.occupied()).without(ksq);
        while takers.any() {
            let from = takers.pop();
            if !pinned.contains(from) || bitboard::same_ray(ksq, from, to) {
                return false;
            }
        }
        // 3. The king steps to a square we do not attack once the pawn stands.
        let occ = self.occupied().with(to).without(ksq);
        let escapes = bitboard::king_attacks(ksq)
            .and_not(self.by_color[them.index()])
            .without(to);
        for sq in escapes {
            if self.attackers_to(us, sq, occ).is_empty() {
                return false;
            }
        }
        true
    }

    /// Whether `m` (any 16-bit value, e.g. from the hash table or a killer
    /// slot) is a pseudo-legal move here: a move `generate` could produce.
    /// Follow with `is_legal`.
    pub fn is_pseudo_legal(&self, m: Move) -> bool {
        let us = self.side_to_move;
        let to = m.to();
        if to.index() >= 81 || !m.is_some() {
            return false;
        }
        let target_pc = self.board[to.index()];
        let checkers = self.checkers();
        if m.is_drop() {
            let raw = (m.raw() >> 7) & 0x7f;
            let Some(pt) = PieceType::from_index(raw as u8) else {
                return false;
            };
            if m.is_promotion()
                || pt == PieceType::King
                || pt.is_promoted()
                || !self.hands[us.index()].has(pt)
                || !target_pc.is_empty()
                || bitboard::dead_squares(us, pt).contains(to)
            {
                return false;
            }
            if pt == PieceType::Pawn
                && (self.pieces(us, PieceType::Pawn) & bitboard::file_mask(to.file())).any()
            {
                return false;
            }
            if checkers.any() {
                let ksq = self.king_sq[us.index()].expect("in check means a king");
                if checkers.more_than_one() || !bitboard::between(ksq, checkers.lsb()).contains(to)
                {
                    return false;
                }
            }
            return true;
        }
        let from = m.from();
        if from.index() >= 81 {
            return false;
        }
        let pc = self.board[from.index()];
        if pc.is_empty() || pc.color() != us {
            return false;
        }
        if !target_pc.is_empty() && target_pc.color() == us {
            return false;
        }
        let pt = pc.kind();
        if !bitboard::attacks(us, pt, from, self.occupied()).contains(to) {
            return false;
        }
        if m.is_promotion() {
            if !pt.can_promote() || !(from.in_promotion_zone(us) || to.in_promotion_zone(us)) {
                return false;
            }
        } else if bitboard::dead_squares(us, pt).contains(to) {
            return false;
        }
        if checkers.any() && pt != PieceType::King {
            let ksq = self.king_sq[us.index()].expect("in check means a king");
            if checkers.more_than_one() {
                return false;
            }
            let checker = checkers.lsb();
            if to != checker && !bitboard::between(ksq, checker).contains(to) {
                return false;
            }
        }
        true
    }

    /// Parses a USI move and checks it is legal here.
    pub fn parse_usi_move(&self, s: &str) -> Option<Move> {
        let m = parse_usi_move_text(s)?;
        self.is_legal_move(m).then_some(m)
    }

    /// Whether `m`, from a source that is not trusted (the hash table, a
    /// book, a game record, the user), is a legal move here: the one check
    /// to use before `do_move` on such a move.
    #[inline]
    pub fn is_legal_move(&self, m: Move) -> bool {
        m.is_some() && self.is_pseudo_legal(m) && self.is_legal(m)
    }

    /// Plays `m` if it is legal here; otherwise the position is unchanged.
    pub fn try_do_move(&mut self, m: Move) -> Result<(), IllegalMove> {
        if !self.is_legal_move(m) {
            return Err(IllegalMove(m));
        }
        self.do_move(m);
        Ok(())
    }
}

/// A move that is not legal in the position it was given to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove(pub Move);

impl std::fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is not a legal move here", self.0)
    }
}

impl std::error::Error for IllegalMove {}

/// Where each kind of the side to move's pieces would check the enemy king
/// (`Position::check_squares`), gathered once per node.
///
/// The occupancy before the move is the right one for direct checks: the
/// only square a move empties that could lie between its destination and
/// the king is its origin, and then the piece moved straight away from the
/// king along that line, so it was already a slider on it with the king in
/// its view, which cannot be with the mover to play.
#[derive(Clone, Copy, Debug)]
pub struct CheckSquares {
    king: Option<Square>,
    by_kind: [Bitboard; PieceType::NUM],
    /// Pieces (of either side) alone between the enemy king and one of the
    /// mover's sliders: moving ours off the line discovers check.
    discoverers: Bitboard,
}

impl CheckSquares {
    /// The squares from which a piece of the mover of kind `pt` checks.
    #[inline(always)]
    pub fn squares(&self, pt: PieceType) -> Bitboard {
        self.by_kind[pt as usize]
    }

    /// Pieces (of either side) alone between the enemy king and one of the
    /// mover's sliders.
    #[inline(always)]
    pub fn discoverers(&self) -> Bitboard {
        self.discoverers
    }

    /// `Position::gives_check(m)` for the position these were taken from.
    #[inline(always)]
    pub fn gives_check(&self, pos: &Position, m: Move) -> bool {
        let Some(ksq) = self.king else {
            return false;
        };
        let to = m.to();
        if m.is_drop() {
            return self.by_kind[m.dropped() as usize].contains(to);
        }
        let from = m.from();
        let pt = pos.piece_on(from).kind();
        let pt = if m.is_promotion() { pt.promote() } else { pt };
        self.by_kind[pt as usize].contains(to)
            || (self.discoverers.contains(from) && !bitboard::same_ray(ksq, from, to))
    }
}

/// What legality tests of one position share (see `Position::is_legal_in`).
#[derive(Clone, Copy, Debug)]
pub struct LegalityContext {
    king: Option<Square>,
    pinned: Bitboard,
    pawn_check_square: Option<Square>,
}

/// Parses the text of a USI move (`7g7f`, `8h2b+`, `P*5e`) without checking
/// it against a position.
pub fn parse_usi_move_text(s: &str) -> Option<Move> {
    let b = s.as_bytes();
    match b {
        [p, b'*', f, r] => {
            let pt = PieceType::from_letter(*p)?;
            if pt == PieceType::King {
                return None;
            }
            let to = std::str::from_utf8(&[*f, *r]).ok()?.parse().ok()?;
            Some(Move::drop(pt, to))
        }
        [f1, r1, f2, r2, rest @ ..] => {
            let promote = match rest {
                [] => false,
                [b'+'] => true,
                _ => return None,
            };
            let from: Square = std::str::from_utf8(&[*f1, *r1]).ok()?.parse().ok()?;
            let to: Square = std::str::from_utf8(&[*f2, *r2]).ok()?.parse().ok()?;
            if from == to {
                return None;
            }
            Some(Move::normal(from, to, promote))
        }
        _ => None,
    }
}

#[inline(always)]
fn is_gold_like(pt: PieceType) -> bool {
    matches!(
        pt,
        PieceType::Gold
            | PieceType::ProPawn
            | PieceType::ProLance
            | PieceType::ProKnight
            | PieceType::ProSilver
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_set_keys_follow_the_pieces_they_name() {
        let mut pos = Position::startpos();
        let start = pos.piece_set_keys();
        // Pawn moves touch no piece set.
        for m in ["7g7f", "3c3d"] {
            pos.do_move(pos.parse_usi_move(m).unwrap());
        }
        assert_eq!(pos.piece_set_keys(), start);
        // A bishop takes a bishop and promotes: no minor piece moved, both
        // sides' non-pawn pieces changed.
        pos.do_move(pos.parse_usi_move("8h2b+").unwrap());
        let exchanged = pos.piece_set_keys();
        assert_eq!(exchanged.minor, start.minor);
        assert_ne!(exchanged.non_pawn[0], start.non_pawn[0]);
        assert_ne!(exchanged.non_pawn[1], start.non_pawn[1]);
        // A silver takes the horse: the minor pieces change too.
        pos.do_move(pos.parse_usi_move("3a2b").unwrap());
        let retaken = pos.piece_set_keys();
        assert_ne!(retaken.minor, exchanged.minor);
        assert_ne!(retaken.non_pawn[0], exchanged.non_pawn[0]);
        assert_ne!(retaken.non_pawn[1], exchanged.non_pawn[1]);
        // Incremental keys equal a recomputation, the same board reached
        // by set-up has the same keys, and undoing restores them.
        assert_eq!(retaken, pos.compute_set_keys());
        let again = Position::from_sfen(&pos.to_sfen()).unwrap();
        assert_eq!(again.piece_set_keys(), retaken);
        pos.undo_move(pos.last_move());
        assert_eq!(pos.piece_set_keys(), exchanged);
    }

    #[test]
    fn do_undo_restores_key_and_board() {
        let mut pos = Position::startpos();
        let key = pos.key();
        let sfen = pos.to_sfen();
        let moves = ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"];
        let mut played = Vec::new();
        for m in moves {
            let mv = pos.parse_usi_move(m).unwrap_or_else(|| panic!("{m} legal"));
            pos.do_move(mv);
            played.push(mv);
            assert_eq!(
                pos.key(),
                pos.compute_keys().0 ^ pos.compute_keys().1,
                "after {m}"
            );
        }
        for mv in played.into_iter().rev() {
            pos.undo_move(mv);
        }
        assert_eq!(pos.key(), key);
        assert_eq!(pos.to_sfen(), sfen);
    }

    #[test]
    fn key_after_matches_do_move() {
        let mut pos = Position::startpos();
        for m in ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"] {
            let mv = pos.parse_usi_move(m).unwrap();
            let predicted = pos.key_after(mv);
            let predicted_board = pos.board_key_after(mv);
            pos.do_move(mv);
            assert_eq!(pos.key(), predicted);
            assert_eq!(pos.board_key(), predicted_board);
        }
    }

    #[test]
    fn incremental_checkers_and_blockers_match_a_full_scan() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        for _ in 0..200 {
            let mut pos = Position::startpos();
            for _ in 0..150 {
                let moves = crate::movegen::legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                pos.do_move(moves[rng.gen_range(0..moves.len())]);
                let us = pos.side_to_move();
                let k = pos.king_square(us).unwrap();
                assert_eq!(
                    pos.checkers(),
                    pos.attackers_to(!us, k, pos.occupied()),
                    "{}",
                    pos.to_sfen()
                );
                for c in Color::ALL {
                    let k = pos.king_square(c).unwrap();
                    assert_eq!(pos.blockers_for_king(c), pos.slider_blockers(c, k));
                }
            }
        }
    }

    #[test]
    fn usi_move_text() {
        assert_eq!(parse_usi_move_text("7g7f").unwrap().to_string(), "7g7f");
        assert_eq!(parse_usi_move_text("P*5e").unwrap().to_string(), "P*5e");
        assert!(parse_usi_move_text("K*5e").is_none());
        assert!(parse_usi_move_text("7g7g").is_none());
        assert!(parse_usi_move_text("7g7f=").is_none());
        assert!(parse_usi_move_text("").is_none());
    }

    #[test]
    fn try_do_move_plays_legal_moves_and_refuses_the_rest() {
        let mut pos = Position::startpos();
        let key = pos.key();
        // Not pseudo-legal (no piece moves so), illegal (a pawn drop with
        // none in hand), and no move at all: each refused, nothing changed.
        for m in [
            parse_usi_move_text("7g7e").unwrap(),
            parse_usi_move_text("P*5e").unwrap(),
            Move::NONE,
        ] {
            assert_eq!(pos.try_do_move(m), Err(IllegalMove(m)));
            assert_eq!(pos.key(), key);
            assert_eq!(pos.moves_played(), 0);
        }
        let m = parse_usi_move_text("7g7f").unwrap();
        assert_eq!(pos.try_do_move(m), Ok(()));
        assert_eq!(pos.last_move(), m);
    }

    /// The per-node check squares agree with `gives_check` on every legal
    /// move of the random perft positions and of their children.
    #[test]
    fn check_squares_agree_with_gives_check() {
        let mut checked = 0;
        let mut checks = 0;
        let agree = |pos: &mut Position| {
            let squares = pos.check_squares();
            for &m in crate::movegen::legal_moves(pos).iter() {
                let expected = pos.gives_check(m);
                assert_eq!(
                    squares.gives_check(pos, m),
                    expected,
                    "{} {m}",
                    pos.to_sfen()
                );
                checked += 1;
                checks += expected as usize;
            }
        };
        crate::testing::for_random_positions_and_children(agree);
        assert!(
            checked > 100_000 && checks > 1_000,
            "{checked} moves, {checks} checks"
        );
    }

    /// `all_attackers_to` is the union of both colours' `attackers_to` on
    /// every square of the random perft positions.
    #[test]
    fn all_attackers_are_both_colours_attackers() {
        for pos in crate::testing::random_positions() {
            let occ = pos.occupied();
            for sq in (0..Square::NUM).map(Square::from_index) {
                let both = pos.attackers_to(Color::Black, sq, occ)
                    | pos.attackers_to(Color::White, sq, occ);
                assert_eq!(
                    pos.all_attackers_to(sq, occ),
                    both,
                    "{} {sq}",
                    pos.to_sfen()
                );
            }
        }
    }

    #[test]
    fn gives_check_direct_and_discovered() {
        // Black lance on 5i behind a black silver on 5f, white king on 5a.
        let pos = Position::from_sfen("4k4/9/9/9/9/4S4/9/9/4L3K b - 1").unwrap();
        let discover = pos.parse_usi_move("5f4e").unwrap();
        assert!(pos.gives_check(discover));
        let stay = pos.parse_usi_move("5f5e").unwrap();
        assert!(!pos.gives_check(stay));
        let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/8K b G 1").unwrap();
        assert!(pos.gives_check(Move::drop(PieceType::Gold, "5b".parse().unwrap())));
        assert!(!pos.gives_check(Move::drop(PieceType::Gold, "5c".parse().unwrap())));
    }
}
