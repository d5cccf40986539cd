#!/usr/bin/env python3
"""Soak test: Ryuo plays itself for many games under varied conditions,
as GUIs and tournament managers drive it, and every fault is counted.

Each worker keeps two engine processes for its whole run (as a GUI keeps
its engines for days) and plays game after game between them. Per game a
seeded random draw picks:
- the clock: byoyomi (with or without main time), main time + increment
  (Fischer), or sudden death;
- pondering (`go ponder`, then `ponderhit` or `stop` as the opponent's move
  hits or misses), MultiPV 1 or 3, Threads 1 or 2, the hash size, the book
  (tests/data/book_small.db) on or off, Stochastic_Ponder, the entering-king
  rule, the time manager (AdaptiveTime); options are changed between games, before `isready`/`usinewgame`;
- the opening: the start position (the book may answer) or a few random
  legal moves from it;
- `stop` sent at a random moment of some searches (the move must still
  come at once and be legal).
Between games, some positions of the game are analysed with `go infinite`
(MultiPV 1 or 3) and stopped after a random delay.

cshogi referees every move. Faults, by kind:
- illegal: a move (or `bestmove win`) the rules do not allow;
- crash: the process exited, or reported a panic (stderr `panicked`, or the
  search thread's `internal error` line);
- hang: no `bestmove` (or `readyok`) long after it was due;
- time: a move later than the clock allows plus --time-margin;
- bestmove-count: a `go` answered by no `bestmove` or by more than one.
A crashed or hung engine is restarted and the run goes on.

Every --rss-every games of a worker, both engines are set to one reference
configuration (USI_Hash 64, MateHash 16, Threads 1) and their resident
memory (VmRSS) is read: at equal settings it must not grow.

Example (the figures in the README's "Soak" section):
    python3 tools/soak.py --engine target/release/ryuo --games 2000 \
        --concurrency 2 --seed 1
A short form (CI): --games 20.
Exit status 1 when any fault was seen.
"""

import argparse
import os
import queue
import random
import subprocess
import sys
import threading
import time
from collections import Counter

import cshogi

HERE = os.path.dirname(os.path.abspath(__file__))
BOOK = os.path.join(HERE, "..", "tests", "data", "book_small.db")

# How long past its due time a missing answer counts as a hang, seconds.
HANG_GRACE = 10.0
# How long `isready` may take (a hash allocation), seconds.
READY_TIMEOUT = 60.0
# Longest game, in plies; longer is a draw.
MAX_PLIES = 256


class Fault(Exception):
    """An engine fault that ends the game: (kind, detail)."""

    def __init__(self, kind, detail):
        super().__init__("%s: %s" % (kind, detail))
        self.kind = kind
        self.detail = detail


