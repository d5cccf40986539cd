//! Game records: `analyse::record::parse_bytes` on random and mutated KIF,
//! CSA and USI texts. A record is refused or read as a consistent start
//! position and moves each legal where played, never a panic.

use super::corpus;
use super::mutate::{mutated, mutations};
use crate::config;
use proptest::prelude::*;
use proptest::sample::Index;
use ryuo::analyse::record::parse_bytes;

/// Bytes of CSA and USI records and of KIF move numbers.
const RECORD_ALPHABET: &[u8] =
    b"+-%0123456789abcdefghiPLNSGBRK*FUKYKEGIKIKAHITOOUNYNKNGUMRY,:'\n\r\t /";

/// Whole tokens: KIF words in UTF-8 and in Shift_JIS, CSA and USI words.
const RECORD_TOKENS: &[&str] = &[
    "\n",
    "\r\n",
    "同\u{3000}",
    "成",
    "不成",
    "打",
    "投了",
    "中断",
    "詰み",
    "千日手",
    "７六歩(77)",
    "５五角打",
    "手合割：香落ち\n",
    "手合割：平手\n",
    "開始局面\n",
    "後手の持駒：飛\n",
    "+7776FU",
    "-3334FU",
    "+0055KA",
    "%TORYO",
    "%KACHI",
    "PI\n",
    "P1-KY\n",
    "P+00HI\n",
    "P-00AL\n",
    "'CSA encoding=SHIFT_JIS\n",
    "position ",
    "startpos",
    " moves ",
    " sfen ",
    "\u{feff}",
    "\u{3000}",
    "９",
    "十",
];

fn check_record(bytes: &[u8]) {
    let Ok(record) = parse_bytes(bytes) else {
        return;
    };
    record
        .start
        .is_ok()
        .unwrap_or_else(|e| panic!("the start position is inconsistent: {e}"));
    let mut pos = record.start.clone();
    for m in &record.moves {
        assert!(
            pos.is_legal_move(m.mv),
            "line {}: {} ({}) is not legal in {}",
            m.line,
            m.text,
            m.mv,
            pos.to_sfen()
        );
        pos.do_move(m.mv);
    }
}

proptest! {
    #![proptest_config(config(3000))]

    /// Any bytes at all.
    #[test]
    fn random_bytes_are_refused_or_legal(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        check_record(&bytes);
    }

    /// The KIF, CSA and USI fixtures changed byte by byte and token by token.
    #[test]
    fn mutated_records_are_refused_or_legal(
        which in any::<Index>(),
        changes in mutations(RECORD_ALPHABET, RECORD_TOKENS, 6),
    ) {
        let records = corpus::game_records();
        check_record(&mutated(&records[which.index(records.len())], &changes));
    }
}

/// The fixtures are read whole.
#[test]
fn the_corpus_records_are_read() {
    for bytes in corpus::game_records() {
        let record = parse_bytes(bytes).expect("a valid record");
        assert!(record.moves.len() > 10);
        check_record(bytes);
    }
}
