//! The CSA standard game record (version 2.2): `PI`/`P1`…`P9`/`P+`/`P-`
//! start position lines, a turn line `+`/`-`, then moves `+7776FU`
//! (origin `00` for a drop, the piece as it stands after the move, so a
//! promotion shows as a change of name), time lines `T12`, comments `'`,
//! and a `%` line ending the game. Several statements may share a line,
//! separated by `,`. Small enough to read by hand: no crate needed.

use super::record::{play, Format, Record, RecordError, RecordMove, Setup};
use crate::position::Position;
use crate::types::{Color, Move, Piece, PieceType, Square};

/// The piece named by a CSA code (`FU`, `TO`, `RY`, …).
fn piece_type(code: &str) -> Option<PieceType> {
    Some(match code {
        "FU" => PieceType::Pawn,
        "KY" => PieceType::Lance,
        "KE" => PieceType::Knight,
        "GI" => PieceType::Silver,
        "KI" => PieceType::Gold,
        "KA" => PieceType::Bishop,
        "HI" => PieceType::Rook,
        "OU" => PieceType::King,
        "TO" => PieceType::ProPawn,
        "NY" => PieceType::ProLance,
        "NK" => PieceType::ProKnight,
        "NG" => PieceType::ProSilver,
        "UM" => PieceType::Horse,
        "RY" => PieceType::Dragon,
        _ => return None,
    })
}

/// The square of two ASCII digits (file, rank), `None` for `00` (the hand)
/// and anything else not on the board.
fn square(digits: &[u8]) -> Option<Square> {
    match digits {
        [f @ b'1'..=b'9', r @ b'1'..=b'9'] => Some(Square::from_file_rank(f - b'1', r - b'1')),
        _ => None,
    }
}

/// The colour of a `+`/`-` sign.
fn color(sign: u8) -> Option<Color> {
    match sign {
        b'+' => Some(Color::Black),
        b'-' => Some(Color::White),
        _ => None,
    }
}

/// Parses a CSA record.
pub fn parse(text: &str) -> Result<Record, RecordError> {
    let mut setup: Option<Setup> = None;
    let mut pos: Option<Position> = None;
    let mut start: Option<Position> = None;
    let mut moves: Vec<RecordMove> = Vec::new();
    'lines: for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let raw = raw.trim_start_matches('\u{feff}').trim_end();
        if raw.starts_with('\'') {
            continue;
        }
        for stmt in raw.split(',').map(str::trim) {
            let b = stmt.as_bytes();
            match b {
                [] => {}
                [b'V', ..] | [b'N', b'+' | b'-', ..] | [b'$', ..] | [b'T', ..] => {}
                [b'%', ..] | [b'/'] => break 'lines,
                [b'P', b'I', rest @ ..] => {
                    let mut s = Setup::even();
                    for chunk in rest.chunks(4) {
                        let sq = square(chunk.get(..2).unwrap_or(&[]));
                        let pt = std::str::from_utf8(chunk.get(2..).unwrap_or(&[]))
                            .ok()
                            .and_then(piece_type);
                        match (sq, pt) {
                            (Some(sq), Some(pt))
                                if s.board[sq.index()].piece_type() == Some(pt) =>
                            {
                                s.board[sq.index()] = Piece::EMPTY;
                            }
                            _ => {
                                return Err(RecordError::at(line, format!("bad PI line '{stmt}'")))
                            }
                        }
                    }
                    setup = Some(s);
                }
                [b'P', r @ b'1'..=b'9', rest @ ..] => {
                    let s = setup.get_or_insert_with(Setup::empty);
                    board_row(s, r - b'1', rest)
                        .map_err(|m| RecordError::at(line, format!("{m} in '{stmt}'")))?;
                }
                [b'P', sign @ (b'+' | b'-'), rest @ ..] => {
                    let s = setup.get_or_insert_with(Setup::empty);
                    let c = color(*sign).unwrap_or(Color::Black);
                    hand_or_pieces(s, c, rest)
                        .map_err(|m| RecordError::at(line, format!("{m} in '{stmt}'")))?;
                }
                [sign @ (b'+' | b'-')] => {
                    if start.is_some() {
                        return Err(RecordError::at(line, "a second turn line"));
                    }
                    let mut s = setup.take().unwrap_or_else(Setup::even);
                    s.side = color(*sign).unwrap_or(Color::Black);
                    let p = s.position(line)?;
                    start = Some(p.clone());
                    pos = Some(p);
                }
                [sign @ (b'+' | b'-'), ..] => {
                    let Some(p) = pos.as_mut() else {
                        return Err(RecordError::at(
                            line,
                            format!("move '{stmt}' before the start position and turn line"),
                        ));
                    };
                    if color(*sign) != Some(p.side_to_move()) {
                        return Err(RecordError::at(
                            line,
                            format!("'{stmt}': it is the other side's move"),
                        ));
                    }
                    let mv = parse_move(p, stmt)
                        .ok_or_else(|| RecordError::at(line, format!("bad move '{stmt}'")))?;
                    play(p, &mut moves, mv, stmt, line)?;
                }
                _ => {
                    return Err(RecordError::at(
                        line,
                        format!("not a CSA statement: '{stmt}'"),
                    ))
                }
            }
        }
    }
    let Some(start) = start else {
        return Err(RecordError::at(
            0,
            "no start position: a CSA record needs a turn line ('+' or '-')",
        ));
    };
    Ok(Record {
        format: Format::Csa,
        start,
        moves,
    })
}

