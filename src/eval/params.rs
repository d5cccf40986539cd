//! Every evaluation parameter, gathered here so that a tuner (or a human)
//! finds them in one place. Units are centipawns (a pawn on the board is 100)
//! unless a comment says otherwise. Arrays indexed by piece type use
//! `PieceType::index()` (1..=14; slot 0 unused), in the order
//! pawn, lance, knight, silver, bishop, rook, gold, king, tokin, promoted
//! lance, promoted knight, promoted silver, horse, dragon.
//!
//! The values are hand-set starting points, not tuned ones: they follow the
//! usual proportions of shogi engines (YaneuraOu-style material rescaled to a
//! pawn of 100) and the folklore of the game (golds and silvers belong next
//! to their king; a dragon or a tokin next to the enemy king is deadly).

use crate::types::{PieceType, Value};

// ---------------------------------------------------------------------------
// Material.

/// What the king is "worth" to SEE and move ordering: more than everything
/// else together, so that it is always the least valuable attacker last and
/// never traded. It never enters the material sum.
pub const KING_VALUE: Value = 15_000;

/// Value of a piece on the board, by piece type.
pub const PIECE_VALUE: [Value; PieceType::NUM] = [
    0,          // (unused)
    100,        // pawn
    250,        // lance
    290,        // knight
    400,        // silver
    700,        // bishop
    820,        // rook
    500,        // gold
    KING_VALUE, // king
    // A promoted minor moves like a gold but gives the opponent only the
    // unpromoted piece when captured; the sum of both effects is what
    // `capture_value` reports, so the board value itself stays near a gold.
    490,  // tokin
    480,  // promoted lance
    480,  // promoted knight
    490,  // promoted silver
    950,  // horse
    1100, // dragon
];

/// Value of a piece held in hand, by (unpromoted) kind: slightly above its
/// board value because a drop can land it on any square, with tempo.
/// Pawns are the exception: see `HAND_PAWN_VALUE`.
pub const HAND_VALUE: [Value; PieceType::NUM] = [
    0,   // (unused)
    0,   // pawn: valued by HAND_PAWN_VALUE instead
    280, // lance
    320, // knight
    450, // silver
    780, // bishop
    920, // rook
    560, // gold
    0, 0, 0, 0, 0, 0, 0, // king and promoted kinds never sit in hand
];

/// Total value of `n` pawns in hand (index = count, up to the 18 of a set).
/// The first pawn in hand is worth much more than a pawn on the board: it
/// blocks checks, starts attacks (tarefu, tsugifu) and fixes holes; each
/// further pawn adds less. Marginal values: 130, 120, 110, 100, 95, 90, 85,
/// then 80.
pub const HAND_PAWN_VALUE: [Value; 19] = [
    0, 130, 250, 360, 460, 555, 645, 730, 810, 890, 970, 1050, 1130, 1210, 1290, 1370, 1450, 1530,
    1610,
];

/// Value of each pawn in hand when every file already holds one of the
/// side's own pawns, so that none can be dropped (nifu): a dead pawn in hand
/// is still worth a pawn as material for later, but no more.
pub const UNDROPPABLE_HAND_PAWN_VALUE: Value = 90;

// ---------------------------------------------------------------------------
// Piece placement relative to both kings (a KP-style table).
//
// The tables in `tables.rs` are indexed by the piece's offset from a king as
// the piece's owner sees the board; here they are built from two short
// profiles by Chebyshev distance (0..=8; 0 cannot happen) plus a shield bonus
// for standing in front of one's own king. A tuner can replace the profiles
// with full offset tables without touching the evaluation code.

/// Bonus by distance to the piece's own king: the defenders of a castle.
pub const OWN_KING_PROXIMITY: [[Value; 9]; PieceType::NUM] = [
    [0; 9],                                // (unused)
    [0, 12, 8, 2, 0, 0, 0, 0, 0],          // pawn: the pawn shield
    [0, 6, 4, 0, 0, 0, 0, 0, 0],           // lance
    [0, 8, 12, 4, 0, 0, -2, -4, -6],       // knight
    [0, 40, 38, 14, 0, -6, -10, -12, -14], // silver
    [0, 10, 8, 4, 0, 0, 0, 0, 0],          // bishop
    [0, 10, 8, 4, 0, 0, 0, 0, 0],          // rook
    [0, 55, 38, 12, 0, -8, -14, -18, -22], // gold
    [0; 9],                                // king
    [0, 30, 20, 6, 0, 0, 0, 0, 0],         // tokin
    [0, 28, 18, 6, 0, 0, 0, 0, 0],         // promoted lance
    [0, 28, 18, 6, 0, 0, 0, 0, 0],         // promoted knight
    [0, 30, 20, 6, 0, 0, 0, 0, 0],         // promoted silver
    [0, 50, 40, 20, 6, 0, 0, 0, 0],        // horse: "a horse guards like three golds"
    [0, 30, 20, 10, 0, 0, 0, 0, 0],        // dragon
];

