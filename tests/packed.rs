//! PackedSfen and PackedSfenValue: round trips over random play, promoted
//! pieces and full hands, a second encoder written here from the format
//! description, and every error class (an error, never a panic).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use ryuo::learn::{PackError, PackedSfen, PackedSfenValue, PsvReadError, PsvReader, PsvWriter};
use ryuo::movegen::legal_moves;
use ryuo::position::{Position, SfenError};
use ryuo::types::{Color, Move, PieceType};

/// A second, deliberately plain encoder: takes SFEN text (which need not be
/// legal) and writes the bit stream the format describes.
fn encode(sfen: &str) -> [u8; 32] {
    let f: Vec<&str> = sfen.split_whitespace().collect();
    let mut board: Vec<Option<(bool, bool, char)>> = vec![None; 81]; // (white, promoted, letter)
    for (rank, row) in f[0].split('/').enumerate() {
        let mut file = 8i32;
        let mut promoted = false;
        for ch in row.chars() {
            if ch == '+' {
                promoted = true;
            } else if let Some(d) = ch.to_digit(10) {
                file -= d as i32;
            } else {
                let sq = file as usize * 9 + rank;
                board[sq] = Some((ch.is_ascii_lowercase(), promoted, ch.to_ascii_uppercase()));
                promoted = false;
                file -= 1;
            }
        }
    }
    let code = |c: char| match c {
        'P' => (0x01, 2),
        'L' => (0x03, 4),
        'N' => (0x0b, 4),
        'S' => (0x07, 4),
        'B' => (0x1f, 6),
        'R' => (0x3f, 6),
        _ => (0x0f, 5),
    };
    let mut bits: Vec<bool> = Vec::new();
    let put = |bits: &mut Vec<bool>, v: u32, n: u32| {
        for i in 0..n {
            bits.push(v >> i & 1 != 0);
        }
    };
    put(&mut bits, (f[1] == "w") as u32, 1);
    let king = |white: bool| {
        board
            .iter()
            .position(|p| *p == Some((white, false, 'K')))
            .unwrap()
    };
    let (bk, wk) = (king(false), king(true));
    put(&mut bits, bk as u32, 7);
    put(&mut bits, wk as u32, 7);
    for (sq, p) in board.iter().enumerate() {
        if sq == bk || sq == wk {
            continue;
        }
        match *p {
            None => put(&mut bits, 0, 1),
            Some((white, promoted, c)) => {
                let (v, n) = code(c);
                put(&mut bits, v, n);
                if c != 'G' {
                    put(&mut bits, promoted as u32, 1);
                }
                put(&mut bits, white as u32, 1);
            }
        }
    }
    let mut hands = [[0u32; 128]; 2];
    let mut n = 0;
    for ch in f[2].chars().filter(|&c| c != '-') {
        if let Some(d) = ch.to_digit(10) {
            n = n * 10 + d;
        } else {
            hands[ch.is_ascii_lowercase() as usize][ch.to_ascii_uppercase() as usize] += n.max(1);
            n = 0;
        }
    }
    for (white, hand) in hands.iter().enumerate() {
        for c in ['P', 'L', 'N', 'S', 'B', 'R', 'G'] {
            for _ in 0..hand[c as usize] {
                let (v, n) = code(c);
                put(&mut bits, v >> 1, n - 1);
                if c != 'G' {
                    put(&mut bits, 0, 1);
                }
                put(&mut bits, white as u32, 1);
            }
        }
    }
    assert!(bits.len() <= 256, "{sfen}: {} bits", bits.len());
    let mut out = [0u8; 32];
    for (i, b) in bits.iter().enumerate() {
        out[i / 8] |= (*b as u8) << (i % 8);
    }
    out
}

fn round_trip(pos: &Position) {
    let packed = PackedSfen::pack(pos).unwrap();
    assert_eq!(packed.0, encode(&pos.to_sfen()), "{}", pos.to_sfen());
    let back = packed.unpack_at(pos.game_ply()).unwrap();
    assert_eq!(back.to_sfen(), pos.to_sfen());
    assert_eq!(PackedSfen::pack(&back).unwrap(), packed);
}

#[test]
fn random_play_round_trips() {
    let mut rng = StdRng::seed_from_u64(2024);
    let mut positions = 0;
    for _ in 0..30 {
        let mut pos = Position::startpos();
        for _ in 0..200 {
            round_trip(&pos);
            positions += 1;
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.gen_range(0..moves.len())];
            let rec = PackedSfenValue::new(&pos, -7, m, 1).unwrap();
            let rec = PackedSfenValue::from_bytes(&rec.to_bytes());
            assert_eq!(rec.best_move(), m);
            assert_eq!(rec.position().unwrap().to_sfen(), pos.to_sfen());
            pos.do_move(m);
        }
    }
    assert!(positions >= 3000, "{positions}");
}

#[test]
fn promoted_pieces_and_full_hands() {
    for sfen in [
        "lnsgkgsnl/1+r5+b1/+p+p+p+p+p+p+p+p+p/9/9/9/+P+P+P+P+P+P+P+P+P/1+B5+R1/+L+N+SGKG+S+N+L b - 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1",
        "4k4/9/9/9/9/9/9/9/4K4 w 2r2b4g4s4n4l18p 1",
        "4k4/9/9/9/9/9/9/9/4K4 w RB2GS3NL9Prb2g3sn3l9p 100",
        "K8/9/9/9/9/9/9/9/8k b 2R2B4G4S4N4L9P9p 1",
        "8K/9/9/9/9/9/9/9/k8 w 2R2B4G4S4N4L9P9p 1",
    ] {
        let pos = Position::from_sfen(sfen).unwrap();
        round_trip(&pos);
        assert_eq!(pos.to_sfen(), sfen);
    }
}