/// One `Pn` line: nine fields of three characters, files 9 to 1.
fn board_row(s: &mut Setup, rank: u8, fields: &[u8]) -> Result<(), String> {
    // 26: the line's trailing blank may be trimmed.
    if fields.len() < 26 {
        return Err("a board row needs nine three-character fields".into());
    }
    for (i, field) in fields.chunks(3).take(9).enumerate() {
        let file = 8 - i as u8;
        let sq = Square::from_file_rank(file, rank);
        s.board[sq.index()] = match field {
            [b' ', b'*', b' '] | [b' ', b'*'] => Piece::EMPTY,
            [sign, code @ ..] => {
                let c = color(*sign).ok_or("bad side sign")?;
                let pt = std::str::from_utf8(code)
                    .ok()
                    .and_then(piece_type)
                    .ok_or("unknown piece")?;
                Piece::new(c, pt)
            }
            [] => Piece::EMPTY,
        };
    }
    Ok(())
}

/// A `P+`/`P-` line: pieces `xxYY` put on the board, or in hand for `00`;
/// `00AL` puts every piece not yet placed in this side's hand.
fn hand_or_pieces(s: &mut Setup, c: Color, rest: &[u8]) -> Result<(), String> {
    for chunk in rest.chunks(4) {
        if chunk.len() != 4 {
            return Err("pieces are four characters each".into());
        }
        let code = std::str::from_utf8(&chunk[2..]).map_err(|_| "bad piece")?;
        if &chunk[..2] == b"00" && code == "AL" {
            for pt in PieceType::HAND {
                let on_board = s
                    .board
                    .iter()
                    .filter(|p| !p.is_empty() && p.kind().unpromote() == pt)
                    .count() as u32;
                let in_hands = s.hands[0][pt.index()] + s.hands[1][pt.index()];
                let left = pt.count_in_set().saturating_sub(on_board + in_hands);
                s.hands[c.index()][pt.index()] += left;
            }
            continue;
        }
        let pt = piece_type(code).ok_or("unknown piece")?;
        if &chunk[..2] == b"00" {
            if pt.is_promoted() || pt == PieceType::King {
                return Err("only unpromoted pieces go in hand".into());
            }
            s.hands[c.index()][pt.index()] += 1;
        } else {
            let sq = square(&chunk[..2]).ok_or("bad square")?;
            s.board[sq.index()] = Piece::new(c, pt);
        }
    }
    Ok(())
}

