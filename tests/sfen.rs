//! SFEN validation: every class of bad input gives its error, never a panic.

use ryuo::position::{Position, SfenError};
use ryuo::types::{Color, PieceType};

fn err(sfen: &str) -> SfenError {
    match Position::from_sfen(sfen) {
        Ok(_) => panic!("accepted invalid SFEN: {sfen}"),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            e
        }
    }
}

#[test]
fn syntax_errors() {
    assert!(matches!(err(""), SfenError::Syntax(_)));
    assert!(matches!(
        err("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL"),
        SfenError::Syntax(_)
    ));
    assert!(matches!(
        err("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 extra"),
        SfenError::Syntax(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/4K3+ b - 1"),
        SfenError::Syntax(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/3+G1K3 b - 1"),
        SfenError::Syntax(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/4K4 x - 1"),
        SfenError::BadSideToMove(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/4K4 b - 0"),
        SfenError::BadMoveNumber(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/4K4 b - x"),
        SfenError::BadMoveNumber(_)
    ));
}

#[test]
fn unknown_piece_letter() {
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4X4 b - 1"),
        SfenError::UnknownPiece('X')
    );
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/4K4 b Q 1"),
        SfenError::BadHand(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/4K4 b K 1"),
        SfenError::BadHand(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 3 1"),
        SfenError::BadHand(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 0P 1"),
        SfenError::BadHand(_)
    ));
}

#[test]
fn wrong_geometry() {
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/5K4 b - 1"),
        SfenError::BadGeometry(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/3K4 b - 1"),
        SfenError::BadGeometry(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/4K4 b - 1"),
        SfenError::BadGeometry(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/9/4K4 b - 1"),
        SfenError::BadGeometry(_)
    ));
}

#[test]
fn too_many_pieces() {
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/LLL1K4 b 2L 1"),
        SfenError::TooManyPieces(PieceType::Lance)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 19P 1"),
        SfenError::TooManyPieces(PieceType::Pawn)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 3B 1"),
        SfenError::TooManyPieces(PieceType::Bishop)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/+R3K3R b r 1"),
        SfenError::TooManyPieces(PieceType::Rook)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 99999999999P 1"),
        SfenError::TooManyPieces(PieceType::Pawn)
    );
}

#[test]
fn two_pawns_on_a_file() {
    assert_eq!(
        err("4k4/9/9/9/9/4P4/4P4/9/4K4 b - 1"),
        SfenError::TwoPawns(Color::Black, 4)
    );
    // A tokin does not count.
    Position::from_sfen("4k4/9/9/9/9/4+P4/4P4/9/4K4 b - 1").unwrap();
}

#[test]
fn dead_pieces() {
    assert!(matches!(
        err("P3k4/9/9/9/9/9/9/9/4K4 b - 1"),
        SfenError::DeadPiece(_)
    ));
    assert!(matches!(
        err("L3k4/9/9/9/9/9/9/9/4K4 b - 1"),
        SfenError::DeadPiece(_)
    ));
    assert!(matches!(
        err("4k4/N8/9/9/9/9/9/9/4K4 b - 1"),
        SfenError::DeadPiece(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/p3K4 b - 1"),
        SfenError::DeadPiece(_)
    ));
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/n8/4K4 b - 1"),
        SfenError::DeadPiece(_)
    ));
    // A knight on the third rank and promoted pieces anywhere are fine.
    Position::from_sfen("+P3k4/9/N8/9/9/9/9/9/4K4 b - 1").unwrap();
}

#[test]
fn kings() {
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/3KK4 b - 1"),
        SfenError::TwoKings(Color::Black)
    );
    assert_eq!(
        err("9/9/9/9/9/9/9/9/4K4 b - 1"),
        SfenError::MissingKing(Color::White)
    );
    assert_eq!(err("9/9/9/9/9/9/9/9/9 b - 1"), SfenError::EmptyBoard);
    // The side to move may lack its king (tsume problems).
    Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G 1").unwrap();
}

#[test]
fn side_not_to_move_in_check() {
    // White king on 5a attacked by a black gold on 5b, Black to move.
    assert_eq!(
        err("4k4/4G4/9/9/9/9/9/9/4K4 b - 1"),
        SfenError::SideNotToMoveInCheck
    );
    // The same with White to move is an ordinary check.
    let pos = Position::from_sfen("4k4/4G4/9/9/9/9/9/9/4K4 w - 1").unwrap();
    assert!(pos.in_check());
}

#[test]
fn garbage_never_panics() {
    let junk = [
        "\0\0\0",
        "+",
        "////////",
        "9/9/9/9/9/9/9/9/9",
        "k/ b - 1",
        "+K8/9/9/9/9/9/9/9/4k4 b - 1",
        "4k4/9/9/9/9/9/9/9/4K4 b -P 1",
        "4k4/9/9/9/9/9/9/9/4K4 b P- 1",
        "éé b - 1",
        "4k4/9/9/9/9/9/9/9/4K4 b - 99999999999999999999",
    ];
    for s in junk {
        assert!(Position::from_sfen(s).is_err(), "{s}");
    }
}
