//! The match options through the real `ryuo` binary: `NodesLimit`,
//! `DepthLimit`, `MaxMovesToDraw`, `Stochastic_Ponder`, the
//! `EnteringKingRule` variants, `ConsiderationMode`'s endless analysis and
//! `currmove` lines.

use crate::common;

use common::{Engine, SHORT};
use std::time::{Duration, Instant};

/// The value after `key` in an `info` line.
fn field(line: &str, key: &str) -> Option<i64> {
    let mut words = line.split(' ');
    words.find(|&w| w == key)?;
    words.next()?.parse().ok()
}

/// The `info … pv` lines among `lines`.
fn pv_lines(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" pv "))
        .collect()
}

/// Sends `go …` and waits for its `bestmove`; the lines and the time taken.
fn go(e: &mut Engine, go: &str, within: Duration) -> (Vec<String>, Duration) {
    let start = Instant::now();
    e.send(go);
    let lines = e.expect(|l| l.starts_with("bestmove"), within);
    (lines, start.elapsed())
}

#[test]
fn nodes_limit_caps_every_go_and_the_smaller_limit_wins() {
    let (mut e, _) = Engine::with(&[("NodesLimit", "3000")]);
    e.send("position startpos");
    // A byoyomi game: the node cap ends the search long before the clock.
    let (lines, took) = go(&mut e, "go btime 0 wtime 0 byoyomi 10000", SHORT);
    assert!(took < Duration::from_secs(5), "{took:?}");
    let nodes = pv_lines(&lines)
        .iter()
        .filter_map(|l| field(l, "nodes"))
        .max();
    assert!(nodes.is_some_and(|n| n <= 3000 + 1024), "{lines:#?}");
    // `go nodes` below the cap: the command's own limit.
    let (lines, _) = go(&mut e, "go nodes 1000", SHORT);
    let nodes = pv_lines(&lines)
        .iter()
        .filter_map(|l| field(l, "nodes"))
        .max();
    assert!(nodes.is_some_and(|n| n <= 1000 + 1024), "{lines:#?}");
    // A bare `go` is no longer endless.
    let (lines, _) = go(&mut e, "go", SHORT);
    assert!(lines.last().unwrap().starts_with("bestmove "));
    // A bad value is refused and the cap kept.
    e.send("setoption name NodesLimit value -5");
    let lines = e.sync();
    assert!(
        lines.iter().any(|l| l.starts_with("info string error")),
        "{lines:?}"
    );
    let (_, took) = go(&mut e, "go btime 0 wtime 0 byoyomi 10000", SHORT);
    assert!(took < Duration::from_secs(5), "{took:?}");
    // 0 switches it off: the byoyomi is used again.
    e.send("setoption name NodesLimit value 0");
    e.sync();
    let (_, took) = go(&mut e, "go btime 0 wtime 0 byoyomi 1500", SHORT);
    assert!(took >= Duration::from_millis(1000), "{took:?}");
}

#[test]
fn depth_limit_caps_every_go_and_the_smaller_limit_wins() {
    let (mut e, _) = Engine::with(&[("DepthLimit", "4"), ("PvInterval", "0")]);
    e.send("position startpos moves 7g7f");
    let (lines, took) = go(&mut e, "go btime 0 wtime 0 byoyomi 10000", SHORT);
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(deepest(&lines), 4, "{lines:#?}");
    let (lines, _) = go(&mut e, "go depth 2", SHORT);
    assert_eq!(deepest(&lines), 2, "{lines:#?}");
    let (lines, _) = go(&mut e, "go depth 9", SHORT);
    assert_eq!(deepest(&lines), 4, "{lines:#?}");
}

/// Black mates in three plies (tests/search.rs), at move 100 of the game.
const MATE_IN_THREE_AT_100: &str = "position sfen k8/2s4g+P/5R3/9/9/9/9/9/8K b S 100";

/// The score words (`cp 0`, `mate 3`) of the last `info … pv` line.
fn final_score(lines: &[String]) -> String {
    let last = pv_lines(lines).pop().cloned().unwrap_or_default();
    let mut words = last.split(' ').skip_while(|&w| w != "score").skip(1);
    format!(
        "{} {}",
        words.next().unwrap_or(""),
        words.next().unwrap_or("")
    )
}

