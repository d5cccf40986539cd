//! The opening book through the real `ryuo` binary: book moves played with
//! `USI_OwnBook` and not without, `BookMoves`, the filters, `FlippedBook`,
//! pondering on a book move, bad book files, and the time a large book
//! takes to load at `isready`.
//!
//! `tests/data/book_small.db` holds a few opening positions (values for
//! the side to move): at the start 7g7f (50, depth 20), 2g2f (40, depth
//! 10) and 5g5f (-100, depth 30).

use crate::common;

use common::{Engine, SHORT};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Whether `lines` come from the book (no search `info` with nodes).
fn from_book(lines: &[String]) -> bool {
    lines.iter().any(|l| l.starts_with("info multipv 1 score"))
        && !lines.iter().any(|l| l.contains(" nodes "))
}

#[test]
fn the_book_move_is_played_with_own_book_and_not_without() {
    let mut e = Engine::with_book(&[("BookEvalDiff", "0")]);
    let (lines, best) = e.play("position startpos");
    assert_eq!(best, "bestmove 7g7f ponder 3c3d");
    assert!(from_book(&lines), "{lines:#?}");
    assert_eq!(
        lines[0], "info multipv 1 score cp 50 depth 20 pv 7g7f 3c3d 2g2f",
        "{lines:#?}"
    );
    // White's reply and Black's next move come from the book too.
    let (_, best) = e.play("position startpos moves 7g7f");
    assert_eq!(best, "bestmove 3c3d ponder 2g2f");
    let (_, best) = e.play("position startpos moves 7g7f 3c3d");
    assert_eq!(best, "bestmove 2g2f");

    e.send("setoption name USI_OwnBook value false");
    e.sync();
    let (lines, _) = e.play("position startpos");
    assert!(!from_book(&lines), "{lines:#?}");
}

#[test]
fn candidates_within_book_eval_diff_are_listed() {
    let mut e = Engine::with_book(&[]);
    let (lines, best) = e.play("position startpos");
    // BookEvalDiff 30 (default): 7g7f (50) and 2g2f (40); 5g5f is too bad.
    assert!(
        best == "bestmove 7g7f ponder 3c3d" || best == "bestmove 2g2f ponder 8c8d",
        "{best}"
    );
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info")).collect();
    assert_eq!(infos.len(), 2, "{lines:#?}");
    assert!(
        infos[0].contains(&format!(" pv {}", &best[9..13])),
        "{lines:#?}"
    );
    assert!(infos[1].starts_with("info multipv 2 "), "{lines:#?}");
}

#[test]
fn book_moves_limits_the_plies_of_book_use() {
    let mut e = Engine::with_book(&[("BookMoves", "2")]);
    let (lines, _) = e.play("position startpos moves 7g7f");
    assert!(from_book(&lines), "{lines:#?}");
    let (lines, best) = e.play("position startpos moves 7g7f 3c3d");
    assert!(!from_book(&lines), "ply 3 is past BookMoves 2: {lines:#?}");
    assert!(best.starts_with("bestmove "));
}

#[test]
fn depth_and_value_limits_filter_book_moves() {
    // Only 5g5f is deep enough; its -100 passes a limit of -200.
    let mut e = Engine::with_book(&[("BookDepthLimit", "25"), ("BookEvalBlackLimit", "-200")]);
    assert_eq!(e.play("position startpos").1, "bestmove 5g5f");
    // No move is worth 60 to Black: search instead.
    let mut e = Engine::with_book(&[("BookEvalBlackLimit", "60")]);
    assert!(!from_book(&e.play("position startpos").0));
    // White's 3c3d (-20) is below a White limit of 0.
    let mut e = Engine::with_book(&[("BookEvalWhiteLimit", "0")]);
    assert!(!from_book(&e.play("position startpos moves 7g7f").0));
}

#[test]
fn flipped_book_answers_from_the_other_side() {
    let mut e = Engine::with_book(&[]);
    let (_, best) = e.play("position startpos moves 2g2f");
    assert_eq!(best, "bestmove 8c8d");
    e.send("setoption name FlippedBook value false");
    let (lines, _) = e.play("position startpos moves 2g2f");
    assert!(!from_book(&lines), "{lines:#?}");
}

