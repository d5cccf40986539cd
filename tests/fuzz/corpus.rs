//! The valid inputs that the targets mutate: positions from the test
//! data, and books, networks and records built from them or read from
//! `tests/data`. Each is made once per test process.

use rand::SeedableRng;
use ryuo::book::{format, BookMove};
use ryuo::movegen::legal_moves;
use ryuo::nnue::standard::{Arch, StandardNetwork};
use ryuo::nnue::Network;
use ryuo::position::Position;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A file of the test data, by its path under `tests/data`.
pub fn data_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn read_data(name: &str) -> Vec<u8> {
    std::fs::read(data_path(name)).unwrap_or_else(|e| panic!("tests/data/{name}: {e}"))
}

/// The first field of each data line of a tab-separated file whose first
/// field is an SFEN (comments skipped).
fn sfens_of_tsv(name: &str, take: usize) -> Vec<String> {
    String::from_utf8(read_data(name))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').next().unwrap().to_string())
        .take(take)
        .collect()
}

/// Valid SFENs: the start position, middlegames, mate problems (one side
/// without some pieces, long move numbers) and perft positions (checks,
/// promoted pieces, full hands).
pub fn sfens() -> &'static [String] {
    static SFENS: OnceLock<Vec<String>> = OnceLock::new();
    SFENS.get_or_init(|| {
        let mut all = vec![Position::startpos().to_sfen()];
        let games = String::from_utf8(read_data("nnue_positions.sfen")).unwrap();
        all.extend(games.lines().step_by(100).map(str::to_string));
        all.extend(sfens_of_tsv("tsume.tsv", 40));
        all.extend(sfens_of_tsv("perft_random.tsv", 60));
        // Entering-king positions, to reach declarations: Black's king in
        // the camp with enough points, and a near miss.
        all.push("+R+B+S+S+S3k/+P+P+P+P+P+P+P2/K8/9/9/9/9/9/9 b RB2G2N2L4P2g2n2l7p 1".into());
        all.push("4k4/9/9/9/9/9/9/9/4K4 b - 1".into());
        for sfen in &all {
            Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        }
        all
    })
}

/// The positions of `sfens`.
pub fn positions() -> &'static [Position] {
    static POSITIONS: OnceLock<Vec<Position>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        sfens()
            .iter()
            .map(|s| Position::from_sfen(s).unwrap())
            .collect()
    })
}

/// Plays the legal move `pick % count` for each pick, stopping where no
/// move is left; the position and the moves played.
pub fn walk(start: &Position, picks: &[u16]) -> (Position, Vec<String>) {
    let mut pos = start.clone();
    let mut played = Vec::new();
    for &pick in picks {
        let moves = legal_moves(&pos);
        if moves.is_empty() {
            break;
        }
        let m = moves[pick as usize % moves.len()];
        played.push(m.to_string());
        pos.do_move(m);
    }
    (pos, played)
}

/// Valid book texts: the test book, and one written here with the moves
/// of random walks (every field used, ponder moves, counts).
pub fn books() -> &'static [Vec<u8>] {
    static BOOKS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    BOOKS.get_or_init(|| {
        let mut written = Vec::new();
        format::write_header(&mut written).unwrap();
        for (i, start) in positions().iter().take(12).enumerate() {
            let (pos, _) = walk(start, &[i as u16 * 7, 3, 11]);
            let moves = legal_moves(&pos);
            let book_moves: Vec<BookMove> = moves
                .iter()
                .take(3)
                .enumerate()
                .map(|(j, &mv)| {
                    let mut after = pos.clone();
                    after.do_move(mv);
                    BookMove {
                        mv,
                        ponder: legal_moves(&after).first().copied().unwrap_or(mv),
                        value: 40 - 30 * j as i32,
                        depth: 20 + j as u16,
                        count: 1 + i as u32,
                    }
                })
                .collect();
            format::write_position(&mut written, &pos.to_sfen(), &book_moves).unwrap();
        }
        vec![read_data("book_small.db"), written]
    })
}

/// A valid RYUONNUE file of the smallest width, and the embedded network.
pub fn ryuo_networks() -> &'static [Vec<u8>] {
    static NETWORKS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    NETWORKS.get_or_init(|| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(23);
        let small = Network::random(16, &mut rng).to_bytes();
        let embedded =
            std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/nnue/nets/default.nnue"))
                .unwrap();
        vec![small, embedded]
    })
}

/// A valid YaneuraOu `nn.bin` of the smallest architecture (KP, 0.8 MB).
pub fn standard_network() -> &'static [u8] {
    static NETWORK: OnceLock<Vec<u8>> = OnceLock::new();
    NETWORK.get_or_init(|| {
        StandardNetwork::random(Arch::by_name("kp_256x2-32-32").unwrap(), 23).to_bytes()
    })
}

/// The committed training-record sample (`tests/data/sample.psv`).
pub fn training_records() -> &'static [u8] {
    static RECORDS: OnceLock<Vec<u8>> = OnceLock::new();
    RECORDS.get_or_init(|| read_data("sample.psv"))
}

/// The game records of `tests/data/analyse`: KIF (Shift_JIS), CSA, USI.
pub fn game_records() -> &'static [Vec<u8>] {
    static RECORDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    RECORDS.get_or_init(|| {
        ["analyse/game.kif", "analyse/game.csa", "analyse/game.usi"]
            .iter()
            .map(|name| read_data(name))
            .collect()
    })
}