#[test]
fn max_moves_to_draw_scores_what_lies_beyond_as_a_draw() {
    // No limit: the mate is found.
    let (mut e, _) = Engine::with(&[]);
    e.send(MATE_IN_THREE_AT_100);
    let (lines, _) = go(&mut e, "go depth 6", SHORT);
    assert_eq!(final_score(&lines), "mate 3", "{lines:#?}");
    // Drawn after move 101 (White's reply): Black's mating move would be
    // move 102, too late, and every line is a draw.
    let (mut e, _) = Engine::with(&[("MaxMovesToDraw", "101")]);
    e.send(MATE_IN_THREE_AT_100);
    let (lines, _) = go(&mut e, "go depth 6", SHORT);
    assert_eq!(final_score(&lines), "cp 0", "{lines:#?}");
    // Drawn after move 102: the mate on the last move still counts.
    let (mut e, _) = Engine::with(&[("MaxMovesToDraw", "102")]);
    e.send(MATE_IN_THREE_AT_100);
    let (lines, _) = go(&mut e, "go depth 6", SHORT);
    assert_eq!(final_score(&lines), "mate 3", "{lines:#?}");
    // The ply counts the moves played after the SFEN: four moves from
    // move 96 lead back to the same position at move 100.
    let cycle = "position sfen k8/2s4g+P/5R3/9/9/9/9/9/8K b S 96 moves 1i1h 9a9b 1h1i 9b9a";
    e.send(cycle);
    let (lines, _) = go(&mut e, "go depth 6", SHORT);
    assert_eq!(final_score(&lines), "mate 3", "{lines:#?}");
    e.send("setoption name MaxMovesToDraw value 101");
    e.send("usinewgame");
    e.send(cycle);
    let (lines, _) = go(&mut e, "go depth 6", SHORT);
    assert_eq!(final_score(&lines), "cp 0", "{lines:#?}");
}

/// The `bestmove` line of a `go depth 4` in `position`.
fn bestmove_in(e: &mut Engine, position: &str) -> (Vec<String>, String) {
    e.send(position);
    let (lines, _) = go(e, "go depth 4", SHORT);
    let best = lines.last().unwrap().clone();
    (lines, best)
}

#[test]
fn entering_king_rules_24_and_27_points_and_handicap() {
    // Black: 28 points in White's camp and in hand, ten pieces there.
    let p28 = "position sfen +R+B+P+P+P+P+P+P+P/1+P+P+PK4/9/9/9/9/9/9/4k4 b RGGG 1";
    let (mut e, _) = Engine::with(&[]);
    assert_eq!(bestmove_in(&mut e, p28).1, "bestmove win");
    let (mut e, _) = Engine::with(&[("EnteringKingRule", "CSARule24")]);
    assert_ne!(bestmove_in(&mut e, p28).1, "bestmove win");
    let p38 = "position sfen +R+B+P+P+P+P+P+P+P/1+P+P+PK4/9/9/9/9/9/9/4k4 b RBGGGGSSSS 1";
    assert_eq!(bestmove_in(&mut e, p38).1, "bestmove win");
    // A two-piece handicap game (White gave rook and bishop): White, with
    // 22 points, declares under the handicap rules (17 needed under the
    // 27-point rule, 21 under the 24-point one), not under the plain ones.
    let white22 = "position sfen 4K4/9/9/9/9/9/+p+p+p+p+p+p+p+p+p/1+p4k2/9 w RB4L8P4g4s4n 1";
    for (rule, wins) in [
        ("CSARule27", false),
        ("CSARule27H", true),
        ("CSARule24", false),
        ("CSARule24H", true),
        ("NoEnteringKing", false),
    ] {
        let (mut e, _) = Engine::with(&[("EnteringKingRule", rule)]);
        let (lines, best) = bestmove_in(&mut e, white22);
        assert_eq!(best == "bestmove win", wins, "{rule}: {lines:#?}");
    }
}

#[test]
fn try_rule_plays_the_winning_king_move_and_sees_it_coming() {
    let (mut e, _) = Engine::with(&[("EnteringKingRule", "TryRule")]);
    // The king steps to 5a: a move, not `win`.
    let (lines, best) = bestmove_in(&mut e, "position sfen 9/4K4/9/9/9/9/9/9/k8 b - 1");
    assert_eq!(best, "bestmove 5b5a", "{lines:#?}");
    assert_eq!(final_score(&lines), "mate 1", "{lines:#?}");
    // Two steps away: a win in three plies.
    let (lines, _) = bestmove_in(&mut e, "position sfen 9/9/4K4/9/9/9/9/9/k8 b - 1");
    assert_eq!(final_score(&lines), "mate 3", "{lines:#?}");
    // 5a guarded: no try.
    let (lines, best) = bestmove_in(&mut e, "position sfen 5g3/4K4/9/9/9/9/9/9/k8 b - 1");
    assert_ne!(best, "bestmove 5b5a", "{lines:#?}");
    // Without the rule the king square is nothing special.
    let (mut e, _) = Engine::with(&[]);
    let (lines, _) = bestmove_in(&mut e, "position sfen 9/4K4/9/9/9/9/9/9/k8 b - 1");
    assert_ne!(final_score(&lines), "mate 1", "{lines:#?}");
}

