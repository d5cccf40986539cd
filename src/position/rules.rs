//! Rules that look beyond the board: repetition (sennichite), perpetual
//! check, superior/inferior recurrences, and the entering-king declaration.

use super::Position;
use crate::bitboard::{self, Bitboard};
use crate::types::{Color, Hand, Move, PieceType, Square};

/// What the history says about the current position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// No earlier occurrence that matters.
    None,
    /// Sennichite: a draw.
    Draw,
    /// The opponent gave check with every move of the cycle: the side to
    /// move wins.
    Win,
    /// The side to move gave check with every move of the cycle: it loses.
    Loss,
    /// The same board recurred and the side to move now holds strictly more
    /// in hand: the cycle gained it material.
    Superior,
    /// The same board recurred and the side to move holds strictly less.
    Inferior,
}

/// Which entering-king (nyugyoku) declaration rule is in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EnteringKingRule {
    /// No declaration.
    None,
    /// The CSA 27-point rule: 28 points for Black, 27 for White.
    #[default]
    Csa27,
    /// The 24-point rule: 31 points wins (24–30 would be a draw).
    Csa24,
    /// The 24-point rule for handicap games: White (the stronger side,
    /// who gave pieces, as YaneuraOu and AobaZero count it) needs as many
    /// points fewer as the set lacks.
    Csa24Handicap,
    /// The 27-point rule for handicap games, adjusted the same way.
    Csa27Handicap,
    /// The try rule: a king that moves to the enemy king's starting
    /// square (5a for Black, 5i for White) without being attacked there
    /// wins.
    Try,
}

/// Points of a full set of pieces, kings included (each side 18 small
/// pieces, a king and two big ones): what the handicap rules compare with.
const FULL_SET_POINTS: u32 = 56;

/// How far beyond the search tree `repetition` looks back into the game
/// record: cycles of up to ten plies repeated four times fit, and a long
/// game does not make every node slower.
pub const REPETITION_WINDOW: usize = 32;

/// Plies of room reserved in a search copy for the moves the search makes.
const SEARCH_PLY_ROOM: usize = 256;

/// Buckets of [`KeyCounts`]: a few times the states a search walks back
/// through, so most positions find their bucket holding only themselves.
const KEY_BUCKETS: usize = 1024;

/// How many of the recorded states fall in each bucket of board keys
/// (their top bits). A position alone in its bucket has no earlier state
/// with its board, so [`Position::repetition`] answers without walking
/// back through the states: most nodes of a search, which asked that walk
/// at every node (2-3 % of its time). Counts wrap at 65,536 states in one
/// bucket, beyond any game.
#[derive(Clone)]
pub(super) struct KeyCounts([u16; KEY_BUCKETS]);

impl KeyCounts {
    #[inline(always)]
    fn bucket(board_key: u64) -> usize {
        (board_key >> (64 - KEY_BUCKETS.trailing_zeros())) as usize
    }

    /// The counts of `states`' board keys.
    pub(super) fn of(states: &[super::StateInfo]) -> KeyCounts {
        let mut counts = KeyCounts([0; KEY_BUCKETS]);
        for st in states {
            counts.add(st.board_key);
        }
        counts
    }

    #[inline(always)]
    pub(super) fn add(&mut self, board_key: u64) {
        let c = &mut self.0[Self::bucket(board_key)];
        *c = c.wrapping_add(1);
    }

    #[inline(always)]
    pub(super) fn remove(&mut self, board_key: u64) {
        let c = &mut self.0[Self::bucket(board_key)];
        *c = c.wrapping_sub(1);
    }

    /// Whether the current state's bucket holds as many states as it should
    /// (the invariant check; one bucket, as a full count would slow the
    /// checked profile down at every move).
    pub(super) fn agrees_with(&self, states: &[super::StateInfo]) -> bool {
        let Some(last) = states.last() else {
            return true;
        };
        let bucket = Self::bucket(last.board_key);
        let n = states
            .iter()
            .filter(|st| Self::bucket(st.board_key) == bucket)
            .count();
        self.0[bucket] == n as u16
    }

    /// Whether a state besides the current one may share its board key.
    #[inline(always)]
    fn may_recur(&self, board_key: u64) -> bool {
        self.0[Self::bucket(board_key)] != 1
    }
}