class Engine:
    """One engine process, its output read on a thread so that every wait
    has a deadline."""

    def __init__(self, path, name, log):
        self.path = path
        self.name = name
        self.log = log
        self.proc = None
        self.lines = None
        self.panicked = False
        # `go`s sent and not yet answered by a `bestmove`.
        self.pending = 0

    def start(self):
        self.proc = subprocess.Popen(
            [self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, bufsize=0)
        self.lines = queue.Queue()
        self.panicked = False
        self.pending = 0
        threading.Thread(target=self._pump_stdout, args=(self.proc, self.lines),
                         daemon=True).start()
        threading.Thread(target=self._pump_stderr, args=(self.proc,), daemon=True).start()
        self.send("usi")
        self.wait_for("usiok", 10.0)

    def _pump_stdout(self, proc, lines):
        for raw in proc.stdout:
            lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        lines.put(None)

    def _pump_stderr(self, proc):
        for raw in proc.stderr:
            text = raw.decode("utf-8", "replace").rstrip()
            if "panicked" in text:
                self.panicked = True
            self.log("%s stderr: %s" % (self.name, text))

    def send(self, line):
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise Fault("crash", "%s: stdin closed (exit %s)" % (self.name, self.proc.poll()))
        if line.startswith("go"):
            self.pending += 1

    def read(self, deadline):
        """The next line, or None at the deadline; a Fault on exit, panic
        or an answer nobody asked for."""
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(0.0, left))
            except queue.Empty:
                return None
            if line is None:
                raise Fault("crash", "%s exited (status %s)" % (self.name, self.proc.wait()))
            if "internal error" in line or self.panicked:
                raise Fault("crash", "%s: %s" % (self.name, line))
            if line.startswith("bestmove"):
                if self.pending == 0:
                    raise Fault("bestmove-count", "%s: a bestmove nobody asked for: %s"
                                % (self.name, line))
                self.pending -= 1
            return line

    def wait_for(self, prefix, timeout):
        deadline = time.monotonic() + timeout
        while True:
            line = self.read(deadline)
            if line is None:
                raise Fault("hang", "%s: no %s within %.0f s" % (self.name, prefix, timeout))
            if line.startswith(prefix):
                return line

    def bestmove(self, due):
        """Waits for the `bestmove` of the last `go`: (move, ponder, time
        it came)."""
        line = self.wait_for_bestmove(due + HANG_GRACE)
        at = time.monotonic()
        words = line.split()
        move = words[1] if len(words) > 1 else ""
        ponder = words[3] if len(words) > 3 and words[2] == "ponder" else None
        return move, ponder, at

    def wait_for_bestmove(self, deadline):
        while True:
            line = self.read(deadline)
            if line is None:
                raise Fault("hang", "%s: no bestmove %.1f s after it was due"
                            % (self.name, HANG_GRACE))
            if line.startswith("bestmove"):
                return line

    def sync(self):
        """`isready`/`readyok`: every `go` must have been answered by then."""
        self.send("isready")
        self.wait_for("readyok", READY_TIMEOUT)
        if self.pending:
            raise Fault("bestmove-count", "%s: %d go without a bestmove" % (self.name, self.pending))

    def rss_kib(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def quit(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=5)
        except (Fault, subprocess.TimeoutExpired):
            self.kill()


def declaration_ok(board, rule):
    """Whether the side to move may declare a win under `rule` (the
    rules as Ryuo's README states them; cshogi knows only CSA rule 27)."""
    us = board.turn
    if rule == "TryRule":
        target = 36 if us == cshogi.BLACK else 44  # 5a or 5i
        king = board.king_square(us)
        return any(cshogi.move_from(m) == king and cshogi.move_to(m) == target
                   and not cshogi.move_is_drop(m) for m in board.legal_moves)
    if board.is_check():
        return False
    camp = range(0, 3) if us == cshogi.BLACK else range(6, 9)
    count, points = 0, 0
    for sq, piece in enumerate(board.pieces):
        if piece == 0 or (piece >= 16) != (us == cshogi.WHITE) or sq % 9 not in camp:
            continue
        kind = piece & 15
        if kind == cshogi.KING:
            continue
        count += 1
        points += 5 if kind in (5, 6, 13, 14) else 1  # bishop, rook, horse, dragon
    hand = board.pieces_in_hand[us]
    points += sum(hand) + 4 * (hand[5] + hand[6])  # bishops and rooks count 5
    if board.king_square(us) % 9 not in camp:
        return False
    need = 31 if rule == "CSARule24" else (28 if us == cshogi.BLACK else 27)
    return count >= 10 and points >= need


def draw_conditions(rng):
    """The random conditions of one game."""
    # Short clocks: 2,000 games must fit in an hour on two cores; what a
    # long clock adds (deeper searches) the matches cover.
    kind = rng.choice(["byoyomi", "byoyomi", "increment", "sudden"])
    if kind == "byoyomi":
        clock = dict(main=rng.choice([0, 0, 500, 1000]), byoyomi=rng.choice([10, 20, 50]),
                     inc=0)
    elif kind == "increment":
        clock = dict(main=rng.choice([500, 1000, 2000]), byoyomi=0,
                     inc=rng.choice([10, 20, 50]))
    else:
        clock = dict(main=rng.choice([1000, 2000, 3000]), byoyomi=0, inc=0)
    options = {
        "USI_Hash": rng.choice([16, 64, 128]),
        "MateHash": rng.choice([16, 64]),
        "Threads": rng.choice([1, 1, 1, 2]),
        "MultiPV": rng.choice([1, 1, 3]),
        "USI_Ponder": rng.choice(["true", "false"]),
        "Stochastic_Ponder": rng.choice(["false", "false", "true"]),
        "BookFile": rng.choice([BOOK, "no_book"]),
        "EnteringKingRule": rng.choice(["CSARule27", "CSARule24", "TryRule"]),
        "ConsiderationMode": rng.choice(["false", "false", "true"]),
        "AdaptiveTime": rng.choice(["false", "true"]),
    }
    random_plies = rng.choice([0, 0, 2, 4, 6, 8])
    return kind, clock, options, random_plies


def go_command(clock, clocks, ponder=False):
    words = ["go"]
    if ponder:
        words.append("ponder")
    words += ["btime", str(max(0, clocks[0])), "wtime", str(max(0, clocks[1]))]
    if clock["byoyomi"]:
        words += ["byoyomi", str(clock["byoyomi"])]
    if clock["inc"]:
        words += ["binc", str(clock["inc"]), "winc", str(clock["inc"])]
    return " ".join(words)


def position_command(start_moves, moves):
    allm = start_moves + moves
    return "position startpos" + (" moves " + " ".join(allm) if allm else "")


class Worker:
    def __init__(self, wid, args, stats, log):
        self.wid = wid
        self.args = args
        self.stats = stats
        self.log = log
        self.engines = [Engine(args.engine, "w%d.e%d" % (wid, i), log) for i in range(2)]
        for e in self.engines:
            e.start()

    def fault(self, f, game_no):
        with self.stats["lock"]:
            self.stats["faults"][f.kind] += 1
            self.stats["details"].append("game %d: %s: %s" % (game_no, f.kind, f.detail))
        self.log("FAULT game %d: %s: %s" % (game_no, f.kind, f.detail))

    def restart(self, engine):
        engine.kill()
        engine.start()

    def run(self, game_numbers):
        for n, game_no in enumerate(game_numbers, 1):
            rng = random.Random(self.args.seed * 1_000_003 + game_no)
            try:
                self.play(rng, game_no)
            except Fault as f:
                self.fault(f, game_no)
                for e in self.engines:
                    # The faulty engine and the state of the other are
                    # unknown: start both afresh.
                    self.restart(e)
            with self.stats["lock"]:
                self.stats["games"] += 1
                done = self.stats["games"]
            if done % 50 == 0:
                self.log("%d games, faults %s" % (done, dict(self.stats["faults"])))
            if n % self.args.rss_every == 0:
                self.record_rss(n)
        for e in self.engines:
            e.quit()

    def record_rss(self, games):
        sizes = []
        for e in self.engines:
            try:
                for name, value in (("USI_Hash", 64), ("MateHash", 16), ("Threads", 1)):
                    e.send("setoption name %s value %s" % (name, value))
                e.sync()
                sizes.append(e.rss_kib())
            except Fault as f:
                self.fault(f, -1)
                self.restart(e)
                sizes.append(None)
        with self.stats["lock"]:
            self.stats["rss"].append((self.wid, games, sizes))
        self.log("worker %d after %d games: RSS %s KiB" % (self.wid, games, sizes))

    def play(self, rng, game_no):
        kind, clock, options, random_plies = draw_conditions(rng)
        with self.stats["lock"]:
            seen = self.stats["conditions"]
            seen[kind] += 1
            for name in ("USI_Ponder", "Stochastic_Ponder", "ConsiderationMode",
                         "AdaptiveTime"):
                seen["%s=%s" % (name, options[name])] += 1
            seen["MultiPV=%d" % options["MultiPV"]] += 1
            seen["Threads=%d" % options["Threads"]] += 1
            seen["book " + ("on" if options["BookFile"] == BOOK else "off")] += 1
        for e in self.engines:
            for name, value in options.items():
                e.send("setoption name %s value %s" % (name, value))
            e.sync()
            e.send("usinewgame")
        board = cshogi.Board()
        start_moves = []
        for _ in range(random_plies):
            legal = list(board.legal_moves)
            if not legal:
                break
            m = rng.choice(legal)
            start_moves.append(cshogi.move_to_usi(m))
            board.push(m)
        moves = []
        clocks = [clock["main"], clock["main"]]
        # Per engine: the predicted move it ponders on, or None.
        pondering = [None, None]
        black = rng.randrange(2)  # which engine plays Black
        ponder_on = options["USI_Ponder"] == "true"
        result = "draw"
        while True:
            if board.is_game_over():
                result = "win" if board.turn == cshogi.WHITE else "lose"
                break
            rep = board.is_draw()
            ends = (cshogi.REPETITION_DRAW, cshogi.REPETITION_WIN, cshogi.REPETITION_LOSE)
            if rep in ends or len(moves) >= MAX_PLIES:
                break
            side = board.turn  # 0 Black, 1 White
            e = self.engines[black ^ side]
            predicted = pondering[black ^ side]
            pondering[black ^ side] = None
            last = moves[-1] if moves else None
            if predicted is not None and predicted == last:
                e.send("ponderhit")
                with self.stats["lock"]:
                    self.stats["ponderhits"] += 1
            else:
                if predicted is not None:
                    self.end_ponder(e)
                e.send(position_command(start_moves, moves))
                e.send(go_command(clock, clocks))
            sent = time.monotonic()
            allowed = clocks[side] + clock["byoyomi"] + clock["inc"]
            due = sent + (allowed + self.args.time_margin) / 1000.0
            if rng.random() < self.args.stop_rate:
                # A GUI's "move now" at a random moment.
                time.sleep(rng.uniform(0, allowed / 2000.0))
                e.send("stop")
                with self.stats["lock"]:
                    self.stats["stops"] += 1
                due = min(due, time.monotonic() + self.args.time_margin / 1000.0)
            move, ponder, at = e.bestmove(due)
            used = int((at - sent) * 1000)
            if at > due:
                raise Fault("time", "%s used %d ms, allowed %d + margin %d (%s)"
                            % (e.name, used, allowed, self.args.time_margin, kind))
            with self.stats["lock"]:
                self.stats["moves"] += 1
                self.stats["max_over"] = max(self.stats["max_over"], used - allowed)
            if move == "resign":
                result = "win" if side == cshogi.WHITE else "lose"
                break
            if move == "win":
                if not declaration_ok(board, options["EnteringKingRule"]):
                    raise Fault("illegal", "%s declared a win that is not one: %s"
                                % (e.name, board.sfen()))
                result = "win" if side == cshogi.BLACK else "lose"
                break
            m = board.move_from_usi(move)
            if not m or not board.is_legal(m):
                raise Fault("illegal", "%s played %s in %s" % (e.name, move, board.sfen()))
            board.push(m)
            moves.append(move)
            clocks[side] -= used
            if clocks[side] < 0:
                clocks[side] = 0
            clocks[side] += clock["inc"]
            if ponder_on and ponder:
                pm = board.move_from_usi(ponder)
                if pm and board.is_legal(pm):
                    e.send(position_command(start_moves, moves + [ponder]))
                    e.send(go_command(clock, clocks, ponder=True))
                    pondering[black ^ side] = ponder
        for i, e in enumerate(self.engines):
            if pondering[i] is not None:
                self.end_ponder(e)
            # Result from Black's side: win means Black won.
            mine = result if i == black else {"win": "lose", "lose": "win"}.get(result, "draw")
            e.send("gameover %s" % mine)
        with self.stats["lock"]:
            self.stats["plies"] += len(moves)
        self.analyse_between_games(rng, start_moves, moves)
        for e in self.engines:
            e.sync()

    def end_ponder(self, e):
        """A missed ponder: `stop`, and its `bestmove` must come at once."""
        e.send("stop")
        e.bestmove(time.monotonic() + self.args.time_margin / 1000.0)

    def analyse_between_games(self, rng, start_moves, moves):
        """`go infinite` on positions of the game, stopped at random."""
        if rng.random() >= self.args.analysis_rate:
            return
        e = self.engines[rng.randrange(2)]
        e.send("setoption name MultiPV value %d" % rng.choice([1, 3]))
        for _ in range(rng.randint(1, 3)):
            cut = rng.randint(0, len(moves))
            e.send(position_command(start_moves, moves[:cut]))
            e.send("go infinite")
            with self.stats["lock"]:
                self.stats["analyses"] += 1
            time.sleep(rng.uniform(0.01, 0.3))
            e.send("stop")
            e.bestmove(time.monotonic() + self.args.time_margin / 1000.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-margin", type=int, default=500,
                    help="ms a move may come after its clock (as match.py), default 500")
    ap.add_argument("--stop-rate", type=float, default=0.02,
                    help="share of searches stopped at a random moment")
    ap.add_argument("--analysis-rate", type=float, default=0.3,
                    help="share of games followed by go infinite analysis")
    ap.add_argument("--rss-every", type=int, default=100,
                    help="games of a worker between two memory readings")
    ap.add_argument("--log", help="file for the detailed log")
    args = ap.parse_args()

    log_file = open(args.log, "w") if args.log else None
    log_lock = threading.Lock()

    def log(text):
        stamp = time.strftime("%H:%M:%S")
        with log_lock:
            if log_file:
                log_file.write("%s %s\n" % (stamp, text))
                log_file.flush()
            if text.startswith(("FAULT", "worker")) or "games, faults" in text:
                print("%s %s" % (stamp, text), flush=True)

    stats = {"lock": threading.Lock(), "faults": Counter(), "details": [], "games": 0,
             "moves": 0, "plies": 0, "max_over": -10**9, "rss": [],
             "conditions": Counter(), "analyses": 0, "stops": 0, "ponderhits": 0}
    start = time.monotonic()
    workers = [Worker(w, args, stats, log) for w in range(args.concurrency)]
    threads = []
    for w in workers:
        numbers = list(range(w.wid, args.games, args.concurrency))
        t = threading.Thread(target=w.run, args=(numbers,))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    minutes = (time.monotonic() - start) / 60
    faults = stats["faults"]
    print("games %d, moves %d (mean %.0f plies), %.1f min" % (
        stats["games"], stats["moves"], stats["plies"] / max(1, stats["games"]), minutes))
    print("faults: %d (%s)" % (sum(faults.values()),
          ", ".join("%s %d" % kv for kv in sorted(faults.items())) or "none"))
    print("conditions: %s" % ", ".join("%s %d" % kv for kv in sorted(stats["conditions"].items())))
    print("ponderhits %d, random stops %d, go infinite analyses %d" % (
        stats["ponderhits"], stats["stops"], stats["analyses"]))
    print("latest answer past its clock: %d ms (margin %d)" % (stats["max_over"], args.time_margin))
    for wid, games, sizes in sorted(stats["rss"]):
        print("rss worker %d after %d games: %s KiB" % (wid, games, sizes))
    for d in stats["details"]:
        print("  " + d)
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