/// Extra bonus for a piece within two squares of its own king and in front
/// of it (toward the enemy): that is where a castle's wall stands.
pub const OWN_KING_SHIELD: [Value; PieceType::NUM] = [
    0,  // (unused)
    8,  // pawn
    0,  // lance
    0,  // knight
    12, // silver
    0,  // bishop
    0,  // rook
    8,  // gold
    0,  // king
    4,  // tokin
    4,  // promoted lance
    4,  // promoted knight
    4,  // promoted silver
    0,  // horse
    0,  // dragon
];

/// Bonus by distance to the enemy king: the attackers.
pub const ENEMY_KING_PROXIMITY: [[Value; 9]; PieceType::NUM] = [
    [0; 9],                          // (unused)
    [0, 25, 18, 6, 0, 0, 0, 0, 0],   // pawn
    [0, 12, 12, 8, 4, 0, 0, 0, 0],   // lance
    [0, 18, 30, 16, 4, 0, 0, 0, 0],  // knight: strikes from two ranks away
    [0, 45, 35, 16, 4, 0, 0, 0, 0],  // silver
    [0, 25, 20, 12, 6, 0, 0, 0, 0],  // bishop
    [0, 35, 28, 16, 8, 0, 0, 0, 0],  // rook
    [0, 55, 40, 18, 4, 0, 0, 0, 0],  // gold
    [0; 9],                          // king
    [0, 65, 45, 20, 6, 0, 0, 0, 0],  // tokin: cheap to give up, deadly to face
    [0, 55, 40, 18, 4, 0, 0, 0, 0],  // promoted lance
    [0, 55, 40, 18, 4, 0, 0, 0, 0],  // promoted knight
    [0, 55, 40, 18, 4, 0, 0, 0, 0],  // promoted silver
    [0, 60, 45, 25, 10, 0, 0, 0, 0], // horse
    [0, 90, 65, 35, 12, 0, 0, 0, 0], // dragon
];

// ---------------------------------------------------------------------------
// Slider mobility: squares a slider reaches that its own pieces do not hold,
// counting only its sliding part (a horse's or dragon's extra king steps are
// always there and say nothing about its activity).

/// Lance mobility by number of reachable squares (0..=8).
pub const LANCE_MOBILITY: [Value; 9] = [-12, -6, 0, 3, 6, 8, 10, 11, 12];

/// Bishop (and horse) mobility by number of reachable squares (0..=16).
pub const BISHOP_MOBILITY: [Value; 17] = [
    -45, -30, -18, -8, 0, 6, 12, 17, 22, 26, 30, 33, 36, 38, 40, 42, 44,
];

/// Rook (and dragon) mobility by number of reachable squares (0..=16).
pub const ROOK_MOBILITY: [Value; 17] = [
    -40, -28, -18, -10, -4, 0, 5, 9, 13, 17, 20, 23, 26, 28, 30, 32, 34,
];

// ---------------------------------------------------------------------------
// King safety. Each king's "zone" is the king's square and its eight
// neighbours. A danger score adds what threatens the zone, subtracts what
// protects it, and costs `danger² / KING_DANGER_DIVISOR` (capped) when
// positive: a lone attacker does little, several together break a castle.

/// Danger added by each enemy piece attacking at least one zone square.
pub const KING_ATTACKER_WEIGHT: [Value; PieceType::NUM] = [
    0,  // (unused)
    6,  // pawn
    10, // lance
    16, // knight
    20, // silver
    22, // bishop
    28, // rook
    24, // gold
    4,  // king (kings standing next to each other)
    24, // tokin
    24, // promoted lance
    24, // promoted knight
    24, // promoted silver
    34, // horse
    42, // dragon
];

/// Danger added per zone square the enemy attacks.
pub const KING_ZONE_ATTACKED_WEIGHT: Value = 9;

/// Danger removed per zone square the king's side covers with pieces other
/// than the king itself.
pub const KING_ZONE_DEFENDED_WEIGHT: Value = 8;

/// Danger removed per flight square: a neighbour the king could step to
/// (empty or enemy-held) that no enemy piece attacks.
pub const KING_ESCAPE_WEIGHT: Value = 4;

/// Danger added when the enemy holds at least one piece of this kind in
/// hand: drops make attacks from nowhere. Indexed by hand kind.
pub const KING_HAND_DANGER: [Value; PieceType::NUM] = [
    0,  // (unused)
    6,  // pawn: tataki and tarefu
    12, // lance
    16, // knight
    24, // silver
    22, // bishop
    40, // rook: the drop that forks and mates
    30, // gold: the mating piece
    0, 0, 0, 0, 0, 0, 0, // never in hand
];

/// Extra danger for every further piece in the enemy hand beyond the first
/// of each kind (several drops in a row keep an attack going).
pub const KING_HAND_EXTRA_PIECE_DANGER: Value = 4;

/// Divisor of the squared danger; with 64, a danger of 100 costs 156.
pub const KING_DANGER_DIVISOR: Value = 64;

/// Most king-safety penalty a side can suffer: beyond it the search, not
/// the evaluation, must tell whether the king survives.
pub const KING_DANGER_MAX: Value = 1500;
