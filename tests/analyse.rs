//! `ryuo analyse` through the real binary on the records of
//! `tests/data/analyse/` (one short game as KIF in Shift_JIS, CSA and a USI
//! line): exit status, one report line per move, a well-formed SVG whose
//! polyline has a point per position, and the same values in both.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Moves of the fixture game.
const MOVES: usize = 24;
/// The evaluation clamp of the graph (`analyse::CLAMP_CP`).
const CLAMP: i64 = 2000;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/analyse")
        .join(name)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("ryuo-analyse-{}-{name}", std::process::id()))
}

fn ryuo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ryuo"))
        .args(args)
        .output()
        .expect("run ryuo")
}

/// Runs the analysis of `record` at 2000 nodes: (report, svg).
fn analyse(record: &str) -> (String, String) {
    let report = temp(&format!("{record}.txt"));
    let svg = temp(&format!("{record}.svg"));
    let out = ryuo(&[
        "analyse",
        fixture(record).to_str().unwrap(),
        "--nodes",
        "2000",
        "--hash",
        "16",
        "--report",
        report.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{record}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("move {}/{}", MOVES + 1, MOVES + 1)),
        "{stderr}"
    );
    let texts = (
        std::fs::read_to_string(&report).unwrap(),
        std::fs::read_to_string(&svg).unwrap(),
    );
    let _ = std::fs::remove_file(report);
    let _ = std::fs::remove_file(svg);
    texts
}

/// The evaluation at the start of `words` (`+35`, `mate -3`), clamped.
fn eval(words: &[&str]) -> i64 {
    match words {
        ["mate", n, ..] => {
            if n.starts_with('-') {
                -CLAMP
            } else {
                CLAMP
            }
        }
        [v, ..] => v.parse::<i64>().unwrap().clamp(-CLAMP, CLAMP),
        [] => panic!("no evaluation"),
    }
}

/// The clamped evaluations of the report: each move line's, then the
/// final position's; checks there is a line per move, numbered in order.
fn report_values(report: &str) -> Vec<i64> {
    let mut values = Vec::new();
    let mut numbers = Vec::new();
    let mut fin = None;
    for line in report.lines().filter(|l| !l.starts_with('#')) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "final" {
            fin = Some(eval(&words[1..]));
        } else {
            numbers.push(words[0].parse::<usize>().expect("a move number"));
            values.push(eval(&words[1..]));
        }
    }
    assert_eq!(numbers, (1..=MOVES).collect::<Vec<_>>(), "{report}");
    values.push(fin.expect("a final line"));
    values
}

/// A small well-formedness check: tags balance, attribute values are
/// quoted, and `&` only starts an entity.
fn check_well_formed(xml: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = xml.trim_start();
    let decl = "<?xml";
    assert!(rest.starts_with(decl), "no XML declaration");
    rest = &rest[rest.find("?>").expect("declaration end") + 2..];
    let mut roots = 0;
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        let close = rest[open..].find('>').expect("unclosed tag") + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
            continue;
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name = body.split_whitespace().next().expect("tag name");
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':'),
            "bad tag name {name}"
        );
        // Attributes: name="value" pairs.
        let mut attrs = &body[name.len()..];
        while !attrs.trim().is_empty() {
            let eq = attrs
                .find("=\"")
                .unwrap_or_else(|| panic!("bad attributes in <{tag}>"));
            let end = attrs[eq + 2..].find('"').expect("unterminated value") + eq + 2;
            let value = &attrs[eq + 2..end];
            assert!(!value.contains('<'), "'<' in an attribute");
            check_text(value);
            attrs = &attrs[end + 1..];
        }
        if stack.is_empty() {
            roots += 1;
        }
        if !self_closing {
            stack.push(name.to_string());
        }
    }
    check_text(rest);
    assert!(rest.trim().is_empty(), "text after the root");
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1, "one root element");
}

/// Text has no stray `>`-free `&` (only entities).
fn check_text(text: &str) {
    for (i, _) in text.match_indices('&') {
        let entity = &text[i..];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                .iter()
                .any(|e| entity.starts_with(e)),
            "bare '&' in {text}"
        );
    }
}

/// The value of attribute `name` in the first `<tag` element.
fn attribute<'a>(xml: &'a str, tag: &str, name: &str) -> &'a str {
    let start = xml.find(&format!("<{tag} ")).expect("the element");
    let element = &xml[start..start + xml[start..].find('>').unwrap()];
    let key = format!(" {name}=\"");
    let at = element.find(&key).expect("the attribute") + key.len();
    &element[at..at + element[at..].find('"').unwrap()]
}

/// Checks the SVG against the report's values.
fn check_svg(svg: &str, values: &[i64]) {
    check_well_formed(svg);
    let points: Vec<(f64, f64)> = attribute(svg, "polyline", "points")
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').expect("x,y");
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    assert_eq!(points.len(), MOVES + 1, "a point per position");
    let data: Vec<i64> = attribute(svg, "polyline", "data-cp")
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(data, values, "the graph's values are the report's");
    // x grows with the move number; y is one linear map of the values.
    assert!(points.windows(2).all(|w| w[0].0 < w[1].0));
    let (lo, hi) = (
        (0..values.len()).min_by_key(|&i| values[i]).unwrap(),
        (0..values.len()).max_by_key(|&i| values[i]).unwrap(),
    );
    assert!(values[hi] > values[lo], "the fixture's values vary");
    let slope = (points[hi].1 - points[lo].1) / (values[hi] - values[lo]) as f64;
    assert!(slope < 0.0, "higher values are drawn higher");
    for (p, &v) in points.iter().zip(values) {
        let expected = points[lo].1 + slope * (v - values[lo]) as f64;
        assert!((p.1 - expected).abs() < 0.11, "y {} for {v}", p.1);
    }
    assert!(svg.contains("<text"), "axis labels");
}

#[test]
fn kif_in_shift_jis() {
    let bytes = std::fs::read(fixture("game.kif")).unwrap();
    assert!(std::str::from_utf8(&bytes).is_err(), "the fixture is CP932");
    let (report, svg) = analyse("game.kif");
    assert!(report.contains("(KIF)"), "{report}");
    assert!(report.contains("同　銀(46)"), "{report}");
    assert!(report.contains("５五角打"), "{report}");
    let values = report_values(&report);
    check_svg(&svg, &values);
}

#[test]
fn csa_and_usi_give_the_same_analysis() {
    let (csa, csa_svg) = analyse("game.csa");
    assert!(csa.contains("(CSA)") && csa.contains("-3388UM"), "{csa}");
    let values = report_values(&csa);
    check_svg(&csa_svg, &values);
    // One thread and a node budget: the same game gives the same values.
    let (usi, _) = analyse("game.usi");
    assert_eq!(report_values(&usi), values);
}

#[test]
fn bad_records_fail_with_the_line() {
    let path = temp("illegal.kif");
    std::fs::write(
        &path,
        "手合割：平手\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ７六歩(77)\n",
    )
    .unwrap();
    let out = ryuo(&["analyse", path.to_str().unwrap(), "--nodes", "100"]);
    let _ = std::fs::remove_file(&path);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 4"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    let out = ryuo(&["analyse", fixture("../tsume.tsv").to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error:") && !stderr.contains("panicked"),
        "{stderr}"
    );
}
