#!/usr/bin/env python3
"""Two USI mate solvers side by side on a problem set, through `go mate`.

    python3 tests/oracle/mate_side_by_side.py --set tests/data/tsume.tsv \
        --engine target/release/ryuo --engine /path/to/yaneuraou-mate --time-ms 100

Each problem (`sfen<TAB>mate|nomate<TAB>plies`, see src/mate/problems.rs)
is sent to every engine in turn (the order alternates from problem to
problem) as `position sfen ...` then `go mate T`, after `isready`, and timed
from the `go` to the `checkmate` line. A `checkmate <moves>` answer is
verified by cshogi, an independent referee: every move legal, every
attacker move a check, the defender mated at the end (and so never a pawn-
drop mate). Per engine: mates found, no-mates proven, wrong answers (a mate
line that does not mate, `nomate` for a mate, a mate for a no-mate), the
slowest answer, how many mates are longer than the set's length, and late
answers (after the budget plus --grace-ms): a right answer that came late
is counted apart, not as found.

Engine options: --option "NAME=VALUE" (every engine); YaneuraOu's mate
engine takes USI_Hash for its table, Ryuo MateHash: give both the same
(--hash 256 --option MateHash=256).
"""

import argparse
import subprocess
import threading
import queue
import time

import cshogi


class Engine:
    def __init__(self, path, options, hash_mib):
        self.path = path
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.send("usi")
        self.name = path
        while True:
            line = self.read(30)
            if line.startswith("id name"):
                self.name = "%s (%s)" % (line[len("id name "):], path.rsplit("/", 1)[-1])
            if line == "usiok":
                break
        self.send("setoption name USI_Hash value %d" % hash_mib)
        for name, value in options:
            self.send("setoption name %s value %s" % (name, value))

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self, timeout):
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise RuntimeError("%s exited" % self.path)
        return line

    def solve(self, sfen, time_ms):
        self.send("usinewgame")
        self.send("isready")
        while self.read(60) != "readyok":
            pass
        self.send("position sfen " + sfen)
        start = time.perf_counter()
        self.send("go mate %d" % time_ms)
        while True:
            line = self.read(time_ms / 1000 + 30)
            if line.startswith("checkmate"):
                return line.split()[1:], (time.perf_counter() - start) * 1000

    def quit(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def is_mate_line(sfen, moves):
    """cshogi's verdict on a mating line from `sfen`."""
    if len(moves) % 2 == 0:
        return False
    board = cshogi.Board(sfen)
    for i, text in enumerate(moves):
        m = board.move_from_usi(text)
        if not m or not board.is_legal(m):
            return False
        board.push(m)
        if i % 2 == 0 and not board.is_check():
            return False
    return board.is_game_over()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", required=True)
    ap.add_argument("--engine", action="append", required=True)
    ap.add_argument("--time-ms", type=int, default=100)
    ap.add_argument("--hash", type=int, default=64, help="USI_Hash, MiB (default 64)")
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--grace-ms", type=float, default=5.0,
                    help="an answer later than the budget plus this is late: counted apart, "
                         "not as found (default 5)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    options = [tuple(o.split("=", 1)) for o in args.option]

    problems = []
    for line in open(args.set):
        if line.startswith("#") or not line.strip():
            continue
        sfen, kind, plies = line.rstrip("\n").split("\t")
        problems.append((sfen, kind == "mate", int(plies)))

    engines = [Engine(p, options, args.hash) for p in args.engine]
    stats = [dict(mates=0, nomates=0, wrong=0, slowest=0.0, longer=0, shorter=0, total=0.0,
                  wrong_list=[], late=0, late_found=0) for _ in engines]
    for n, (sfen, is_mate, plies) in enumerate(problems):
        order = list(range(len(engines)))
        if n % 2:
            order.reverse()
        for i in order:
            answer, ms = engines[i].solve(sfen, args.time_ms)
            s = stats[i]
            s["slowest"] = max(s["slowest"], ms)
            s["total"] += ms
            verdict = answer[0] if answer else "?"
            late = ms > args.time_ms + args.grace_ms
            s["late"] += late
            if verdict in ("timeout", "?", "none", "notimplemented"):
                outcome = None  # no answer (YaneuraOu says `checkmate none` for "unknown")
            elif verdict == "nomate":
                outcome = "nomate, expected a mate" if is_mate else "nomates"
            elif not is_mate_line(sfen, answer):
                outcome = "not a mate: " + " ".join(answer)
            elif not is_mate:
                outcome = "a mate where the set has none"
            else:
                outcome = "mates"
            if outcome in ("mates", "nomates"):
                if late:
                    s["late_found"] += 1
                else:
                    s[outcome] += 1
                    if outcome == "mates":
                        s["longer"] += len(answer) > plies
                        s["shorter"] += len(answer) < plies
            elif outcome is not None:
                s["wrong"] += 1
                s["wrong_list"].append("%s: %s" % (sfen, outcome))
            if args.verbose:
                print("%3d %-30s %7.1f ms  %s" % (n, engines[i].name[:30], ms,
                                                  verdict if verdict in ("timeout", "nomate")
                                                  else "mate %d" % len(answer)), flush=True)
    for e in engines:
        e.quit()
    n_mates = sum(1 for p in problems if p[1])
    n_nomates = len(problems) - n_mates
    print("go mate %d, %d problems (%d mates, %d no-mates)" % (
        args.time_ms, len(problems), n_mates, n_nomates))
    for e, s in zip(engines, stats):
        print("%s: mates %d/%d, nomates %d/%d, wrong %d, slowest %.1f ms, mean %.1f ms, "
              "mates longer than the set's %d, shorter %d; late answers %d (right but late: %d)" % (
                  e.name, s["mates"], n_mates, s["nomates"], n_nomates, s["wrong"], s["slowest"],
                  s["total"] / max(1, len(problems)), s["longer"], s["shorter"], s["late"],
                  s["late_found"]))
        for w in s["wrong_list"]:
            print("  wrong: " + w)


if __name__ == "__main__":
    main()
