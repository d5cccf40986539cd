#!/usr/bin/env python3
"""Asks YaneuraOu for the static NNUE evaluation of each position in a file.

    python3 tests/oracle/yaneuraou_eval.py --engine /work/anchors/yaneuraou-nnue \
        --nn /path/to/nn.bin [--fv-scale 16] \
        --positions tests/data/nnue_positions.sfen --out /tmp/yo_eval.tsv

ENGINE must be a YaneuraOu NNUE build whose `eval` command prints
`info string eval <v>` (the value of Eval::evaluate for the side to move, as
built by build_yaneuraou.sh). The net is put in a fresh temporary folder as
`nn.bin` and that folder's absolute path is given as EvalDir (YaneuraOu joins
EvalDir to its binary's folder with Path::Combine, which keeps an absolute
path unchanged). Options: Threads 1, USI_Hash 16, FV_SCALE N, no book.

POSITIONS has one SFEN per line (an optional leading `sfen ` is dropped;
blank lines and lines starting with `#` are skipped). OUT gets
`<sfen as given><TAB><value>` per position, in input order.

Commands are sent in one stream by a writer thread and answers read in
order. After each `eval` the script also sends `d` and checks that the
position YaneuraOu set up is the one asked for (board, side, hands), so a
value can never be paired with the wrong position (--no-verify skips this).
Exits non-zero if the engine reports an error (for instance a net it cannot
read) or a net hash mismatch (unless --allow-hash-mismatch), exits, stays silent for --timeout seconds, or a position gets no value.
"""

import argparse
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter

EVAL_RE = re.compile(r"^info string eval (-?\d+)\s*$")
HAND_ORDER = "RBGSNLP"


def die(msg):
    print("yaneuraou_eval: error: " + msg, file=sys.stderr)
    sys.exit(1)


def canonical(sfen):
    """Board, side and hands (hands in a fixed order); no move number."""
    f = sfen.split()
    if len(f) < 3:
        return sfen.strip()
    counts, n = Counter(), ""
    if f[2] != "-":
        for ch in f[2]:
            if ch.isdigit():
                n += ch
            else:
                counts[ch] += int(n) if n else 1
                n = ""
    hand = ""
    for letters in (HAND_ORDER, HAND_ORDER.lower()):
        for ch in letters:
            k = counts[ch]
            if k:
                hand += (str(k) if k > 1 else "") + ch
    return " ".join((f[0], f[1], hand or "-"))


class Engine:
    def __init__(self, path, cwd, timeout, allow_mismatch=False):
        self.timeout = timeout
        self.allow_mismatch = allow_mismatch
        self.proc = subprocess.Popen(
            [path], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.log = []  # last lines, for error messages
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)

    def send(self, text):
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the reader sees the exit and reports it

    def readline(self, waiting_for):
        try:
            line = self.lines.get(timeout=self.timeout)
        except queue.Empty:
            self.fail("no output for %ds while waiting for %s" % (self.timeout, waiting_for))
        if line is None:
            self.proc.wait()
            self.fail("engine exited (code %s) while waiting for %s" % (self.proc.returncode, waiting_for))
        self.log = (self.log + [line])[-20:]
        low = line.lower()
        if "error" in low or "critical" in low or ("mismatch" in low and not self.allow_mismatch):
            self.fail("engine reported: " + line)
        return line

    def wait_for(self, token, waiting_for=None):
        seen = []
        while True:
            line = self.readline(waiting_for or token)
            seen.append(line)
            if line.strip() == token:
                return seen

    def fail(self, msg):
        tail = "\n".join("  | " + l for l in self.log[-10:])
        try:
            self.proc.kill()
        except OSError:
            pass
        die(msg + ("\nlast engine output:\n" + tail if tail else ""))

    def quit(self):
        self.send("quit")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def read_positions(path):
    out = []
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            if s.startswith("sfen "):
                s = s[5:].strip()
            if len(s.split()) < 3:
                die("%s: not a SFEN: %r" % (path, s))
            out.append(s)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True, help="YaneuraOu NNUE binary")
    ap.add_argument("--nn", required=True, help="nn.bin to evaluate with")
    ap.add_argument("--fv-scale", type=int, default=16, help="FV_SCALE option (default 16)")
    ap.add_argument("--positions", required=True, help="one SFEN per line")
    ap.add_argument("--out", required=True, help="TSV: sfen<TAB>value")
    ap.add_argument("--timeout", type=float, default=120, help="seconds of engine silence before giving up")
    ap.add_argument("--no-verify", action="store_true", help="skip the `d` check of each position")
    ap.add_argument("--allow-hash-mismatch", action="store_true",
                    help="do not stop on the engine's 'hash mismatch' warning (it still stops if the net fails to load)")
    args = ap.parse_args()

    engine_path = os.path.abspath(args.engine)
    if not os.access(engine_path, os.X_OK):
        die("engine not executable: " + engine_path)
    if not os.path.isfile(args.nn):
        die("no such net: " + args.nn)
    if not 1 <= args.fv_scale <= 128:
        die("FV_SCALE must be in 1..128")
    positions = read_positions(args.positions)
    if not positions:
        die("no positions in " + args.positions)

    evaldir = tempfile.mkdtemp(prefix="yo_evaldir_")
    try:
        nn = os.path.join(evaldir, "nn.bin")
        try:
            os.symlink(os.path.abspath(args.nn), nn)
        except OSError:
            shutil.copyfile(args.nn, nn)
        run(args, engine_path, evaldir, nn, positions)
    finally:
        shutil.rmtree(evaldir, ignore_errors=True)