impl Position {
    /// A copy for a search thread: the same position with only the part
    /// of the game record that [`Position::repetition`] can reach from a
    /// search rooted here (`REPETITION_WINDOW` plies). Every search thread
    /// takes one, so a long game must not be copied whole each time;
    /// searching the copy gives the same results.
    pub fn search_copy(&self) -> Position {
        let keep = self.states.len().min(REPETITION_WINDOW + 1);
        let mut states = Vec::with_capacity(keep + SEARCH_PLY_ROOM);
        states.extend_from_slice(&self.states[self.states.len() - keep..]);
        Position {
            key_counts: KeyCounts::of(&states),
            board: self.board,
            by_color: self.by_color,
            by_type: self.by_type,
            golds: self.golds,
            hands: self.hands,
            king_sq: self.king_sq,
            side_to_move: self.side_to_move,
            game_ply: self.game_ply,
            states,
        }
    }

    /// Classifies the current position against its history.
    ///
    /// `search_ply` is how many of the latest moves were made by a search:
    /// an earlier occurrence inside that window counts at once (the search
    /// treats the first recurrence as the cycle it will become); one that
    /// reaches back into the game record needs the rule's fourth occurrence.
    /// Perpetual check wins or loses in either case. The look-back ends
    /// `REPETITION_WINDOW` plies before the search tree.
    pub fn repetition(&self, search_ply: usize) -> Repetition {
        let n = self.states.len();
        let st = &self.states[n - 1];
        if !self.key_counts.may_recur(st.board_key) {
            return Repetition::None;
        }
        let us = self.side_to_move;
        let limit = (st.plies_from_null as usize)
            .min(n - 1)
            .min(search_ply + REPETITION_WINDOW);
        let mut occurrences = 0;
        let mut i = 4;
        while i <= limit {
            let prev = &self.states[n - 1 - i];
            if prev.board_key == st.board_key {
                if prev.hand == st.hand {
                    occurrences += 1;
                    if i <= search_ply || occurrences == 3 {
                        if i <= st.continuous_check[(!us).index()] as usize {
                            return Repetition::Win;
                        }
                        if i <= st.continuous_check[us.index()] as usize {
                            return Repetition::Loss;
                        }
                        return Repetition::Draw;
                    }
                } else if st.hand.is_superset_of(prev.hand) {
                    return Repetition::Superior;
                } else if prev.hand.is_superset_of(st.hand) {
                    return Repetition::Inferior;
                }
            }
            i += 2;
        }
        Repetition::None
    }

    /// Points and piece count of `c`'s declaration: (pieces in the enemy
    /// camp besides the king, points counting the hand).
    pub fn declaration_points(&self, c: Color) -> (u32, u32) {
        let mut in_camp = bitboard::promotion_zone(c) & self.pieces_of(c);
        if let Some(k) = self.king_square(c) {
            in_camp = in_camp.without(k);
        }
        let points = self.board_points(in_camp) + hand_points(self.hand(c));
        (in_camp.count(), points)
    }

    /// Declaration points of `pieces` on the board: rook and bishop kinds 5,
    /// every other piece 1.
    fn board_points(&self, pieces: Bitboard) -> u32 {
        let big = self.pieces_of_type(PieceType::Bishop)
            | self.pieces_of_type(PieceType::Rook)
            | self.pieces_of_type(PieceType::Horse)
            | self.pieces_of_type(PieceType::Dragon);
        pieces.count() + 4 * (pieces & big).count()
    }

    /// Whether the side to move may declare a win by entering king under
    /// `rule`: king in the enemy camp, not in check, ten or more other
    /// pieces there, and enough points (rook/bishop kinds 5, others 1,
    /// pieces in hand included).
    ///
    /// Under the try rule, whether the side to move has the winning king
    /// move (see [`Position::try_rule_move`]).
    pub fn can_declare_win(&self, rule: EnteringKingRule) -> bool {
        let us = self.side_to_move;
        if rule == EnteringKingRule::None {
            return false;
        }
        if rule == EnteringKingRule::Try {
            return self.try_rule_move().is_some();
        }
        let Some(ksq) = self.king_square(us) else {
            return false;
        };
        if !ksq.in_promotion_zone(us) || self.in_check() {
            return false;
        }
        let (count, points) = self.declaration_points(us);
        count >= 10 && points >= self.declaration_threshold(rule, us)
    }

    /// Points `c` needs to declare under a point rule.
    fn declaration_threshold(&self, rule: EnteringKingRule, c: Color) -> u32 {
        let (black, white): (u32, u32) = match rule {
            EnteringKingRule::Csa24 | EnteringKingRule::Csa24Handicap => (31, 31),
            _ => (28, 27),
        };
        let handicap = matches!(
            rule,
            EnteringKingRule::Csa24Handicap | EnteringKingRule::Csa27Handicap
        );
        match c {
            Color::Black => black,
            // The points missing from the set are White's (the giver's).
            Color::White if handicap => {
                white.saturating_sub(FULL_SET_POINTS.saturating_sub(self.total_points()))
            }
            Color::White => white,
        }
    }

