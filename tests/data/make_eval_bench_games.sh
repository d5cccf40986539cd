#!/bin/bash
# Remakes tests/data/eval_bench_games.txt: 200 Ryuo self-play games for the NNUE
# evaluation-throughput bench (one game per line: `startpos moves <usi moves...>`).
# Ryuo is deterministic, so the two colour-swapped games of a pair are identical:
# 420 games are played from 210 openings, duplicates and games outside
# 60..250 plies are dropped, and the first 200 remaining games are kept.
# Every move is checked legal by the referee (cshogi) and again below.
# Run from anywhere; takes ~3-5 minutes on one core.
# The games depend on Ryuo's search and its default evaluation (no EvalFile is set). The file was made
# with Ryuo at commit feb7398 plus uncommitted NNUE work then in progress (the first game, checked,
# came out the same as with a clean build of feb7398). md5 4f8508964b5bce87e4fa26c752f6a02f; 25,152 plies;
# games of 60..244 plies. A later Ryuo may play other games.
set -euo pipefail
cd "$(dirname "$0")/../.."
TOOLS=../shared/tools
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cargo build --release
python3 "$TOOLS/make_openings.py" --count 210 --seed 3 --format usi --out "$TMP/openings.txt"
python3 "$TOOLS/match.py" --engine1 target/release/ryuo --engine2 target/release/ryuo \
  --nodes 3000 --games 420 --openings "$TMP/openings.txt" --max-plies 236 \
  --records "$TMP/records.txt" --concurrency 1 --quiet
python3 - "$TMP/records.txt" tests/data/eval_bench_games.txt <<'PY'
import sys, cshogi
src, dst = sys.argv[1], sys.argv[2]
seen, out = set(), []
for rec in open(src, encoding="utf-8"):
    line = rec.rstrip("\n").split("\t", 1)[1]
    assert line.startswith("position startpos moves "), line[:40]
    line = line[len("position "):]
    moves = line.split()[2:]
    if not (60 <= len(moves) <= 250) or line in seen:
        continue
    b = cshogi.Board()
    for m in moves:
        mv = b.move_from_usi(m)
        assert mv and b.is_legal(mv), (m, line)
        b.push(mv)
    seen.add(line)
    out.append(line)
assert len(out) >= 200, "only %d usable games" % len(out)
with open(dst, "w", encoding="utf-8") as f:
    f.write("\n".join(out[:200]) + "\n")
print("wrote %d games to %s" % (min(200, len(out)), dst))
PY
