//! Mutations of valid inputs, as a fuzzer makes them: bits flipped, bytes
//! set, inserted, deleted, duplicated or cut off, and 32-bit fields set to
//! values that break size arithmetic. Positions are `Index`es, so that a
//! mutation fits any input and shrinks toward the start.

use proptest::prelude::*;
use proptest::sample::Index;

/// One change to a byte string.
#[derive(Clone, Debug)]
pub enum Mutation {
    FlipBit(Index, u8),
    SetByte(Index, u8),
    Insert(Index, Vec<u8>),
    Delete(Index, usize),
    /// Copies `len` bytes from the first index to the second.
    Duplicate(Index, usize, Index),
    Truncate(Index),
    /// Writes a little-endian `u32` at a byte offset among the first 64
    /// (where file headers keep their sizes and versions).
    SetHeaderU32(u8, u32),
    /// Writes a little-endian `u32` anywhere.
    SetU32(Index, u32),
}

/// Values that break size arithmetic or sit on a limit.
const EDGE_U32: [u32; 12] = [
    0,
    1,
    2,
    16,
    255,
    4096,
    65_535,
    65_536,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
];

fn edge_u32() -> impl Strategy<Value = u32> {
    prop_oneof![proptest::sample::select(&EDGE_U32[..]), any::<u32>()]
}

/// A byte: one of `alphabet` (those the format gives a meaning) or any.
fn byte(alphabet: &'static [u8]) -> BoxedStrategy<u8> {
    if alphabet.is_empty() {
        return any::<u8>().boxed();
    }
    prop_oneof![3 => proptest::sample::select(alphabet), 1 => any::<u8>()].boxed()
}

/// Bytes to insert: a token of `tokens`, or a few bytes.
fn insertion(alphabet: &'static [u8], tokens: &'static [&'static str]) -> BoxedStrategy<Vec<u8>> {
    let bytes = proptest::collection::vec(byte(alphabet), 1..5);
    if tokens.is_empty() {
        return bytes.boxed();
    }
    prop_oneof![
        bytes,
        proptest::sample::select(tokens).prop_map(|t| t.as_bytes().to_vec())
    ]
    .boxed()
}

/// A mutation whose new bytes favour `alphabet` and `tokens`.
pub fn mutation(
    alphabet: &'static [u8],
    tokens: &'static [&'static str],
) -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<Index>(), 0..8u8).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        3 => (any::<Index>(), byte(alphabet)).prop_map(|(i, b)| Mutation::SetByte(i, b)),
        3 => (any::<Index>(), insertion(alphabet, tokens)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        2 => (any::<Index>(), 1..16usize).prop_map(|(i, n)| Mutation::Delete(i, n)),
        1 => (any::<Index>(), 1..32usize, any::<Index>())
            .prop_map(|(from, n, to)| Mutation::Duplicate(from, n, to)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
        1 => (0..64u8, edge_u32()).prop_map(|(at, v)| Mutation::SetHeaderU32(at, v)),
        1 => (any::<Index>(), edge_u32()).prop_map(|(i, v)| Mutation::SetU32(i, v)),
    ]
}

/// Up to `max` mutations.
pub fn mutations(
    alphabet: &'static [u8],
    tokens: &'static [&'static str],
    max: usize,
) -> impl Strategy<Value = Vec<Mutation>> {
    proptest::collection::vec(mutation(alphabet, tokens), 1..=max)
}

fn write_u32(bytes: &mut [u8], at: usize, v: u32) {
    for (b, v) in bytes.iter_mut().skip(at).zip(v.to_le_bytes()) {
        *b = v;
    }
}

/// Applies one mutation.
pub fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len();
    if len == 0 {
        if let Mutation::Insert(_, new) = m {
            bytes.extend_from_slice(new);
        }
        return;
    }
    match m {
        Mutation::FlipBit(i, bit) => bytes[i.index(len)] ^= 1 << bit,
        Mutation::SetByte(i, b) => bytes[i.index(len)] = *b,
        Mutation::Insert(i, new) => {
            let at = i.index(len + 1);
            bytes.splice(at..at, new.iter().copied());
        }
        Mutation::Delete(i, n) => {
            let at = i.index(len);
            bytes.drain(at..(at + n).min(len));
        }
        Mutation::Duplicate(from, n, to) => {
            let from = from.index(len);
            let piece = bytes[from..(from + n).min(len)].to_vec();
            let at = to.index(len + 1);
            bytes.splice(at..at, piece);
        }
        Mutation::Truncate(i) => bytes.truncate(i.index(len)),
        Mutation::SetHeaderU32(at, v) => write_u32(bytes, *at as usize, *v),
        Mutation::SetU32(i, v) => write_u32(bytes, i.index(len), *v),
    }
}

/// `original` with `mutations` applied in order.
pub fn mutated(original: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut bytes = original.to_vec();
    for m in mutations {
        apply(&mut bytes, m);
    }
    bytes
}