#[test]
fn a_book_move_waits_for_ponderhit() {
    let mut e = Engine::with_book(&[("BookEvalDiff", "0")]);
    e.send("position startpos");
    e.send("go ponder btime 0 wtime 0 byoyomi 1000");
    let lines = e.expect(|l| l.starts_with("info multipv 1"), SHORT);
    assert!(!lines.iter().any(|l| l.starts_with("bestmove")));
    e.send("isready");
    e.expect(|l| l == "readyok", SHORT);
    thread::sleep(Duration::from_millis(100));
    let start = Instant::now();
    e.send("ponderhit");
    let lines = e.expect(|l| l.starts_with("bestmove"), SHORT);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f ponder 3c3d");
    // A book answer needs no search: prompt even on a loaded machine.
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_bad_book_file_is_reported_and_the_engine_searches() {
    let (mut e, ready) = Engine::with(&[("BookFile", "no/such/book.db")]);
    assert!(
        ready
            .iter()
            .any(|l| l.starts_with("info string error: book not loaded")),
        "{ready:#?}"
    );
    let (lines, best) = e.play("position startpos");
    assert!(!from_book(&lines) && best.starts_with("bestmove "));

    let garbage = std::env::temp_dir().join(format!("ryuo-garbage-{}.db", std::process::id()));
    std::fs::write(&garbage, b"\x7fELF\x02\x01\x01 binary junk\n\0\0\0").unwrap();
    e.send(&format!(
        "setoption name BookFile value {}",
        garbage.display()
    ));
    let ready = e.sync();
    let _ = std::fs::remove_file(&garbage);
    assert!(
        ready
            .iter()
            .any(|l| l.starts_with("info string error: book not loaded")
                && l.contains("not a YaneuraOu book")),
        "{ready:#?}"
    );
    assert!(!from_book(&e.play("position startpos").0));

    // Back to a good book: it is used again.
    e.send("setoption name BookFile value tests/data/book_small.db");
    e.sync();
    assert!(from_book(&e.play("position startpos").0));
}

#[test]
fn a_book_built_from_game_records_is_played() {
    let dir = std::env::temp_dir();
    let records = dir.join(format!("ryuo-records-{}.txt", std::process::id()));
    let book = dir.join(format!("ryuo-records-{}.db", std::process::id()));
    std::fs::write(
        &records,
        "startpos moves 2g2f 8c8d 2f2e\n\
         position startpos moves 2g2f 8c8d\n\
         startpos moves 7g7f 3c3d\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 2g2f 3c3d\n\
         garbage line\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_ryuo"))
        .args(["book", "from-sfens", "--max-ply", "2", "--in"])
        .arg(&records)
        .arg("--out")
        .arg(&book)
        .output()
        .expect("run ryuo book from-sfens");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{report}");
    assert!(
        report.starts_with("4 games, 1 bad lines; 3 positions"),
        "{report}"
    );
    // 2g2f was played three times, answered by 8c8d twice and 3c3d once.
    let (mut e, _) = Engine::with(&[
        ("BookFile", &book.display().to_string()),
        ("ConsiderBookMoveCount", "true"),
    ]);
    let (lines, best) = e.play("position startpos moves 2g2f");
    assert!(
        best == "bestmove 8c8d ponder 2f2e" || best == "bestmove 3c3d",
        "{lines:#?}"
    );
    assert_eq!(lines.len(), 3, "{lines:#?}");
    let (lines, _) = e.play("position startpos");
    // The book's line after 2g2f follows the reply played most often.
    assert!(
        lines.iter().any(|l| l.ends_with("pv 2g2f 8c8d")),
        "{lines:#?}"
    );
    let _ = std::fs::remove_file(&records);
    let _ = std::fs::remove_file(&book);
}

/// Writes a synthetic book of `positions` positions with `ryuo book synth`.
fn synth_book(positions: usize) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("ryuo-synth-{positions}-{}.db", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_ryuo"))
        .args(["book", "synth", "--positions", &positions.to_string()])
        .arg("--out")
        .arg(&path)
        .stdout(Stdio::null())
        .status()
        .expect("run ryuo book synth");
    assert!(status.success());
    path
}

/// Time from `isready` to `readyok` with a book of `positions` positions.
fn readyok_time(positions: usize) -> Duration {
    let path = synth_book(positions);
    let (mut e, _) = Engine::with(&[]);
    e.send(&format!("setoption name BookFile value {}", path.display()));
    let start = Instant::now();
    let lines = e.sync();
    let took = start.elapsed();
    let _ = std::fs::remove_file(&path);
    let want = format!(": {positions} positions");
    assert!(lines.iter().any(|l| l.contains(&want)), "{lines:#?}");
    took
}

/// The loading works at size; its speed is a benchmark figure
/// (`ryuo book bench`), not a test: these machines are shared and noisy, so
/// the bound here only catches a load that went quadratic or hangs.
#[test]
fn a_book_of_100k_positions_loads_at_isready() {
    let took = readyok_time(100_000);
    assert!(took < Duration::from_secs(10), "{took:?}");
}

/// The figure in the README: a book of a million positions (121 MB).
#[test]
#[ignore = "writes a 121 MB file; run with --ignored"]
fn a_million_position_book_is_ready_within_a_second() {
    let took = readyok_time(1_000_000);
    println!("readyok after {took:?}");
    assert!(took < Duration::from_secs(1), "{took:?}");
}