/// The deepest `info depth` among `lines`.
fn deepest(lines: &[String]) -> i64 {
    pv_lines(lines)
        .iter()
        .filter_map(|l| field(l, "depth"))
        .max()
        .unwrap_or(0)
}

/// `go ponder` with a clock in a mate-in-one position, `stop` after
/// `wait`: the lines up to `bestmove`.
fn ponder_on_a_mate(e: &mut Engine, wait: Duration) -> Vec<String> {
    e.send("position sfen 1k7/2R6/9/9/9/9/9/9/8K b N2G 1");
    e.send("go ponder btime 0 wtime 0 byoyomi 1000");
    std::thread::sleep(wait);
    e.send("stop");
    e.expect(|l| l.starts_with("bestmove"), SHORT)
}

#[test]
fn consideration_mode_keeps_analysing_a_found_mate_until_stop() {
    // Normally the mate ends the iterations at once (the answer still
    // waits for stop).
    let (mut e, _) = Engine::with(&[("PvInterval", "0")]);
    let lines = ponder_on_a_mate(&mut e, Duration::from_millis(500));
    assert!(deepest(&lines) < 10, "{lines:#?}");
    // In ConsiderationMode the analysis goes on, deeper and deeper.
    let (mut e, _) = Engine::with(&[("ConsiderationMode", "true")]);
    let lines = ponder_on_a_mate(&mut e, Duration::from_millis(1000));
    assert!(deepest(&lines) >= 10, "{lines:#?}");
    let best = lines.last().unwrap();
    assert!(best.starts_with("bestmove "), "{best}");
    // `go infinite` with a clock: the clock ends nothing in analysis, so
    // iterations are still reported long after it would have run out.
    e.send("position startpos");
    e.send("go infinite btime 0 wtime 0 byoyomi 200");
    std::thread::sleep(Duration::from_millis(1500));
    e.send("stop");
    let lines = e.expect(|l| l.starts_with("bestmove"), SHORT);
    let late = pv_lines(&lines)
        .iter()
        .filter_map(|l| field(l, "time"))
        .filter(|&ms| (300..1450).contains(&ms))
        .count();
    assert!(late >= 1, "{lines:#?}");
}

#[test]
fn currmove_lines_come_after_three_seconds_for_each_root_move() {
    let (mut e, _) = Engine::with(&[]);
    e.send("position startpos moves 7g7f");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(2000));
    let early = e.sync();
    assert!(!early.iter().any(|l| l.contains("currmove")), "{early:#?}");
    // The first root move of an iteration can take seconds on a loaded
    // machine: wait for the next one to start rather than a fixed time.
    let mut lines = e.expect(|l| l.contains(" currmove "), Duration::from_secs(60));
    e.send("stop");
    lines.extend(e.expect(|l| l.starts_with("bestmove"), SHORT));
    let currmoves: Vec<&String> = lines.iter().filter(|l| l.contains(" currmove ")).collect();
    assert!(!currmoves.is_empty(), "{lines:#?}");
    let mut pos = ryuo::position::Position::startpos();
    pos.do_move(pos.parse_usi_move("7g7f").unwrap());
    let legal = ryuo::movegen::legal_moves(&pos).len();
    for l in &currmoves {
        let words: Vec<&str> = l.split(' ').collect();
        let [info, depth_key, depth, currmove, m, number_key, number] = words[..] else {
            panic!("{l}");
        };
        assert_eq!(
            (info, depth_key, currmove, number_key),
            ("info", "depth", "currmove", "currmovenumber"),
            "{l}"
        );
        assert!(depth.parse::<i32>().is_ok_and(|d| d > 0), "{l}");
        assert!(pos.parse_usi_move(m).is_some(), "{l}");
        assert!(
            number
                .parse::<usize>()
                .is_ok_and(|n| (1..=legal).contains(&n)),
            "{l}"
        );
    }
}

/// The position of `startpos moves …`.
fn after(moves: &[&str]) -> ryuo::position::Position {
    let mut pos = ryuo::position::Position::startpos();
    for m in moves {
        let mv = pos.parse_usi_move(m).unwrap();
        pos.do_move(mv);
    }
    pos
}

