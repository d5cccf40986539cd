//! Which book moves may be played in a position, and the choice among them.
//!
//! The options follow YaneuraOu's: entries shallower than `BookDepthLimit`
//! are ignored, a side does not play a move worth less than its
//! `BookEval…Limit`, and only moves within `BookEvalDiff` of the best one
//! remain; among those the choice is uniform, or weighted by how often each
//! was played (`ConsiderBookMoveCount`). Every move and ponder move is
//! checked for legality first: a book is data, never trusted.

use super::{Book, BookMove};
use crate::position::Position;
use crate::types::{Color, Move, Value};
use rand::Rng;

/// The book options, as the USI options set them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookSettings {
    /// Keep moves whose value is at least the best value minus this.
    pub eval_diff: Value,
    /// Black plays no book move worth less than this.
    pub black_limit: Value,
    /// White plays no book move worth less than this.
    pub white_limit: Value,
    /// Ignore entries searched shallower than this (0: no limit).
    pub depth_limit: u16,
    /// Choose in proportion to the counts rather than uniformly.
    pub consider_count: bool,
    /// Also look up the colour-flipped position.
    pub flipped: bool,
    /// Longest PV shown for a book move (the move, then the book's best
    /// replies as far as it knows them).
    pub pv_moves: usize,
}

impl Default for BookSettings {
    fn default() -> Self {
        BookSettings {
            eval_diff: 30,
            black_limit: 0,
            white_limit: -140,
            depth_limit: 0,
            consider_count: false,
            flipped: true,
            pv_moves: 8,
        }
    }
}

/// A book move that may be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The entry; its ponder move is `Move::NONE` unless legal.
    pub entry: BookMove,
    /// The move, then the book's line after it (at most `pv_moves`).
    pub pv: Vec<Move>,
}

impl Candidate {
    /// The reply to ponder on: the entry's, else the PV's second move.
    pub fn ponder(&self) -> Option<Move> {
        Some(self.entry.ponder)
            .filter(|m| m.is_some())
            .or_else(|| self.pv.get(1).copied())
    }
}

impl Book {
    /// The moves that may be played in `pos` under `settings`, best value
    /// first (then most played).
    pub fn candidates(&self, pos: &Position, settings: &BookSettings) -> Vec<Candidate> {
        let limit = match pos.side_to_move() {
            Color::Black => settings.black_limit,
            Color::White => settings.white_limit,
        };
        let mut moves: Vec<BookMove> = self
            .lookup(pos, settings.flipped)
            .into_iter()
            .filter(|m| m.depth >= settings.depth_limit && m.value >= limit)
            .filter(|m| pos.is_legal_move(m.mv))
            .collect();
        let Some(best) = moves.iter().map(|m| m.value).max() else {
            return Vec::new();
        };
        moves.retain(|m| m.value >= best.saturating_sub(settings.eval_diff.max(0)));
        moves.sort_by_key(|m| std::cmp::Reverse((m.value, m.count)));
        moves
            .into_iter()
            .map(|mut entry| {
                let mut after = pos.clone();
                after.do_move(entry.mv);
                if !after.is_legal_move(entry.ponder) {
                    entry.ponder = Move::NONE;
                }
                let mut pv = vec![entry.mv];
                self.extend_pv(&mut after, entry.ponder, settings, &mut pv);
                Candidate { entry, pv }
            })
            .collect()
    }

    /// Follows the book's best legal move from `pos` until `pv` is
    /// `settings.pv_moves` long or the book runs out; `ponder` (legal in
    /// `pos`) stands in for a first reply the book does not know.
    fn extend_pv(
        &self,
        pos: &mut Position,
        ponder: Move,
        settings: &BookSettings,
        pv: &mut Vec<Move>,
    ) {
        while pv.len() < settings.pv_moves {
            let best = self
                .lookup(pos, settings.flipped)
                .into_iter()
                .filter(|m| pos.is_legal_move(m.mv))
                .max_by_key(|m| (m.value, m.count))
                .map(|m| m.mv);
            let next = match best {
                Some(m) => m,
                None if pv.len() == 1 && ponder.is_some() => ponder,
                None => return,
            };
            pv.push(next);
            pos.do_move(next);
        }
    }
}