/// The move of `+7776FU`-like text in `pos`, if it names one (legality is
/// checked by the caller).
fn parse_move(pos: &Position, stmt: &str) -> Option<Move> {
    let b = stmt.as_bytes();
    if b.len() != 7 {
        return None;
    }
    let to = square(&b[3..5])?;
    let after = piece_type(std::str::from_utf8(&b[5..7]).ok()?)?;
    if &b[1..3] == b"00" {
        return Some(Move::drop(after, to));
    }
    let from = square(&b[1..3])?;
    let before = pos.piece_on(from).piece_type()?;
    let promote = if before == after {
        false
    } else if before.can_promote() && before.promote() == after {
        true
    } else {
        return None;
    };
    Some(Move::normal(from, to, promote))
}

#[cfg(test)]
mod tests {
    use super::super::record::{detect, parse as parse_any};
    use super::*;

    const GAME: &str = "'CSA sample\nV2.2\nN+sente\nN-gote\n$EVENT:test\nPI\n+\n\
        +7776FU\nT3\n-3334FU\nT1\n+8822UM\n-3122GI,T2\n+0045KA\n'comment\n-2233GI\n%TORYO\n";

    #[test]
    fn reads_a_game() {
        assert_eq!(detect(GAME), Format::Csa);
        let r = parse_any(GAME).unwrap();
        let usi: Vec<String> = r.moves.iter().map(|m| m.mv.to_string()).collect();
        assert_eq!(usi, ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "2b3c"]);
        assert_eq!(r.moves[2].text, "+8822UM");
        assert_eq!(r.moves[4].line, 14);
        assert_eq!(r.start.to_sfen(), crate::position::STARTPOS_SFEN);
    }

    #[test]
    fn reads_board_lines_and_hands() {
        let text = "P1 *  *  *  * -OU *  *  *  * \nP2 *  *  *  *  *  *  *  *  * \n\
            P3 *  *  *  *  *  *  *  *  * \nP4 *  *  *  *  *  *  *  *  * \n\
            P5 *  *  *  *  *  *  *  *  * \nP6 *  *  *  *  *  *  *  *  * \n\
            P7 *  *  *  *  *  *  *  *  * \nP8 *  *  *  *  *  *  *  *  * \n\
            P9 *  *  *  * +OU *  *  *  * \nP+00KI\nP-00AL\n+\n+0042KI\n";
        let r = parse(text).unwrap();
        let sfen = r.start.to_sfen();
        assert!(
            sfen.starts_with("4k4/9/9/9/9/9/9/9/4K4 b G2r2b3g4s4n4l18p"),
            "{sfen}"
        );
        assert_eq!(r.moves[0].mv.to_string(), "G*4b");
    }

    #[test]
    fn handicap_pi_and_white_to_move() {
        let r = parse("PI82HI22KA\n-\n-5142OU\n").unwrap();
        assert!(r.start.to_sfen().starts_with("lnsgkgsnl/9/ppppppppp"));
        assert_eq!(r.moves[0].mv.to_string(), "5a4b");
    }

    #[test]
    fn errors() {
        // Illegal: the pawn cannot go two squares.
        let e = parse("PI\n+\n+7775FU\n").err().unwrap();
        assert_eq!(e.line, 3);
        // Wrong side, unknown piece, no turn line, move before the position.
        assert!(parse("PI\n+\n-3334FU\n").is_err());
        assert!(parse("PI\n+\n+7776XX\n").is_err());
        assert!(parse("PI\n").is_err());
        assert!(parse("+7776FU\n").is_err());
        assert!(parse("PI\n+\n+77\n").is_err());
        assert!(parse("PI99\n+\n").is_err());
        assert!(parse("P1-KY\n+\n").is_err());
        // A promotion that is not one (gold to dragon).
        assert!(parse("PI\n+\n+4958RY\n").is_err());
    }
}