/// The first move of each `info … pv` line.
fn first_pv_moves(lines: &[String]) -> Vec<String> {
    pv_lines(lines)
        .iter()
        .filter_map(|l| l.split(" pv ").nth(1))
        .filter_map(|pv| pv.split(' ').next())
        .map(str::to_string)
        .collect()
}

/// Checks `bestmove M [ponder P]` is legal in `pos`.
fn assert_legal_answer(pos: &ryuo::position::Position, line: &str) {
    let words: Vec<&str> = line.split(' ').collect();
    assert_eq!(words[0], "bestmove", "{line}");
    let m = pos.parse_usi_move(words[1]);
    assert!(m.is_some(), "{line} in {}", pos.to_sfen());
    if let (Some(m), ["ponder", p]) = (m, &words[2..]) {
        let mut next = pos.clone();
        next.do_move(m);
        assert!(next.parse_usi_move(p).is_some(), "{line}");
    }
}

const PREDICTED: [&str; 2] = ["7g7f", "3c3d"];

#[test]
fn stochastic_ponder_thinks_before_the_predicted_move_and_searches_anew_at_ponderhit() {
    let (mut e, _) = Engine::with(&[("Stochastic_Ponder", "true"), ("PvInterval", "0")]);
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder btime 0 wtime 0 byoyomi 1000");
    std::thread::sleep(Duration::from_millis(600));
    let pondering = e.sync();
    assert!(
        !pondering.iter().any(|l| l.starts_with("bestmove")),
        "{pondering:#?}"
    );
    // The lines are of the position before 3c3d: White's moves.
    let before = after(&PREDICTED[..1]);
    let firsts = first_pv_moves(&pondering);
    assert!(!firsts.is_empty(), "{pondering:#?}");
    for m in &firsts {
        assert!(before.parse_usi_move(m).is_some(), "{m}: {pondering:#?}");
    }
    // ponderhit: a new search of the real position, on the clock.
    let start = Instant::now();
    e.send("ponderhit");
    let lines = e.expect(|l| l.starts_with("bestmove"), SHORT);
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(4),
        "{took:?}"
    );
    let real = after(&PREDICTED);
    assert_legal_answer(&real, lines.last().unwrap());
    // The new search's last line (earlier ones may still be the old one's).
    let last = first_pv_moves(&lines).pop().unwrap_or_default();
    assert!(real.parse_usi_move(&last).is_some(), "{last}: {lines:#?}");
    // Exactly one answer.
    let rest = e.sync();
    assert!(!rest.iter().any(|l| l.starts_with("bestmove")), "{rest:#?}");
}

#[test]
fn stochastic_ponder_answers_stop_and_takes_the_clock_of_ponderhit() {
    let (mut e, _) = Engine::with(&[("Stochastic_Ponder", "true")]);
    let real = after(&PREDICTED);
    // A ponder miss: `stop`, and the answer is still legal where we are.
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder btime 0 wtime 0 byoyomi 1000");
    std::thread::sleep(Duration::from_millis(400));
    e.send("stop");
    let lines = e.expect(|l| l.starts_with("bestmove"), SHORT);
    assert_legal_answer(&real, lines.last().unwrap());
    // A clockless `go ponder`, the clock with `ponderhit`.
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder");
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    e.send("ponderhit btime 0 wtime 0 byoyomi 700");
    let lines = e.expect(|l| l.starts_with("bestmove"), SHORT);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_legal_answer(&real, lines.last().unwrap());
    let rest = e.sync();
    assert!(!rest.iter().any(|l| l.starts_with("bestmove")), "{rest:#?}");
    // From the start position there is no move to take back: plain ponder.
    e.send("position startpos");
    e.send("go ponder btime 0 wtime 0 byoyomi 300");
    std::thread::sleep(Duration::from_millis(200));
    e.send("ponderhit");
    let lines = e.expect(|l| l.starts_with("bestmove"), SHORT);
    assert_legal_answer(&ryuo::position::Position::startpos(), lines.last().unwrap());
}

#[test]
fn without_stochastic_ponder_the_real_position_is_pondered() {
    let (mut e, _) = Engine::with(&[("PvInterval", "0")]);
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder btime 0 wtime 0 byoyomi 1000");
    std::thread::sleep(Duration::from_millis(400));
    e.send("ponderhit");
    let lines = e.expect(|l| l.starts_with("bestmove"), SHORT);
    let real = after(&PREDICTED);
    for m in first_pv_moves(&lines) {
        assert!(real.parse_usi_move(&m).is_some(), "{m}: {lines:#?}");
    }
    assert_legal_answer(&real, lines.last().unwrap());
}
