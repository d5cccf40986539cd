//! HalfKP features as the trainer stores them.
//!
//! The engine's `ryuo::nnue::standard::features::Layout` numbers a HalfKP
//! feature `king_square · FE_END + bona_piece` (the perspective's own king
//! square, seen from that perspective). That is up to 125,387, more than a
//! `u16`; but all 38 features of one perspective share the king square, so
//! the trainer stores a perspective as 39 `u16`: the king square, then the
//! 38 BonaPieces (absent pieces are BonaPiece 0, as in the engine). This
//! keeps a sample as compact as Ryuo's own (`crate::dataset`), and is what
//! the factoriser needs anyway: it reads the BonaPiece alone.

use ryuo::nnue::standard::features::{mirror_bona_piece, on_mirrored_half, Layout, PIECES};
use ryuo::nnue::standard::{FeatureSet, FE_END};
use ryuo::position::Position;
use ryuo::types::{Color, Square};

/// `u16` entries per perspective: the king square and the 38 BonaPieces.
pub const ENTRIES: usize = 1 + PIECES;

/// One perspective of `pos` in the trainer's HalfKP form.
pub fn halfkp_features(pos: &Position, perspective: Color) -> [u16; ENTRIES] {
    let layout = Layout::new(FeatureSet::HalfKp);
    let offset = layout.piece_offset(pos, perspective);
    let mut out = [0u16; ENTRIES];
    out[0] = (offset as usize / FE_END) as u16;
    let active = layout.active(pos, perspective);
    debug_assert_eq!(active.len(), PIECES);
    for (o, f) in out[1..].iter_mut().zip(active) {
        *o = (f - offset) as u16;
    }
    out
}

/// The rows of a network's transformer that one perspective reads: 38
/// for HalfKP, 40 for K+P (with the two kings).
pub type Rows = arrayvec::ArrayVec<u32, { PIECES + 2 }>;

/// The engine's features (transformer rows) of the perspective whose
/// entries are `own`, given the other perspective's entries `enemy`:
/// HalfKP, `king · FE_END + bp` for each BonaPiece; K+P, the BonaPieces
/// themselves, then the own king's K feature (`FE_END + its square`) and
/// the enemy king's (`FE_END + 81 +` its square from this side: the
/// other perspective sees the board rotated, so `80 −` its entry).
#[inline]
pub fn feature_rows(set: FeatureSet, own: &[u16], enemy: &[u16]) -> Rows {
    let pieces = own[1..].iter();
    match set {
        FeatureSet::HalfKp => pieces.map(|&bp| feature_index(own[0], bp) as u32).collect(),
        FeatureSet::Kp => {
            let mut rows: Rows = pieces.map(|&bp| u32::from(bp)).collect();
            let squares = Square::NUM as u32;
            rows.push(FE_END as u32 + u32::from(own[0]));
            rows.push(FE_END as u32 + squares + (squares - 1 - u32::from(enemy[0])));
            rows
        }
    }
}

/// The engine's feature index of BonaPiece `bp` for king square `king`.
#[inline(always)]
pub fn feature_index(king: u16, bp: u16) -> usize {
    king as usize * FE_END + bp as usize
}

/// The entry (king square or BonaPiece) that `e` becomes when the board is
/// mirrored left to right: squares move to the mirrored file, hand slots
/// and BonaPiece 0 stay. Entry 0 of a perspective is a square, the others
/// BonaPieces (`is_king`).
pub fn mirror_entry(e: u16, is_king: bool) -> u16 {
    if is_king {
        Square::from_index(e as usize).mirror().index() as u16
    } else {
        mirror_bona_piece(u32::from(e)) as u16
    }
}

/// Whether a king on square `king` is on the board's mirrored half (USI
/// files 6–9) for a king-mirrored network (`--king-mirror`), which reads
/// such a perspective mirrored, so that it has 45 king squares, not 81.
#[inline(always)]
pub fn king_is_mirrored(king: u16) -> bool {
    on_mirrored_half(Square::from_index(king as usize))
}

