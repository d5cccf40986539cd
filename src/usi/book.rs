//! The engine's own book: loaded at `isready` when `BookFile` changed, and
//! consulted at `go` before any search.

use super::go::GoCommand;
use super::options::Options;
use super::output::Output;
use crate::book::select::choose;
use crate::book::{format, Book, Candidate};
use crate::position::Position;
use std::path::Path;

/// The book in use and the file it came from.
#[derive(Default)]
pub struct OwnBook {
    /// The file `book` was read from; `None` when no book is loaded.
    file: Option<String>,
    book: Book,
}

/// What a book hit answers: the candidates' `info` lines, then `bestmove`.
pub struct BookAnswer {
    /// `info multipv …` lines, the move to be played first.
    pub info: Vec<String>,
    /// The `bestmove …` line.
    pub bestmove: String,
}

impl OwnBook {
    /// At `isready`: loads the book file named by the options if it is not
    /// the one loaded (a missing or bad file is reported, and the engine
    /// plays on without a book; it is tried again at the next `isready`).
    pub fn prepare(&mut self, options: &Options, out: &Output) {
        let wanted = options.book_file();
        if wanted == self.file {
            return;
        }
        self.file = None;
        self.book = Book::default();
        let Some(name) = wanted else {
            return;
        };
        match format::load(Path::new(&name)) {
            Ok(loaded) => {
                out.info_string(&format!(
                    "book {name}: {} positions, {} moves, loaded in {} ms",
                    loaded.book.positions(),
                    loaded.book.move_count(),
                    loaded.elapsed.as_millis()
                ));
                if let Some(problem) = &loaded.first_problem {
                    out.info_string(&format!(
                        "book {name}: {} malformed lines skipped (first at {problem})",
                        loaded.skipped
                    ));
                }
                self.book = loaded.book;
                self.file = Some(name);
            }
            Err(e) => out.error(&format!("book not loaded: {e}; playing without a book")),
        }
    }

    /// The book's answer to `command` in `pos`, if the book is to be used
    /// (`USI_OwnBook`, within `BookMoves`, not for analysis: `go infinite`,
    /// `go mate`, `searchmoves` and `ConsiderationMode` always search) and
    /// holds a playable move.
    pub fn answer(
        &self,
        pos: &Position,
        command: &GoCommand,
        options: &Options,
    ) -> Option<BookAnswer> {
        let usable = self.file.is_some()
            && options.book_file() == self.file
            && pos.game_ply() <= options.book_moves()
            && !command.infinite
            && !options.check("ConsiderationMode")
            && command.mate.is_none()
            && command.searchmoves.is_empty();
        if !usable {
            return None;
        }
        let settings = options.book_settings();
        let mut candidates = self.book.candidates(pos, &settings);
        let chosen = choose(
            &candidates,
            settings.consider_count,
            &mut rand::thread_rng(),
        )?;
        // The move played is shown first (multipv 1): GUIs take its line
        // as the engine's evaluation.
        let played = candidates.remove(chosen);
        candidates.insert(0, played);
        let info = candidates.iter().enumerate().map(info_line).collect();
        let best = &candidates[0];
        let bestmove = match best.ponder() {
            Some(p) => format!("bestmove {} ponder {p}", best.entry.mv),
            None => format!("bestmove {}", best.entry.mv),
        };
        Some(BookAnswer { info, bestmove })
    }
}

/// `info multipv i score cp v depth d pv …` for the `i`-th candidate.
fn info_line((i, c): (usize, &Candidate)) -> String {
    let pv: Vec<String> = c.pv.iter().map(|m| m.to_string()).collect();
    format!(
        "info multipv {} score cp {} depth {} pv {}",
        i + 1,
        c.entry.value,
        c.entry.depth,
        pv.join(" ")
    )
}