    /// Points of every piece in the game, both sides, on the board (kings
    /// included) and in hand: 56 with a full set, fewer in a handicap game.
    fn total_points(&self) -> u32 {
        self.board_points(self.occupied())
            + hand_points(self.hand(Color::Black))
            + hand_points(self.hand(Color::White))
    }

    /// Under the try rule, the king move that wins now: to the enemy
    /// king's starting square (5a for Black, 5i for White), next to the
    /// king, not held by one of our pieces, and not attacked once the king
    /// stands there (a legal king move).
    pub fn try_rule_move(&self) -> Option<Move> {
        let us = self.side_to_move;
        let ksq = self.king_square(us)?;
        let target = match us {
            Color::Black => Square::from_file_rank(4, 0),
            Color::White => Square::from_file_rank(4, 8),
        };
        if !bitboard::king_attacks(ksq).contains(target) {
            return None;
        }
        let m = Move::normal(ksq, target, false);
        self.is_legal_move(m).then_some(m)
    }
}

/// Declaration points of a hand: rooks and bishops 5, other pieces 1.
fn hand_points(hand: Hand) -> u32 {
    hand.total() + 4 * (hand.count(PieceType::Bishop) + hand.count(PieceType::Rook))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Move;

    fn play(pos: &mut Position, moves: &[&str]) {
        for m in moves {
            let mv = pos
                .parse_usi_move(m)
                .unwrap_or_else(|| panic!("{m} should be legal"));
            pos.do_move(mv);
        }
    }

    #[test]
    fn fourfold_repetition_is_a_draw() {
        let mut pos = Position::startpos();
        let cycle = ["5i5h", "5a5b", "5h5i", "5b5a"];
        for round in 0..3 {
            play(&mut pos, &cycle);
            // The game record needs the fourth occurrence…
            let expect = if round < 2 {
                Repetition::None
            } else {
                Repetition::Draw
            };
            assert_eq!(pos.repetition(0), expect, "round {round}");
        }
        // …while a search counts the first recurrence.
        let mut pos = Position::startpos();
        play(&mut pos, &cycle);
        assert_eq!(pos.repetition(4), Repetition::Draw);
    }

    #[test]
    fn a_search_copy_sees_the_same_repetitions() {
        let mut pos = Position::startpos();
        play(&mut pos, &["7g7f", "3c3d"]);
        let cycle = ["5i5h", "5a5b", "5h5i", "5b5a"];
        for _ in 0..50 {
            play(&mut pos, &cycle);
        }
        let mut copy = pos.search_copy();
        assert_eq!(copy.states.len(), REPETITION_WINDOW + 1);
        assert_eq!((copy.key(), copy.to_sfen()), (pos.key(), pos.to_sfen()));
        // Along a line searched from here, every answer is the same.
        let line = [
            "5i5h", "5a5b", "5h5i", "5b5a", "2g2f", "8c8d", "5i5h", "5a5b",
        ];
        for (ply, m) in line.iter().enumerate() {
            assert_eq!(copy.repetition(ply), pos.repetition(ply), "ply {ply}");
            play(&mut pos, &[m]);
            play(&mut copy, &[m]);
        }
        assert_eq!(copy.repetition(line.len()), pos.repetition(line.len()));
    }

    /// The board-key counts follow moves, null moves and take-backs, and
    /// the search copy recounts its shorter record.
    #[test]
    fn key_counts_follow_the_states() {
        let recount = |p: &Position| KeyCounts::of(&p.states).0 == p.key_counts.0;
        let mut pos = Position::startpos();
        let cycle = ["5i5h", "5a5b", "5h5i", "5b5a"];
        for _ in 0..20 {
            play(&mut pos, &cycle);
        }
        assert!(recount(&pos) && pos.key_counts.may_recur(pos.board_key()));
        pos.do_null_move();
        assert!(recount(&pos));
        let m = pos.parse_usi_move("5a4b").unwrap();
        pos.do_move(m);
        assert!(recount(&pos));
        pos.undo_move(m);
        pos.undo_null_move();
        assert!(recount(&pos));
        let copy = pos.search_copy();
        assert!(recount(&copy) && copy.states.len() < pos.states.len());
        // A fresh position: its one state is alone in its bucket.
        let fresh = Position::startpos();
        assert!(recount(&fresh) && !fresh.key_counts.may_recur(fresh.board_key()));
    }

    #[test]
    fn perpetual_check_loses_for_the_checker() {
        // The black rook checks on files 9 and 8 while the king shuttles.
        let mut pos = Position::from_sfen("k8/9/9/9/9/9/9/9/1R6K b - 1").unwrap();
        for m in ["8i9i", "9a8a", "9i8i", "8a9a"] {
            let mv = pos.parse_usi_move(m).unwrap();
            if pos.side_to_move() == Color::Black {
                assert!(pos.gives_check(mv), "{m} checks");
            }
            pos.do_move(mv);
        }
        // Black, the checker, is to move in the repeated position: it loses.
        assert_eq!(pos.repetition(4), Repetition::Loss);
        play(&mut pos, &["8i9i"]);
        // White to move after Black's check: White wins.
        assert_eq!(pos.repetition(4), Repetition::Win);
    }

    #[test]
    fn superior_and_inferior_hands() {
        // White drops a pawn, Black takes it and both return: same board,
        // White's pawn is gone from its hand.
        let mut pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/K4R3 w p 1").unwrap();
        let drop = Move::drop(PieceType::Pawn, "4e".parse().unwrap());
        pos.do_move(drop);
        play(&mut pos, &["4i4e", "5a5b", "4e4h", "5b5a", "4h4i"]);
        assert_eq!(pos.repetition(6), Repetition::Inferior);
        play(&mut pos, &["5a5b", "9i9h", "5b5a", "9h9i"]);
        // White to move in the position of four plies ago.
        assert_eq!(pos.repetition(10), Repetition::Draw);
    }

    #[test]
    fn handicap_rules_lower_white_s_threshold() {
        let even = Position::startpos();
        let two =
            Position::from_sfen("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
                .unwrap();
        let four =
            Position::from_sfen("1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
                .unwrap();
        let t = |p: &Position, r, c| p.declaration_threshold(r, c);
        use EnteringKingRule::*;
        assert_eq!(
            (
                t(&even, Csa27Handicap, Color::Black),
                t(&even, Csa27Handicap, Color::White)
            ),
            (28, 27)
        );
        assert_eq!(
            (
                t(&two, Csa27Handicap, Color::Black),
                t(&two, Csa27Handicap, Color::White)
            ),
            (28, 17)
        );
        assert_eq!(t(&four, Csa27Handicap, Color::White), 15);
        assert_eq!(t(&two, Csa24Handicap, Color::White), 21);
        assert_eq!(t(&four, Csa24Handicap, Color::White), 19);
        assert_eq!(
            (t(&two, Csa27, Color::White), t(&two, Csa24, Color::White)),
            (27, 31)
        );
    }

    #[test]
    fn try_rule_king_reaches_the_enemy_king_square() {
        // Black king on 5b, 5a empty and unattacked.
        let pos = Position::from_sfen("9/4K4/9/9/9/9/9/9/k8 b - 1").unwrap();
        assert_eq!(
            pos.try_rule_move().map(|m| m.to_string()).as_deref(),
            Some("5b5a")
        );
        assert!(pos.can_declare_win(EnteringKingRule::Try));
        assert!(!pos.can_declare_win(EnteringKingRule::Csa27));
        // 5a guarded by a white gold on 4a: no try.
        let pos = Position::from_sfen("5g3/4K4/9/9/9/9/9/9/k8 b - 1").unwrap();
        assert_eq!(pos.try_rule_move(), None);
        // White's try square is 5i.
        let pos = Position::from_sfen("K8/9/9/9/9/9/9/3k5/9 w - 1").unwrap();
        assert_eq!(
            pos.try_rule_move().map(|m| m.to_string()).as_deref(),
            Some("6h5i")
        );
    }

    #[test]
    fn declaration_27_points() {
        // Black king on 5b with a crowd of pieces in White's camp.
        let sfen = "+R+B+P+P+P+P+P+P+P/1+P+P+PK4/9/9/9/9/9/9/4k4 b RBGGGGSSSS 1";
        let pos = Position::from_sfen(sfen).unwrap();
        assert_eq!(pos.declaration_points(Color::Black), (12, 38));
        assert!(pos.can_declare_win(EnteringKingRule::Csa27));
        assert!(pos.can_declare_win(EnteringKingRule::Csa24));
        assert!(!pos.can_declare_win(EnteringKingRule::None));
        // Without the hand: 20 points, short of 28.
        let short = "+R+B+P+P+P+P+P+P+P/1+P+P+PK4/9/9/9/9/9/9/4k4 b - 1";
        let pos = Position::from_sfen(short).unwrap();
        assert!(!pos.can_declare_win(EnteringKingRule::Csa27));
        let pos = Position::startpos();
        assert!(!pos.can_declare_win(EnteringKingRule::Csa27));
    }
}
