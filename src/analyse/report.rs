//! The text report: a line per move (number, evaluation before it, the
//! move as USI and as the record wrote it, its mark, the engine's move and
//! line), then a `final` line for the position the game ended in. Lines
//! starting with `#` explain the columns.

use super::record::Format;
use super::{Analysis, Budget, PositionAnalysis, BLUNDER_CP, CLAMP_CP, INACCURACY_CP, MISTAKE_CP};
use std::fmt::Write;

/// Moves of the engine's principal variation shown.
pub const PV_MOVES: usize = 6;

/// The engine's move and line: `best 2g2f  pv 2g2f 8c8d …`.
fn engine_line(p: &PositionAnalysis) -> String {
    let best = if p.declare_win {
        "win".to_string()
    } else {
        p.best.map_or("-".to_string(), |m| m.to_string())
    };
    let pv: Vec<String> = p.pv.iter().take(PV_MOVES).map(|m| m.to_string()).collect();
    format!("best {best:<6} pv {}", pv.join(" "))
        .trim_end()
        .to_string()
}

/// Left-pads nothing, right-pads `s` to `width` characters.
fn pad(s: &str, width: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(width.saturating_sub(n)))
}

/// The report of `analysis` of the record file `name`.
pub fn text(name: &str, analysis: &Analysis, budget: Budget) -> String {
    let record = &analysis.record;
    let show_text = record.format != Format::Usi;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# ryuo analyse: {name} ({}), {} moves, {budget} per position",
        record.format,
        record.moves.len()
    );
    let _ = writeln!(
        out,
        "# eval: before the move, Black's (sente's) view in centipawns; \
         mate +N / mate -N: Black / White mates in N plies"
    );
    let _ = writeln!(
        out,
        "# marks: the mover's evaluation drop over the move (values clamped to \
         +-{CLAMP_CP}): ?! >= {INACCURACY_CP}, ? >= {MISTAKE_CP}, ?? >= {BLUNDER_CP}; \
         none when the engine would play the move too"
    );
    let marks = analysis.marks();
    for (i, m) in record.moves.iter().enumerate() {
        let Some(p) = analysis.positions.get(i) else {
            break;
        };
        let mark = marks.get(i).copied().flatten().map_or("", |m| m.symbol());
        let shown = if show_text {
            format!("{}  ", pad(&m.text, 14))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{:>4}  {:>9}  {:<6} {shown}{:<2}  {}",
            i + 1,
            p.eval.to_string(),
            m.mv.to_string(),
            mark,
            engine_line(p)
        );
    }
    if let Some(p) = analysis.positions.last() {
        let _ = writeln!(out, "final {:>9}  {}", p.eval.to_string(), engine_line(p));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{record, Eval};
    use super::*;

    #[test]
    fn one_line_per_move_and_a_final_line() {
        let record = record::parse("startpos moves 7g7f 3c3d").unwrap();
        let p = |cp, best: &str| PositionAnalysis {
            eval: Eval::Cp(cp),
            best: record.start.parse_usi_move(best),
            pv: record.start.parse_usi_move(best).into_iter().collect(),
            declare_win: false,
            depth: 1,
            nodes: 1,
        };
        let analysis = Analysis {
            positions: vec![p(30, "2g2f"), p(-800, "7g7f"), p(-790, "7g7f")],
            record,
        };
        let text = text("x.usi", &analysis, Budget::Nodes(5));
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[0].starts_with("   1        +30  7g7f   ??  best 2g2f"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("   2       -800  3c3d       best"),
            "{text}"
        );
        assert!(lines[2].starts_with("final      -790"), "{text}");
    }
}
