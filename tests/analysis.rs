//! The analysis options through the real `ryuo` binary: `PvInterval`,
//! `OutputFailLHPV` and `ConsiderationMode`.

use crate::common;

use common::{Engine, SHORT};

/// The depths of the `info … pv` lines of a search to `depth` from the
/// start position (a `b` marks a bound), and the bestmove line.
fn depths(e: &mut Engine, depth: u32) -> (Vec<String>, String) {
    depths_in(e, "position startpos", depth)
}

/// `depths` from `position`.
fn depths_in(e: &mut Engine, position: &str, depth: u32) -> (Vec<String>, String) {
    e.send(position);
    e.send(&format!("go depth {depth}"));
    let lines = e.expect(|l| l.starts_with("bestmove"), SHORT);
    let depths = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .map(|l| {
            let bound = if l.contains("bound ") { "b" } else { "" };
            format!("{}{bound}", l.split(' ').nth(2).unwrap())
        })
        .collect();
    (depths, lines.last().unwrap().clone())
}

#[test]
fn pv_interval_zero_reports_every_iteration() {
    let (mut e, _) = Engine::with(&[("PvInterval", "0")]);
    let (shown, _) = depths(&mut e, 8);
    for d in 1..=8 {
        assert!(shown.contains(&d.to_string()), "depth {d}: {shown:?}");
    }
    // A long interval: the first iteration, then only the final line.
    let (mut e, _) = Engine::with(&[("PvInterval", "100000")]);
    let (shown, _) = depths(&mut e, 8);
    assert_eq!(shown.first().map(String::as_str), Some("1"), "{shown:?}");
    assert!(shown.len() <= 3, "{shown:?}");
}

#[test]
fn consideration_mode_reports_every_iteration_without_bounds_or_book() {
    let (mut e, _) = Engine::with(&[
        ("ConsiderationMode", "true"),
        ("PvInterval", "100000"),
        ("BookFile", "tests/data/book_small.db"),
    ]);
    let (shown, best) = depths(&mut e, 9);
    for d in 1..=9 {
        assert!(shown.contains(&d.to_string()), "depth {d}: {shown:?}");
    }
    assert!(!shown.iter().any(|d| d.ends_with('b')), "{shown:?}");
    assert!(best.starts_with("bestmove "));
}

/// After a bishop exchange the aspiration window fails (at depth 10 when written).
const EXCHANGE: &str = "position startpos moves 7g7f 3c3d 8h2b+";

#[test]
fn output_fail_lh_pv_false_hides_bound_lines() {
    let (mut e, _) = Engine::with(&[("PvInterval", "0")]);
    let (shown, _) = depths_in(&mut e, EXCHANGE, 12);
    assert!(shown.iter().any(|d| d.ends_with('b')), "{shown:?}");
    let (mut e, _) = Engine::with(&[("OutputFailLHPV", "false"), ("PvInterval", "0")]);
    let (shown, _) = depths_in(&mut e, EXCHANGE, 12);
    assert!(!shown.iter().any(|d| d.ends_with('b')), "{shown:?}");
}