/// Index of the candidate to play: uniform, or in proportion to the
/// counts with `consider_count` (uniform again when every count is 0).
pub fn choose(candidates: &[Candidate], consider_count: bool, rng: &mut impl Rng) -> Option<usize> {
    if candidates.is_empty() {
        return None;
    }
    let total: u64 = candidates.iter().map(|c| c.entry.count as u64).sum();
    if !consider_count || total == 0 {
        return Some(rng.gen_range(0..candidates.len()));
    }
    let mut pick = rng.gen_range(0..total);
    for (i, c) in candidates.iter().enumerate() {
        let w = c.entry.count as u64;
        if pick < w {
            return Some(i);
        }
        pick -= w;
    }
    Some(candidates.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::BookKey;
    use crate::position::parse_usi_move_text;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    fn entry(mv: &str, ponder: &str, value: Value, depth: u16, count: u32) -> BookMove {
        BookMove {
            mv: parse_usi_move_text(mv).unwrap(),
            ponder: parse_usi_move_text(ponder).unwrap_or(Move::NONE),
            value,
            depth,
            count,
        }
    }

    fn book() -> Book {
        let start = Position::startpos();
        let mut after = start.clone();
        after.do_move(after.parse_usi_move("7g7f").unwrap());
        Book::from_entries(vec![
            (
                BookKey::of(&start, false),
                vec![
                    entry("7g7f", "3c3d", 50, 20, 10),
                    entry("2g2f", "8c8d", 40, 10, 30),
                    entry("5g5f", "none", 0, 20, 1),
                    entry("5a4b", "none", 99, 20, 1), // not legal: a white move
                ],
            ),
            (
                BookKey::of(&after, false),
                vec![entry("8c8d", "none", -50, 20, 1)],
            ),
        ])
    }

    fn moves(c: &[Candidate]) -> Vec<String> {
        c.iter().map(|c| c.entry.mv.to_string()).collect()
    }

    #[test]
    fn the_options_filter_the_candidates() {
        let pos = Position::startpos();
        let b = book();
        let s = BookSettings::default();
        assert_eq!(moves(&b.candidates(&pos, &s)), ["7g7f", "2g2f"]);
        let wide = BookSettings {
            eval_diff: 100,
            ..s
        };
        assert_eq!(moves(&b.candidates(&pos, &wide)), ["7g7f", "2g2f", "5g5f"]);
        let deep = BookSettings {
            depth_limit: 16,
            ..wide
        };
        assert_eq!(moves(&b.candidates(&pos, &deep)), ["7g7f", "5g5f"]);
        let proud = BookSettings {
            black_limit: 45,
            ..wide
        };
        assert_eq!(moves(&b.candidates(&pos, &proud)), ["7g7f"]);
        let none = BookSettings {
            black_limit: 60,
            ..wide
        };
        assert!(b.candidates(&pos, &none).is_empty());
    }

    #[test]
    fn ponder_moves_are_checked_and_the_pv_follows_the_book() {
        let pos = Position::startpos();
        let c = book().candidates(&pos, &BookSettings::default());
        // 7g7f: the book knows 8c8d after it, better than the entry's ponder.
        assert_eq!(moves(&c[..1]), ["7g7f"]);
        let pv: Vec<String> = c[0].pv.iter().map(|m| m.to_string()).collect();
        assert_eq!(pv, ["7g7f", "8c8d"]);
        assert_eq!(c[0].ponder().unwrap().to_string(), "3c3d");
        // 2g2f: the book knows nothing after it; the ponder move fills in.
        let pv: Vec<String> = c[1].pv.iter().map(|m| m.to_string()).collect();
        assert_eq!(pv, ["2g2f", "8c8d"]);
        let short = BookSettings {
            pv_moves: 1,
            ..BookSettings::default()
        };
        assert_eq!(book().candidates(&pos, &short)[0].pv.len(), 1);
    }

    #[test]
    fn an_illegal_ponder_move_is_dropped() {
        let pos = Position::startpos();
        let b = Book::from_entries(vec![(
            BookKey::of(&pos, false),
            vec![entry("7g7f", "7g7f", 0, 0, 1)],
        )]);
        let c = b.candidates(&pos, &BookSettings::default());
        assert_eq!(c[0].entry.ponder, Move::NONE);
        assert_eq!(c[0].ponder(), None);
    }

    #[test]
    fn counts_weigh_the_choice() {
        let pos = Position::startpos();
        let s = BookSettings::default();
        let c = book().candidates(&pos, &s);
        let mut rng = StdRng::seed_from_u64(7);
        let mut picks = [0; 2];
        for _ in 0..4000 {
            picks[choose(&c, true, &mut rng).unwrap()] += 1;
        }
        // Counts 10 and 30: about a quarter and three quarters.
        assert!((800..1200).contains(&picks[0]), "{picks:?}");
        let mut picks = [0; 2];
        for _ in 0..4000 {
            picks[choose(&c, false, &mut rng).unwrap()] += 1;
        }
        assert!((1800..2200).contains(&picks[0]), "{picks:?}");
        assert_eq!(choose(&[], true, &mut rng), None);
    }
}