fn pack_err(sfen: &str) -> PackError {
    let pos = Position::from_sfen(sfen).unwrap();
    let e = PackedSfen::pack(&pos).unwrap_err();
    assert!(!e.to_string().is_empty());
    e
}

fn unpack_err(bytes: [u8; 32]) -> PackError {
    let Err(e) = PackedSfen(bytes).unpack() else {
        panic!("accepted {:?}", PackedSfen(bytes));
    };
    assert!(!e.to_string().is_empty());
    e
}

fn set_bits(bytes: &mut [u8; 32], from: usize, value: u32, n: usize) {
    for i in 0..n {
        let bit = from + i;
        bytes[bit / 8] &= !(1 << (bit % 8));
        bytes[bit / 8] |= ((value >> i & 1) as u8) << (bit % 8);
    }
}

#[test]
fn positions_that_cannot_be_packed() {
    assert_eq!(
        pack_err("4k4/9/9/9/9/9/9/9/9 b 2R2B4G4S4N4L18P 1"),
        PackError::MissingKing(Color::Black)
    );
    assert_eq!(
        pack_err("4k4/9/9/9/9/9/9/9/4K4 b - 1"),
        PackError::PieceCount {
            kind: PieceType::Pawn,
            count: 0
        }
    );
    assert_eq!(
        pack_err("4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L17P 1"),
        PackError::PieceCount {
            kind: PieceType::Pawn,
            count: 17
        }
    );
}

#[test]
fn bad_bit_streams() {
    let start = PackedSfen::pack(&Position::startpos()).unwrap().0;

    let mut b = start;
    set_bits(&mut b, 1, 81, 7);
    assert_eq!(unpack_err(b), PackError::BadKingSquare(81));
    let mut b = start;
    set_bits(&mut b, 8, 127, 7);
    assert_eq!(unpack_err(b), PackError::BadKingSquare(127));

    let mut b = start;
    let black_king = b[0] as u32 >> 1 | (b[1] as u32 & 1) << 7;
    set_bits(&mut b, 8, black_king & 0x7f, 7);
    assert_eq!(unpack_err(b), PackError::KingsOnOneSquare);

    // Kings, 79 empty squares, then a pawn in hand with its promotion bit.
    let mut b = [0u8; 32];
    set_bits(&mut b, 1, 44, 7);
    set_bits(&mut b, 8, 36, 7);
    set_bits(&mut b, 94, 0b010, 3);
    assert_eq!(unpack_err(b), PackError::PromotedInHand);

    // Nineteen pawns on the board.
    let mut b = [0u8; 32];
    set_bits(&mut b, 1, 80, 7);
    set_bits(&mut b, 8, 0, 7);
    for i in 0..19 {
        set_bits(&mut b, 15 + 4 * i, 0b0001, 4);
    }
    assert_eq!(unpack_err(b), PackError::TooManyPieces(PieceType::Pawn));

    // A full set less one pawn, then ones: the last hand code runs past 256.
    let mut b = encode("4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L17P 1");
    set_bits(&mut b, 253, 0b111, 3);
    assert_eq!(unpack_err(b), PackError::Overrun);
}

#[test]
fn illegal_positions_are_refused() {
    let illegal = |sfen: &str| unpack_err(encode(sfen));
    assert_eq!(
        illegal("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PPP1PPPPP/1B5R1/LNSGKGSNL b - 1"),
        PackError::Illegal(SfenError::TwoPawns(Color::Black, 6))
    );
    assert_eq!(
        illegal("4k4/9/9/9/4R4/9/9/9/4K4 b R2B4G4S4N4L18P 1"),
        PackError::Illegal(SfenError::SideNotToMoveInCheck)
    );
    assert!(matches!(
        illegal("P3k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L17P 1"),
        PackError::Illegal(SfenError::DeadPiece(_))
    ));
    assert!(matches!(
        illegal("4k3N/9/9/9/9/9/9/9/4K4 b 2R2B4G4S3N4L18P 1"),
        PackError::Illegal(SfenError::DeadPiece(_))
    ));
}

#[test]
fn record_files_round_trip_and_truncation() {
    let dir = std::env::temp_dir().join(format!("ryuo-packed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("records.psv");
    let pos = Position::startpos();
    let mv: Move = pos.parse_usi_move("2g2f").unwrap();
    let records: Vec<_> = (0..5)
        .map(|i| PackedSfenValue::new(&pos, i * 100 - 200, mv, (i % 3 - 1) as i8).unwrap())
        .collect();
    let mut w = PsvWriter::create(&path).unwrap();
    for r in &records {
        w.write(r).unwrap();
    }
    w.finish().unwrap();
    assert_eq!(ryuo::learn::read_records(&path).unwrap(), records);

    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    let read: Vec<_> = PsvReader::open(&path).unwrap().collect();
    assert_eq!(read.len(), 5);
    assert!(read[..4].iter().all(|r| r.is_ok()));
    assert!(matches!(
        read[4],
        Err(PsvReadError::Truncated {
            records: 4,
            bytes: 39
        })
    ));
    assert!(ryuo::learn::read_records(&path).is_err());
    assert!(matches!(
        ryuo::learn::read_records(dir.join("missing.psv")),
        Err(PsvReadError::Io(_))
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