/// One perspective's entries as a king-mirrored network reads them: as
/// they are with the king on files 1–5, mirrored left to right (into
/// `buf`) with it on files 6–9.
#[inline]
pub fn canonical<'a>(entries: &'a [u16], buf: &'a mut [u16; ENTRIES]) -> &'a [u16] {
    if !king_is_mirrored(entries[0]) {
        return entries;
    }
    for (i, (b, &e)) in buf.iter_mut().zip(entries).enumerate() {
        *b = mirror_entry(e, i == 0);
    }
    &buf[..entries.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_are_the_engines_and_mirror_like_positions() {
        // A position of a random game, pieces in hand and promoted ones.
        let mut pos = Position::startpos();
        crate::selfplay::random_positions(90, 3, |p| pos = p.clone());
        assert!(!pos.hand(Color::Black).is_empty() || !pos.hand(Color::White).is_empty());
        let layout = Layout::new(FeatureSet::HalfKp);
        let mirrored = pos.mirrored();
        for p in Color::ALL {
            let ours = halfkp_features(&pos, p);
            let engine: Vec<usize> = layout.active(&pos, p).iter().map(|&f| f as usize).collect();
            let decoded: Vec<usize> = ours[1..]
                .iter()
                .map(|&bp| feature_index(ours[0], bp))
                .collect();
            assert_eq!(decoded, engine);
            let mut m: Vec<u16> = ours
                .iter()
                .enumerate()
                .map(|(i, &e)| mirror_entry(e, i == 0))
                .collect();
            let mut expected = halfkp_features(&mirrored, p).to_vec();
            assert_eq!(m[0], expected[0]);
            m[1..].sort_unstable();
            expected[1..].sort_unstable();
            assert_eq!(m, expected);
        }
    }

    #[test]
    fn rows_are_the_engines_features_for_both_feature_sets() {
        for seed in 1..6 {
            let mut pos = Position::startpos();
            crate::selfplay::random_positions(40 + 10 * seed, seed as u64, |p| pos = p.clone());
            for set in [FeatureSet::HalfKp, FeatureSet::Kp] {
                let layout = Layout::new(set);
                for p in Color::ALL {
                    let (own, enemy) = (halfkp_features(&pos, p), halfkp_features(&pos, !p));
                    let mut rows = feature_rows(set, &own, &enemy).to_vec();
                    let mut engine: Vec<u32> = layout.active(&pos, p).to_vec();
                    rows.sort_unstable();
                    engine.sort_unstable();
                    assert_eq!(rows, engine, "{set:?} {p:?} {}", pos.to_sfen());
                    assert!(rows.iter().all(|&r| (r as usize) < set.dimensions()));
                }
            }
        }
    }

    #[test]
    fn canonical_entries_mirror_only_kings_on_files_6_to_9() {
        let mut pos = Position::startpos();
        crate::selfplay::random_positions(60, 5, |p| pos = p.clone());
        let mirrored = pos.mirrored();
        let mut buf = [0u16; ENTRIES];
        let mut other = [0u16; ENTRIES];
        for p in Color::ALL {
            let (a, b) = (halfkp_features(&pos, p), halfkp_features(&mirrored, p));
            let king = Square::from_index(a[0] as usize);
            let ca = canonical(&a, &mut buf).to_vec();
            let cb = canonical(&b, &mut other).to_vec();
            if king.file() <= 4 {
                assert_eq!(ca, a.to_vec());
            }
            assert!(!king_is_mirrored(ca[0]) && !king_is_mirrored(cb[0]));
            if king.file() != 4 {
                // Off the centre file, a position and its mirror read alike.
                let (mut ca, mut cb) = (ca, cb);
                ca[1..].sort_unstable();
                cb[1..].sort_unstable();
                assert_eq!(ca, cb);
            }
        }
    }
}
