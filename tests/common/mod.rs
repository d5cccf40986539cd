//! A `ryuo` process driven over pipes, shared by the test files that
//! need one (`book.rs`, `analysis.rs`). Every wait has a deadline, so a
//! broken engine fails a test instead of hanging it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// Generous deadline for answers that should come at once.
pub const SHORT: Duration = Duration::from_secs(10);

/// A running engine: its stdin and a channel of its stdout lines.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    /// An engine past `usi`, run from the package directory (relative
    /// book paths are relative to the working directory), with `options`
    /// set and `isready` answered; the lines up to `readyok`.
    pub fn with(options: &[(&str, &str)]) -> (Engine, Vec<String>) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ryuo"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start ryuo");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut e = Engine {
            child,
            stdin,
            lines,
        };
        e.send("usi");
        e.expect(|l| l == "usiok", SHORT);
        e.send("setoption name USI_Hash value 16");
        for (name, value) in options {
            e.send(&format!("setoption name {name} value {value}"));
        }
        let ready = e.sync();
        (e, ready)
    }

    /// An engine with the small test book.
    pub fn with_book(options: &[(&str, &str)]) -> Engine {
        let mut all = vec![("BookFile", "tests/data/book_small.db")];
        all.extend_from_slice(options);
        Engine::with(&all).0
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to ryuo");
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first that satisfies `done`.
    pub fn expect(&mut self, done: impl Fn(&str) -> bool, within: Duration) -> Vec<String> {
        let deadline = Instant::now() + within;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let last = done(&line);
                    seen.push(line);
                    if last {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("timed out; got {seen:#?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("ryuo exited; got {seen:#?}"),
            }
        }
    }

    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        self.expect(|l| l == "readyok", Duration::from_secs(30))
    }

    /// Sets up `position` and answers a short `go`: the lines up to
    /// `bestmove` and that line.
    pub fn play(&mut self, position: &str) -> (Vec<String>, String) {
        self.send(position);
        self.send("go btime 0 wtime 0 byoyomi 200");
        let lines = self.expect(|l| l.starts_with("bestmove"), SHORT);
        let best = lines.last().unwrap().clone();
        (lines, best)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Random games from the start position with take-backs and null moves,
/// as a search walks a tree: each step undoes (20 %), makes a null move
/// (10 %, not in check) or plays a move, preferring (70 %) the moves
/// `preferred` picks; `visit` sees the position after every step (with the
/// generator, to decide whether to look).
pub fn search_like_walk(
    rng: &mut rand::rngs::StdRng,
    games: usize,
    steps: usize,
    preferred: impl Fn(&ryuo::position::Position, ryuo::types::Move) -> bool,
    mut visit: impl FnMut(&mut rand::rngs::StdRng, &ryuo::position::Position),
) {
    use rand::seq::SliceRandom;
    use rand::Rng;
    for _game in 0..games {
        let mut pos = ryuo::position::Position::startpos();
        let mut path = Vec::new();
        for _step in 0..steps {
            let moves = ryuo::movegen::legal_moves(&pos);
            let roll = rng.gen_range(0..10);
            if (roll < 2 && !path.is_empty()) || moves.is_empty() {
                match path.pop() {
                    Some(Some(m)) => pos.undo_move(m),
                    Some(None) => pos.undo_null_move(),
                    None => break,
                }
            } else if roll == 2 && !pos.in_check() {
                pos.do_null_move();
                path.push(None);
            } else {
                let m = *moves
                    .iter()
                    .filter(|&&m| preferred(&pos, m))
                    .collect::<Vec<_>>()
                    .choose(rng)
                    .filter(|_| rng.gen_bool(0.7))
                    .copied()
                    .unwrap_or_else(|| moves.choose(rng).unwrap());
                pos.do_move(m);
                path.push(Some(m));
            }
            visit(rng, &pos);
        }
    }
}
