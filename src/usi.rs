//! The USI command loop: reads commands from a text stream, keeps the engine
//! state, and writes answers. Malformed input never panics: it gets an
//! `info string error …` line and leaves the state as it was.

use crate::perft;
use crate::position::{parse_usi_move_text, Position};
use std::io::{BufRead, Write};
use std::time::Instant;

/// The engine as the protocol sees it.
pub struct Engine {
    pos: Position,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// A fresh engine at the start position.
    pub fn new() -> Engine {
        Engine {
            pos: Position::startpos(),
        }
    }

    /// Runs the loop until `quit` or end of input.
    pub fn run(&mut self, input: impl BufRead, out: &mut impl Write) {
        let mut input = input;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&buf);
            if !self.handle(&line, out) {
                break;
            }
            let _ = out.flush();
        }
    }

    /// Handles one command line; returns `false` on `quit`.
    pub fn handle(&mut self, line: &str, out: &mut impl Write) -> bool {
        let mut words = line.split_ascii_whitespace();
        let Some(cmd) = words.next() else {
            return true;
        };
        let rest: Vec<&str> = words.collect();
        match cmd {
            "usi" => {
                let _ = writeln!(out, "id name Ryuo {}", env!("CARGO_PKG_VERSION"));
                let _ = writeln!(out, "id author the Ryuo developers");
                let _ = writeln!(out, "usiok");
            }
            "isready" => {
                let _ = writeln!(out, "readyok");
            }
            "usinewgame" | "gameover" | "stop" | "ponderhit" | "setoption" => {}
            "position" => match parse_position(&rest) {
                Ok(pos) => self.pos = pos,
                Err(e) => {
                    let _ = writeln!(out, "info string error: {e}");
                }
            },
            "go" => {
                if rest.first() == Some(&"perft") {
                    self.perft_command(rest.get(1).copied(), out);
                } else {
                    let _ = writeln!(out, "info string error: only 'go perft' is supported yet");
                }
            }
            "perft" => self.perft_command(rest.first().copied(), out),
            "d" => {
                let _ = writeln!(out, "{}", self.pos);
            }
            "quit" => return false,
            other => {
                let shown: String = other.chars().take(40).collect();
                let _ = writeln!(
                    out,
                    "info string error: unknown command '{}'",
                    shown.escape_default()
                );
            }
        }
        true
    }

    fn perft_command(&mut self, depth: Option<&str>, out: &mut impl Write) {
        let Some(depth) = depth
            .and_then(|d| d.parse::<u32>().ok())
            .filter(|&d| d <= 12)
        else {
            let _ = writeln!(out, "info string error: usage 'go perft <depth 0..12>'");
            return;
        };
        let _ = write!(out, "{}", perft_report(&mut self.pos, depth, true));
    }
}

/// Runs perft and formats the divide lines, the total and the speed.
pub fn perft_report(pos: &mut Position, depth: u32, divide: bool) -> String {
    let start = Instant::now();
    let mut text = String::new();
    let total = if divide && depth > 0 {
        let split = perft::divide(pos, depth);
        for (m, n) in &split {
            text.push_str(&format!("{m}: {n}\n"));
        }
        split.iter().map(|(_, n)| n).sum()
    } else {
        perft::perft(pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    text.push_str(&format!(
        "info string perft {depth}: {total} nodes in {secs:.3} s ({:.0} nodes/s)\n",
        total as f64 / secs.max(1e-9)
    ));
    text.push_str(&format!("Nodes searched: {total}\n"));
    text
}

/// Parses the arguments of `position` into a new position, checking every
/// move; on any error nothing is returned and the caller keeps its position.
pub fn parse_position(args: &[&str]) -> Result<Position, String> {
    let moves_at = args.iter().position(|&w| w == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let mut pos = match setup.first() {
        Some(&"startpos") if setup.len() == 1 => Position::startpos(),
        Some(&"sfen") => Position::from_sfen(&setup[1..].join(" ")).map_err(|e| e.to_string())?,
        _ => return Err("expected 'position startpos|sfen <sfen> [moves ...]'".into()),
    };
    for (i, text) in moves.iter().enumerate() {
        let m = parse_usi_move_text(text)
            .filter(|&m| pos.is_pseudo_legal(m) && pos.is_legal(m))
            .ok_or_else(|| {
                let shown: String = text.chars().take(20).collect();
                format!(
                    "illegal move {} '{}'; position unchanged",
                    i + 1,
                    shown.escape_default()
                )
            })?;
        pos.do_move(m);
    }
    Ok(pos)
}
