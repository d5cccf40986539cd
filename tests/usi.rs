//! USI sessions with the real `ryuo` binary over pipes: handshake, search
//! answers, stop latency, pondering, MultiPV, bad input, a game against
//! itself with every move checked by the rules core, and shutdown.
//!
//! Every wait has a deadline, so a broken engine fails a test instead of
//! hanging it.

use ryuo::position::Position;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// Generous deadline for answers that should come at once.
const SHORT: Duration = Duration::from_secs(10);

/// A running engine: its stdin and a channel of its stdout lines.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        Engine::start_with(Command::new(env!("CARGO_BIN_EXE_ryuo")))
    }

    /// Starts `command` (the binary, maybe under a shell or with an
    /// environment) with its stdio piped.
    fn start_with(mut command: Command) -> Engine {
        let mut child = command
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
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            lines,
        }
    }

    /// A started engine past `usi` and `isready`, with a small hash.
    fn ready() -> Engine {
        let mut e = Engine::start();
        e.send("usi");
        e.expect(|l| l == "usiok", SHORT);
        e.send("setoption name USI_Hash value 16");
        e.sync();
        e
    }

    /// A started engine with the hidden switch `var` set in its
    /// environment, past `isready`, with a small hash.
    fn ready_with_env(var: &str) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ryuo"));
        command.env(var, "1");
        let mut e = Engine::start_with(command);
        e.send("setoption name USI_Hash value 16");
        e.sync();
        e
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to ryuo");
        stdin.flush().unwrap();
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to ryuo");
        stdin.flush().unwrap();
    }

    /// Lines up to and including the first that satisfies `done`.
    fn expect(&mut self, done: impl Fn(&str) -> bool, within: Duration) -> Vec<String> {
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

    /// Lines that arrive within `window` (none expected to end it).
    fn collect_for(&mut self, window: Duration) -> Vec<String> {
        let deadline = Instant::now() + window;
        let mut seen = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            seen.push(line);
        }
        seen
    }

    fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        self.expect(|l| l == "readyok", Duration::from_secs(30))
    }

    /// Sends `go …` and returns every line up to `bestmove`, and its move.
    fn go(&mut self, go: &str, within: Duration) -> (Vec<String>, String) {
        self.send(go);
        let lines = self.expect(is_bestmove, within);
        let best = bestmove_of(lines.last().unwrap());
        (lines, best)
    }

    /// Waits up to `within` for the process to exit; its exit code.
    fn wait_exit(&mut self, within: Duration) -> Option<i32> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            thread::sleep(Duration::from_millis(5));
        }
        None
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is_bestmove(line: &str) -> bool {
    line.starts_with("bestmove")
}

fn bestmove_of(line: &str) -> String {
    line.split_whitespace().nth(1).unwrap_or("").to_string()
}

/// `pos` after the USI moves in `moves`.
fn play(moves: &[String]) -> Position {
    let mut pos = Position::startpos();
    for m in moves {
        let mv = pos
            .parse_usi_move(m)
            .unwrap_or_else(|| panic!("{m} illegal"));
        pos.do_move(mv);
    }
    pos
}

fn assert_legal(pos: &Position, mv: &str) {
    assert!(
        pos.parse_usi_move(mv).is_some(),
        "bestmove {mv} is illegal in {}",
        pos.to_sfen()
    );
}

