//! Sanity properties of the static evaluation: colour symmetry, determinism,
//! robustness without kings, sensible scales and a king-safety preference.

use ryuo::eval::{capture_value, evaluate, explain, piece_value};
use ryuo::movegen::legal_moves;
use ryuo::position::{Position, STARTPOS_SFEN};
use ryuo::types::{Color, PieceType};

/// Varied positions: openings, middlegames, hands, promotions, missing kings.
const SFENS: &[&str] = &[
    STARTPOS_SFEN,
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "lnsgk1snl/1r4g2/p1ppppb1p/6pP1/7R1/2P6/P2PPPP1P/1SG6/LN2KGSNL b BP2p 21",
    "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
    "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    "lnsgkgsnl/1r5b1/9/9/9/9/9/1B5R1/LNSGKGSNL b 9P9p 1",
    "9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 1",
    "ppplkl1pp/b2p1p3/9/9/9/B8/9/5P1P1/PPPP1LKLP b R2G2S2N2Pr2g2s2n2p 1",
    // Tsume-style: the attacker (side to move) has no king.
    "7nk/7p1/7G1/9/9/9/9/9/9 b GP2r2b2g4s3n4l16p 1",
    "9/9/9/9/9/9/9/1P7/K8 w GNr2b3g4s3n4l16p 1",
];

/// The same position from the other player's chair: colours swapped, board
/// rotated 180°, but the same *colour* to move, so the player to move is the
/// other one and the score must be exactly negated. `None` when that
/// position is illegal: the mover was in check or, in tsume, had no king,
/// and now the side not to move would be.
fn colour_mirror_same_side(pos: &Position) -> Option<Position> {
    let flipped = pos.flipped().to_sfen();
    let mut fields: Vec<&str> = flipped.split(' ').collect();
    fields[1] = if fields[1] == "b" { "w" } else { "b" };
    Position::from_sfen(&fields.join(" ")).ok()
}