def run(args, engine_path, evaldir, nn, positions):
    t0 = time.time()
    eng = Engine(engine_path, evaldir, args.timeout, args.allow_hash_mismatch)
    eng.send("usi")
    opts = set()
    for line in eng.wait_for("usiok"):
        m = re.match(r"option name (\S+) ", line)
        if m:
            opts.add(m.group(1))
    for need in ("EvalDir", "FV_SCALE"):
        if need not in opts:
            eng.fail("engine has no %s option: not a YaneuraOu NNUE build?" % need)
    settings = [("Threads", "1"), ("USI_Hash", "16"), ("EvalDir", evaldir),
                ("FV_SCALE", str(args.fv_scale))]
    if "USI_OwnBook" in opts:
        settings.append(("USI_OwnBook", "false"))
    if "BookFile" in opts:
        settings.append(("BookFile", "no_book"))
    for name, value in settings:
        eng.send("setoption name %s value %s" % (name, value))
    eng.send("isready")
    loaded = None
    for line in eng.wait_for("readyok", "readyok (loading the net)"):
        m = re.match(r"info string loading eval file : (.*)$", line)
        if m:
            loaded = m.group(1).strip()
    if loaded is None:
        eng.fail("engine did not report loading an eval file")
    if os.path.realpath(loaded) != os.path.realpath(nn):
        eng.fail("engine loaded %s, not %s" % (loaded, nn))
    t_ready = time.time()

    verify = not args.no_verify

    def writer():
        for s in positions:
            eng.send("position sfen " + s)
            eng.send("eval")
            if verify:
                eng.send("d")

    threading.Thread(target=writer, daemon=True).start()

    values = []
    for i, s in enumerate(positions):
        what = "the value of position %d (%s)" % (i + 1, s)
        while True:
            line = eng.readline(what)
            m = EVAL_RE.match(line)
            if m:
                values.append(int(m.group(1)))
                break
            if line.startswith("info string eval"):
                eng.fail("unexpected eval line: " + line)
        if verify:
            while True:
                line = eng.readline("`d` after position %d" % (i + 1))
                if EVAL_RE.match(line):
                    eng.fail("eval line where the board of position %d was expected" % (i + 1))
                if line.startswith("sfen "):
                    got = canonical(line[5:])
                    if got != canonical(s):
                        eng.fail("position %d: engine set up %r, asked for %r" % (i + 1, got, canonical(s)))
                    break
    t_end = time.time()
    eng.quit()

    if len(values) != len(positions):
        die("%d positions but %d values" % (len(positions), len(values)))
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        for s, v in zip(positions, values):
            f.write("%s\t%d\n" % (s, v))
    os.replace(tmp, args.out)

    dist = Counter(values)
    print("yaneuraou_eval: %d positions -> %s; FV_SCALE %d; net %s" % (
        len(values), args.out, args.fv_scale, os.path.abspath(args.nn)), file=sys.stderr)
    print("yaneuraou_eval: start+load %.2fs, evals %.2fs (%.2f ms/position%s)" % (
        t_ready - t0, t_end - t_ready, 1000 * (t_end - t_ready) / len(values),
        ", with `d` check" if verify else ""), file=sys.stderr)
    print("yaneuraou_eval: values min %d, max %d, %d distinct, %d zero" % (
        min(values), max(values), len(dist), dist[0]), file=sys.stderr)


if __name__ == "__main__":
    main()
