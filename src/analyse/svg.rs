//! The evaluation graph as a self-contained SVG: x the number of moves
//! played, y Black's evaluation clamped to `±CLAMP_CP` (mates at the
//! clamp), a zero line, axis labels, the values as one polyline, and a
//! marker on each mistake and blunder (at the position the move led to).
//! Written by hand: the format is text, and a crate would be larger than
//! this file.

use super::{Analysis, Mark, CLAMP_CP};
use std::fmt::Write;

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 500.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const PLOT_HEIGHT: f64 = 400.0;
const PLOT_WIDTH: f64 = WIDTH - LEFT - RIGHT;

/// Escapes text for an XML text node or attribute value.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The y coordinate of a clamped evaluation.
fn y(cp: i32) -> f64 {
    TOP + f64::from(CLAMP_CP - cp) * PLOT_HEIGHT / f64::from(2 * CLAMP_CP)
}

/// The x coordinate of the position after `ply` moves of `plies`.
fn x(ply: usize, plies: usize) -> f64 {
    LEFT + ply as f64 * PLOT_WIDTH / plies.max(1) as f64
}

/// Spacing of the move-number ticks: at most about 15 of them.
fn tick_step(plies: usize) -> usize {
    [1, 2, 5, 10, 20, 50, 100, 200, 500]
        .into_iter()
        .find(|s| plies / s <= 15)
        .unwrap_or(1000)
}

/// The SVG document of `analysis` of the record file `name`.
pub fn render(name: &str, analysis: &Analysis) -> String {
    let plies = analysis.record.moves.len();
    let bottom = TOP + PLOT_HEIGHT;
    let right = LEFT + PLOT_WIDTH;
    let mut s = String::new();
    let _ = writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let title = escape(&format!("ryuo analyse: {name}"));
    let _ = writeln!(s, "<title>{title}</title>");
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="14">{title}</text>"#,
        LEFT + PLOT_WIDTH / 2.0
    );
    // Horizontal lines and the evaluation axis.
    for cp in [CLAMP_CP, CLAMP_CP / 2, 0, -CLAMP_CP / 2, -CLAMP_CP] {
        let yy = y(cp);
        let style = if cp == 0 {
            r##"stroke="#000" stroke-width="1""##
        } else {
            r##"stroke="#ccc" stroke-width="1" stroke-dasharray="4 3""##
        };
        let _ = writeln!(
            s,
            r#"<line x1="{LEFT}" y1="{yy:.1}" x2="{right}" y2="{yy:.1}" {style}/>"#
        );
        let label = if cp == 0 {
            "0".to_string()
        } else {
            format!("{cp:+}")
        };
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{label}</text>"#,
            LEFT - 6.0,
            yy + 4.0
        );
    }
    // The move axis.
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#000" stroke-width="1"/>"##
    );
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#000" stroke-width="1"/>"##
    );
    let step = tick_step(plies);
    for ply in (0..=plies).step_by(step) {
        let xx = x(ply, plies);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{bottom}" x2="{xx:.1}" y2="{}" stroke="#000"/>"##,
            bottom + 4.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{xx:.1}" y="{}" text-anchor="middle">{ply}</text>"#,
            bottom + 18.0
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">move</text>"#,
        LEFT + PLOT_WIDTH / 2.0,
        bottom + 42.0
    );
    let _ = writeln!(
        s,
        r#"<text x="16" y="{0}" text-anchor="middle" transform="rotate(-90 16 {0})">evaluation (cp, Black's view; mate at +-{CLAMP_CP})</text>"#,
        TOP + PLOT_HEIGHT / 2.0
    );
    // The values: one point per position, the clamped values kept in
    // `data-cp` for programs that read the graph.
    let values: Vec<i32> = analysis
        .positions
        .iter()
        .map(|p| p.eval.clamped())
        .collect();
    let points: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| format!("{:.1},{:.1}", x(i, plies), y(v)))
        .collect();
    let cps: Vec<String> = values.iter().map(i32::to_string).collect();
    let _ = writeln!(
        s,
        r##"<polyline fill="none" stroke="#1f5fbf" stroke-width="1.5" data-cp="{}" points="{}"/>"##,
        cps.join(" "),
        points.join(" ")
    );
    // Markers on mistakes and blunders.
    for (i, mark) in analysis.marks().into_iter().enumerate() {
        let (color, radius) = match mark {
            Some(Mark::Blunder) => ("#d62728", 5.0),
            Some(Mark::Mistake) => ("#ff7f0e", 4.0),
            _ => continue,
        };
        let (Some(m), Some(before), Some(after)) = (
            analysis.record.moves.get(i),
            analysis.positions.get(i),
            analysis.positions.get(i + 1),
        ) else {
            continue;
        };
        let label = escape(&format!(
            "{}. {} {} {}: {} to {}",
            i + 1,
            m.mv,
            m.text,
            mark.map_or("", Mark::symbol),
            before.eval,
            after.eval
        ));
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{radius}" fill="{color}"><title>{label}</title></circle>"#,
            x(i + 1, plies),
            y(after.eval.clamped())
        );
    }
    let _ = writeln!(s, "</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<a & "b" 'c'>"#),
            "&lt;a &amp; &quot;b&quot; &apos;c&apos;&gt;"
        );
        assert_eq!(escape("同　歩\u{1}"), "同　歩\u{fffd}");
    }

    #[test]
    fn coordinates() {
        assert_eq!(y(CLAMP_CP), TOP);
        assert_eq!(y(-CLAMP_CP), TOP + PLOT_HEIGHT);
        assert_eq!(y(0), TOP + PLOT_HEIGHT / 2.0);
        assert_eq!(x(0, 0), LEFT);
        assert_eq!(x(10, 10), LEFT + PLOT_WIDTH);
        assert_eq!(tick_step(9), 1);
        assert_eq!(tick_step(120), 10);
    }
}