fn random_positions() -> Vec<Position> {
    include_str!("data/perft_random.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split('\t').next())
        .map(|s| Position::from_sfen(s).unwrap())
        .collect()
}

fn all_positions() -> Vec<Position> {
    let mut v: Vec<Position> = SFENS
        .iter()
        .map(|s| Position::from_sfen(s).unwrap())
        .collect();
    v.extend(random_positions());
    v
}

fn eval_sfen(sfen: &str) -> i32 {
    evaluate(&Position::from_sfen(sfen).unwrap())
}

/// Checks `evaluate(pos) == -evaluate(mirror)`; false if no mirror exists.
fn check_colour_flip(pos: &Position) -> bool {
    let Some(mirror) = colour_mirror_same_side(pos) else {
        return false;
    };
    assert_eq!(
        evaluate(pos),
        -evaluate(&mirror),
        "asymmetric eval for {}",
        pos.to_sfen()
    );
    true
}

#[test]
fn colour_flip_negates_the_score() {
    // The listed positions and every position one legal move later.
    let mut checked = 0;
    for mut pos in all_positions() {
        checked += usize::from(check_colour_flip(&pos));
        for m in legal_moves(&pos).iter().copied().collect::<Vec<_>>() {
            pos.do_move(m);
            checked += usize::from(check_colour_flip(&pos));
            pos.undo_move(m);
        }
    }
    assert!(checked > 10_000, "only {checked} positions checked");
}

#[test]
fn flipped_position_scores_the_same_for_the_side_to_move() {
    // `Position::flipped` swaps the side to move too: it is the very same
    // game seen from the other chair, so the mover's score is unchanged
    // (and Black's view of it is negated).
    for pos in all_positions() {
        assert_eq!(
            evaluate(&pos),
            evaluate(&pos.flipped()),
            "{}",
            pos.to_sfen()
        );
    }
}

#[test]
fn left_right_mirror_does_not_crash() {
    for pos in all_positions() {
        let mirrored = pos.mirrored();
        let _ = evaluate(&mirrored);
        assert_eq!(mirrored.mirrored().to_sfen(), pos.to_sfen());
    }
}

#[test]
fn deterministic_and_unchanged_by_make_unmake() {
    for pos in all_positions() {
        let mut pos = pos;
        let before = evaluate(&pos);
        assert_eq!(before, evaluate(&pos.clone()));
        for m in legal_moves(&pos).iter().copied().collect::<Vec<_>>() {
            pos.do_move(m);
            let _ = evaluate(&pos);
            pos.undo_move(m);
        }
        assert_eq!(before, evaluate(&pos), "{}", pos.to_sfen());
    }
}

#[test]
fn missing_kings_do_not_panic() {
    // Only the side to move may lack a king (tsume problems); the rules core
    // rejects anything else.
    for sfen in [
        "7nk/7p1/7G1/9/9/9/9/9/9 b GP2r2b2g4s3n4l16p 1",
        "9/9/9/9/9/9/9/1P7/K8 w GNr2b3g4s3n4l16p 1",
        "4k4/9/9/9/9/9/9/9/9 b 2R2B4G4S4N4L18P 1",
    ] {
        let pos = Position::from_sfen(sfen).unwrap();
        let _ = evaluate(&pos);
        assert!(!explain(&pos).is_empty());
    }
}

#[test]
fn startpos_is_balanced() {
    let e = eval_sfen(STARTPOS_SFEN);
    assert!(e.abs() < 50, "startpos eval {e}");
}

#[test]
fn an_extra_rook_is_worth_a_lot() {
    // White's rook removed, Black to move.
    let black_up = eval_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    assert!(black_up > 500, "extra rook for the mover: {black_up}");
    // Black's rook removed, White to move.
    let white_up = eval_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B7/LNSGKGSNL w - 1");
    assert!(white_up > 500, "extra rook for the mover: {white_up}");
    // The same rook in the mover's hand is worth at least as much.
    let in_hand = eval_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1");
    assert!(in_hand > black_up);
}

#[test]
fn a_castled_king_is_safer_than_a_bare_one() {
    // Same material: Black's two golds and silver around the king, or far
    // away on the edge; White attacks with a dragon and has drops in hand.
    let castled = eval_sfen("4k4/9/9/9/9/9/2+r6/3GSG3/4K4 b rgsn 1");
    let bare = eval_sfen("4k4/9/9/G7G/8S/9/2+r6/9/4K4 b rgsn 1");
    assert!(castled > bare, "castled {castled} vs bare {bare}");
    // Also without any enemy attack in sight.
    let quiet_castled = eval_sfen("4k4/9/9/9/9/9/9/3GSG3/4K4 b - 1");
    let quiet_bare = eval_sfen("4k4/9/9/G7G/8S/9/9/9/4K4 b - 1");
    assert!(quiet_castled > quiet_bare);
}

#[test]
fn hand_pieces_are_worth_a_bit_more_than_board_pieces() {
    // Material values only: the capture gain exceeds the board value.
    for pt in PieceType::HAND {
        assert!(capture_value(pt) > piece_value(pt));
        assert!(capture_value(pt) < 3 * piece_value(pt));
    }
    assert!(piece_value(PieceType::Dragon) > piece_value(PieceType::Rook));
    assert!(piece_value(PieceType::Horse) > piece_value(PieceType::Bishop));
    assert!(piece_value(PieceType::King) > 10 * piece_value(PieceType::Dragon));
}

#[test]
fn explain_lists_terms_and_matches_evaluate() {
    let pos = Position::from_sfen(SFENS[2]).unwrap();
    let text = explain(&pos);
    for term in ["material", "hand", "king safety", "mobility", "total"] {
        assert!(text.contains(term), "missing {term} in\n{text}");
    }
    assert!(text.ends_with(&evaluate(&pos).to_string()), "{text}");
    assert_eq!(pos.side_to_move(), Color::White);
}
