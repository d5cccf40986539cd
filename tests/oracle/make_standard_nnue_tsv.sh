#!/bin/bash
# Remakes tests/data/standard_nnue_expected.tsv: YaneuraOu's own `eval` of
# every position of tests/data/nnue_positions.sfen, for a random network of
# each supported architecture (`ryuo nnue random --arch A --seed 1`), and for
# halfkp_256x2-32-32 at FV_SCALE 24 too. tests/standard_nnue.rs regenerates
# the same networks from their seeds and compares every value.
#
# Needs YaneuraOu's NNUE builds (../shared/tools/build_yaneuraou.sh makes
# yaneuraou-nnue; the other architectures are the same `make` with
# YANEURAOU_EDITION=YANEURAOU_ENGINE_NNUE_KP256, _NNUE_HALFKP_512X2_16_32,
# _NNUE_HALFKP_1024X2_8_32, _NNUE_HALFKP_1024X2_8_64).
# Usage: ANCHORS=<folder of the builds> tests/oracle/make_standard_nnue_tsv.sh
set -euo pipefail
ANCHORS=${ANCHORS:?set ANCHORS to the folder holding the YaneuraOu builds}
cd "$(dirname "$0")/../.."
cargo build --release -q
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
positions=tests/data/nnue_positions.sfen
cols=()
run() { # arch binary fv_scale
  ./target/release/ryuo nnue random --arch "$1" --seed 1 --out "$tmp/$1.bin" >/dev/null
  python3 tests/oracle/yaneuraou_eval.py --engine "$ANCHORS/$2" --nn "$tmp/$1.bin" \
    --fv-scale "$3" --positions $positions --out "$tmp/$1-$3.tsv"
  cols+=("$tmp/$1-$3.tsv")
}
run halfkp_256x2-32-32 yaneuraou-nnue 16
run halfkp_256x2-32-32 yaneuraou-nnue 24
run halfkp_512x2-16-32 yaneuraou-nnue-halfkp-512x2-16-32 16
run halfkp_1024x2-8-32 yaneuraou-nnue-halfkp-1024x2-8-32 16
run halfkp_1024x2-8-64 yaneuraou-nnue-halfkp-1024x2-8-64 16
run kp_256x2-32-32 yaneuraou-nnue-kp256 16
{
  printf 'sfen\thalfkp_256x2-32-32\thalfkp_256x2-32-32@24\thalfkp_512x2-16-32\thalfkp_1024x2-8-32\thalfkp_1024x2-8-64\tkp_256x2-32-32\n'
  paste "${cols[0]}" <(cut -f2 "${cols[1]}") <(cut -f2 "${cols[2]}") <(cut -f2 "${cols[3]}") \
    <(cut -f2 "${cols[4]}") <(cut -f2 "${cols[5]}")
} > tests/data/standard_nnue_expected.tsv
wc -l tests/data/standard_nnue_expected.tsv