#[test]
fn handshake_advertises_options_and_answers_isready() {
    let mut e = Engine::start();
    e.send("usi");
    let lines = e.expect(|l| l == "usiok", SHORT);
    assert!(lines[0].starts_with("id name Ryuo"), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author")));
    for name in [
        "USI_Hash",
        "USI_Ponder",
        "Threads",
        "MultiPV",
        "NetworkDelay",
        "ClearHash",
    ] {
        let needle = format!("option name {name} type");
        assert!(lines.iter().any(|l| l.starts_with(&needle)), "{name}");
    }
    e.sync();
}

#[test]
fn go_depth_returns_a_legal_move() {
    let mut e = Engine::ready();
    let moves = vec!["7g7f".to_string(), "3c3d".to_string()];
    e.send(&format!("position startpos moves {}", moves.join(" ")));
    let (lines, best) = e.go("go depth 5", Duration::from_secs(60));
    assert_legal(&play(&moves), &best);
    let last_info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(last_info.contains(" pv "), "{last_info}");
}

#[test]
fn stop_during_go_infinite_answers_at_once() {
    let mut e = Engine::ready();
    e.send("position startpos");
    e.send("go infinite");
    let early = e.collect_for(Duration::from_millis(500));
    assert!(!early.iter().any(|l| is_bestmove(l)), "{early:?}");
    let start = Instant::now();
    e.send("stop");
    let lines = e.expect(is_bestmove, SHORT);
    let latency = start.elapsed();
    println!("stop latency: {} ms", latency.as_millis());
    assert!(latency < Duration::from_millis(500), "{latency:?}");
    assert_legal(&Position::startpos(), &bestmove_of(lines.last().unwrap()));
}

#[test]
fn isready_during_a_search_is_answered_at_once() {
    let mut e = Engine::ready();
    e.send("position startpos");
    e.send("go infinite");
    thread::sleep(Duration::from_millis(100));
    e.send("isready");
    let lines = e.expect(|l| l == "readyok" || is_bestmove(l), SHORT);
    assert_eq!(lines.last().unwrap(), "readyok");
    e.send("stop");
    e.expect(is_bestmove, SHORT);
}

#[test]
fn ponderhit_switches_to_the_clock() {
    let mut e = Engine::ready();
    e.send("setoption name USI_Ponder value true");
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder btime 0 wtime 0 byoyomi 300");
    let early = e.collect_for(Duration::from_millis(700));
    assert!(!early.iter().any(|l| is_bestmove(l)), "{early:?}");
    let start = Instant::now();
    e.send("ponderhit");
    let lines = e.expect(is_bestmove, SHORT);
    let took = start.elapsed();
    println!("bestmove {} ms after ponderhit", took.as_millis());
    assert!(took < Duration::from_millis(300 + 500), "{took:?}");
    let pos = play(&["7g7f".into(), "3c3d".into()]);
    assert_legal(&pos, &bestmove_of(lines.last().unwrap()));
}

#[test]
fn multipv_three_gives_three_distinct_lines() {
    let mut e = Engine::ready();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos moves 7g7f 3c3d");
    let (lines, _) = e.go("go depth 5", Duration::from_secs(60));
    let mut firsts = Vec::new();
    for k in 1..=3 {
        let tag = format!(" multipv {k} pv ");
        let line = lines
            .iter()
            .rev()
            .find(|l| l.contains(&tag))
            .unwrap_or_else(|| panic!("no multipv {k}: {lines:#?}"));
        firsts.push(
            line.split(" pv ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .to_string(),
        );
    }
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{lines:#?}");
}

#[test]
fn bad_input_keeps_the_previous_position() {
    let mut e = Engine::ready();
    e.send("position startpos moves 2g2f");
    for bad in [
        "position startpos moves 3c3d",
        "position startpos moves 7g7f 7g7f",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9",
        "position sfen 4K4/9/9/9/9/9/9/9/4K4 b - 1",
        "position",
        "setoption name NoSuchOption value 1",
        "setoption name MultiPV value 0",
        "frobnicate",
    ] {
        e.send(bad);
    }
    e.send_bytes(b"\xff\xfe\x00garbage\n\x00\x00\n");
    let lines = e.sync();
    let errors = lines
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .count();
    assert!(errors >= 10, "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("move 1") && l.contains("3c3d")),
        "{lines:#?}"
    );
    let (_, best) = e.go("go depth 2", SHORT);
    assert_legal(&play(&["2g2f".into()]), &best);
}

#[test]
fn go_mate_finds_a_mate_in_one() {
    let mut e = Engine::ready();
    e.send("position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
    e.send("go mate 5000");
    let lines = e.expect(|l| l.starts_with("checkmate") || is_bestmove(l), SHORT);
    assert_eq!(lines.last().unwrap(), "checkmate G*5b");
}

/// With `RootMatePercent` at 100, a timed `go` in a position with a long
/// mate answers with the solver's mate (`score mate`, the line's first
/// move): the alpha-beta search, left no time, could not have found it.
#[test]
fn root_mate_percent_plays_the_solvers_mate() {
    let mut e = Engine::ready();
    e.send("setoption name RootMatePercent value 100");
    e.send("isready");
    e.expect(|l| l == "readyok", SHORT);
    e.send("position sfen l1s2g2l/3k2s2/1pn1p4/p2bg1p1p/4N2p1/1gppPBP1P/P1N4SL/1SK1G2R1/L5+rN1 w 6p 92");
    let (lines, best) = e.go("go btime 0 wtime 0 byoyomi 1000", SHORT);
    let info = lines
        .iter()
        .rev()
        .find(|l| l.contains(" pv "))
        .expect("an info line");
    assert!(info.contains("score mate "), "{info}");
    let first = info
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert_eq!(best, first);
}

#[test]
fn a_mated_side_resigns() {
    let mut e = Engine::ready();
    e.send("position sfen 4k4/9/9/9/9/9/4p4/4g4/4K4 b - 1");
    let (_, best) = e.go("go depth 3", SHORT);
    assert_eq!(best, "resign");
}

#[test]
fn self_play_game_is_legal_move_by_move() {
    let mut e = Engine::ready();
    e.send("usinewgame");
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..60 {
        let pos = play(&moves);
        let position = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        e.send(&position);
        let (_, best) = e.go("go btime 0 wtime 0 byoyomi 60", SHORT);
        if best == "resign" || best == "win" {
            break;
        }
        assert_legal(&pos, &best);
        moves.push(best);
    }
    e.send("gameover draw");
    e.sync();
    assert!(moves.len() >= 10, "{moves:?}");
}

#[test]
fn quit_during_a_search_exits_promptly() {
    let mut e = Engine::ready();
    e.send("position startpos");
    e.send("go infinite");
    thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    e.send("quit");
    let code = e.wait_exit(Duration::from_secs(5));
    println!("exit {} ms after quit", start.elapsed().as_millis());
    assert_eq!(code, Some(0));
}

#[test]
fn end_of_input_during_a_search_exits_promptly() {
    let mut e = Engine::ready();
    e.send("position startpos");
    e.send("go infinite");
    thread::sleep(Duration::from_millis(200));
    e.stdin = None;
    assert_eq!(e.wait_exit(Duration::from_secs(5)), Some(0));
}

/// The binary run by `sh` under an address-space limit of about 4 GB, so
/// that large tables really fail to allocate.
fn limited(args: &str) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c").arg(format!(
        "ulimit -v 4000000; exec '{}' {args}",
        env!("CARGO_BIN_EXE_ryuo")
    ));
    c
}

fn is_error(line: &str) -> bool {
    line.starts_with("info string error")
}

#[test]
fn tables_that_cannot_be_allocated_are_refused_and_the_engine_lives() {
    let mut e = Engine::start_with(limited(""));
    e.send("usi");
    e.expect(|l| l == "usiok", SHORT);
    e.send("setoption name USI_Hash value 16");
    e.sync();
    // 8 GiB: more than the limit (and maybe more than the free memory).
    for (option, mib) in [("USI_Hash", 8192), ("USI_Hash", 65536), ("MateHash", 8192)] {
        e.send(&format!("setoption name {option} value {mib}"));
        e.send("position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
        let lines = e.sync();
        if option == "USI_Hash" {
            assert!(lines.iter().any(|l| is_error(l)), "{lines:#?}");
        }
        let (lines, best) = e.go("go depth 3", SHORT);
        assert_eq!(best, "G*5b", "{lines:#?}");
        e.send("go mate 1000");
        let lines = e.expect(|l| l.starts_with("checkmate"), SHORT);
        assert_eq!(lines.last().unwrap(), "checkmate G*5b");
        if option == "MateHash" {
            assert!(lines.iter().any(|l| is_error(l)), "{lines:#?}");
        }
    }
    e.send("setoption name MateHash value 65536");
    e.send("go mate 1000");
    let lines = e.expect(|l| l.starts_with("checkmate"), SHORT);
    assert!(lines.iter().any(|l| is_error(l)), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "checkmate G*5b");
    e.send("quit");
    assert_eq!(e.wait_exit(SHORT), Some(0));
}

#[test]
fn command_line_tools_report_tables_that_cannot_be_allocated() {
    for args in [
        "mate --sfen '4k4/9/4P4/9/9/9/9/9/4K4 b G 1' --hash 65536",
        "mate --sfen '4k4/9/4P4/9/9/9/9/9/4K4 b G 1' --hash 8192",
        "bench --depth 1 --hash 65536",
        "bench --depth 1 --hash 8192",
    ] {
        let out = limited(args).output().expect("run ryuo");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args}: {stderr}");
        assert!(
            stderr.starts_with("error: cannot allocate"),
            "{args}: {stderr}"
        );
    }
}

#[test]
fn without_a_search_thread_every_go_is_still_answered() {
    let mut e = Engine::ready_with_env("RYUO_DEBUG_NO_SEARCH_THREAD");
    e.send("position startpos moves 7g7f");
    let pos = play(&["7g7f".into()]);
    for go in [
        "go depth 4",
        "go infinite",
        "go btime 0 wtime 0 byoyomi 200",
    ] {
        let (lines, best) = e.go(go, SHORT);
        assert!(lines.iter().any(|l| is_error(l)), "{lines:#?}");
        assert_legal(&pos, &best);
    }
    e.send("position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
    e.send("go mate infinite");
    let lines = e.expect(|l| l.starts_with("checkmate"), SHORT);
    assert_eq!(lines.last().unwrap(), "checkmate G*5b");
    e.sync();
}

#[test]
fn go_right_after_stop_is_answered_after_the_old_bestmove() {
    let mut e = Engine::ready();
    for _ in 0..5 {
        e.send("position startpos");
        e.send("go infinite");
        thread::sleep(Duration::from_millis(100));
        e.send_bytes(b"stop\nposition startpos moves 7g7f\ngo depth 3\n");
        let first = e.expect(is_bestmove, SHORT);
        assert_legal(&Position::startpos(), &bestmove_of(first.last().unwrap()));
        let second = e.expect(is_bestmove, SHORT);
        assert_legal(
            &play(&["7g7f".into()]),
            &bestmove_of(second.last().unwrap()),
        );
    }
}

#[test]
fn go_during_a_search_waits_for_it_and_stop_ends_both() {
    let mut e = Engine::ready();
    e.send("position startpos");
    e.send("go infinite");
    e.send("position startpos moves 2g2f");
    e.send("go infinite");
    let early = e.collect_for(Duration::from_millis(300));
    assert!(!early.iter().any(|l| is_bestmove(l)), "{early:#?}");
    assert!(
        early.iter().any(|l| l.contains("answered after")),
        "{early:#?}"
    );
    e.send("stop");
    let first = e.expect(is_bestmove, SHORT);
    assert_legal(&Position::startpos(), &bestmove_of(first.last().unwrap()));
    let second = e.expect(is_bestmove, SHORT);
    assert_legal(
        &play(&["2g2f".into()]),
        &bestmove_of(second.last().unwrap()),
    );
    let rest = e.sync();
    assert!(!rest.iter().any(|l| is_bestmove(l)), "{rest:#?}");
}

#[test]
fn go_with_bad_values_reports_them_and_still_answers_once() {
    let mut e = Engine::ready();
    e.send("position startpos");
    for go in [
        "go btime 99999999999999999999",
        "go byoyomi abc",
        "go depth",
        "go searchmoves 1a1b",
    ] {
        e.send(go);
        let lines = e.expect(is_error, SHORT);
        let early = e.collect_for(Duration::from_millis(200));
        assert!(!early.iter().any(|l| is_bestmove(l)), "{go}: {early:#?}");
        e.send("stop");
        let answer = e.expect(|l| is_bestmove(l) || l.starts_with("checkmate"), SHORT);
        assert!(
            answer.iter().all(|l| !is_error(l)),
            "{go}: {lines:?} {answer:#?}"
        );
    }
    for go in [
        "go btime 99999999999999999999 wtime 0 byoyomi 100",
        "go byoyomi abc depth 3",
        "go depth searchmoves 7g7f nodes 2000",
        "go depth 3 searchmoves 7g7f 1a1b",
    ] {
        e.send(go);
        let lines = e.expect(is_bestmove, SHORT);
        assert!(lines.iter().any(|l| is_error(l)), "{go}: {lines:#?}");
        let best = bestmove_of(lines.last().unwrap());
        assert_legal(&Position::startpos(), &best);
        if go.contains("searchmoves") {
            assert_eq!(best, "7g7f", "{go}");
        }
    }
    let rest = e.sync();
    assert!(!rest.iter().any(|l| is_bestmove(l)), "{rest:#?}");
}

#[test]
fn perft_and_bench_at_the_prompt_leave_stop_and_quit_working() {
    let mut e = Engine::ready();
    e.send("perft 3");
    e.expect(|l| l == "Nodes searched: 25470", SHORT);
    e.send("perft 9");
    thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    e.sync();
    e.send("stop");
    e.expect(|l| l.contains("perft 9 stopped"), SHORT);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    e.send("bench 30");
    thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    e.send("quit");
    assert_eq!(e.wait_exit(Duration::from_secs(5)), Some(0));
    println!("exit {} ms after quit", start.elapsed().as_millis());
}

#[test]
fn ponderhit_brings_the_clock_for_a_clockless_ponder() {
    let mut e = Engine::ready();
    e.send("setoption name USI_Ponder value true");
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder");
    let early = e.collect_for(Duration::from_millis(500));
    assert!(!early.iter().any(|l| is_bestmove(l)), "{early:#?}");
    let start = Instant::now();
    e.send("ponderhit btime 0 wtime 0 byoyomi 300");
    let lines = e.expect(is_bestmove, SHORT);
    let took = start.elapsed();
    println!("bestmove {} ms after ponderhit", took.as_millis());
    assert!(took < Duration::from_millis(300 + 500), "{took:?}");
    assert_legal(
        &play(&["7g7f".into(), "3c3d".into()]),
        &bestmove_of(lines.last().unwrap()),
    );
}

#[test]
fn bare_go_mate_is_go_mate_infinite() {
    let mut e = Engine::ready();
    e.send("position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
    e.send("go mate");
    let lines = e.expect(|l| l.starts_with("checkmate") || is_error(l), SHORT);
    assert_eq!(lines.last().unwrap(), "checkmate G*5b");
    e.send("go mate abc");
    let lines = e.expect(|l| l.starts_with("checkmate"), SHORT);
    assert!(is_error(&lines[0]), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "checkmate G*5b");
}

#[test]
fn a_long_game_record_with_many_threads() {
    let mut e = Engine::ready();
    e.send("setoption name Threads value 4");
    // 20,000 plies of kings walking back and forth (no repetition rule
    // is checked by `position`), then a real move.
    let cycle = [
        "5i5h", "5a5b", "5h4h", "5b4b", "4h5h", "4b5b", "5h5i", "5b5a",
    ];
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..2500 {
        moves.extend(cycle.iter().map(|m| m.to_string()));
    }
    moves.push("7g7f".into());
    e.send(&format!("position startpos moves {}", moves.join(" ")));
    let lines = e.sync();
    assert!(!lines.iter().any(|l| is_error(l)), "{lines:#?}");
    let (_, best) = e.go("go depth 6", Duration::from_secs(60));
    assert_legal(&play(&["7g7f".into()]), &best);
}

/// A panic in the search (a bug) still answers every `go` with a legal
/// move, or `checkmate timeout`, each only when USI allows it (after
/// `stop` for `go infinite`, after `ponderhit` for `go ponder`), and the
/// engine goes on taking commands.
#[test]
fn a_failed_search_still_answers_and_the_engine_goes_on() {
    let mut e = Engine::ready_with_env("RYUO_DEBUG_PANIC_IN_SEARCH");
    e.send("position startpos moves 7g7f");
    let pos = play(&["7g7f".into()]);
    for go in ["go depth 4", "go btime 0 wtime 0 byoyomi 200"] {
        let (lines, best) = e.go(go, SHORT);
        assert!(lines.iter().any(|l| is_error(l)), "{lines:#?}");
        assert_legal(&pos, &best);
    }
    for (go, release) in [
        ("go infinite", "stop"),
        ("go ponder btime 0 wtime 0 byoyomi 200", "ponderhit"),
    ] {
        e.send(go);
        let early = e.collect_for(Duration::from_millis(300));
        assert!(early.iter().any(|l| is_error(l)), "{go}: {early:#?}");
        assert!(
            !early.iter().any(|l| is_bestmove(l)),
            "{go}: answered before {release}: {early:#?}"
        );
        e.send(release);
        let lines = e.expect(is_bestmove, SHORT);
        assert_legal(&pos, &bestmove_of(lines.last().unwrap()));
    }
    // A stochastic ponder that fails is superseded at `ponderhit` by a
    // new search (which fails too): one answer, not two.
    e.send("setoption name Stochastic_Ponder value true");
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder btime 0 wtime 0 byoyomi 200");
    thread::sleep(Duration::from_millis(300));
    e.send("ponderhit");
    let lines = e.expect(is_bestmove, SHORT);
    let real = play(&["7g7f".into(), "3c3d".into()]);
    assert_legal(&real, &bestmove_of(lines.last().unwrap()));
    let after = e.sync();
    assert!(!after.iter().any(|l| is_bestmove(l)), "{after:#?}");
    e.send("position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
    e.send("go mate 100");
    let lines = e.expect(|l| l.starts_with("checkmate"), SHORT);
    assert_eq!(lines.last().unwrap(), "checkmate timeout");
    e.sync();
}
