#!/usr/bin/env python3
"""SPSA tuning of Ryuo's search constants, one small match per iteration.

The engine must be built with the `tune` feature, which makes every search
constant a USI spin option:

    cargo build --release --features tune
    target/release/ryuo tune-spec > spec.csv      # name,value,min,max,step

Each iteration perturbs every parameter at once by +-c_k (random signs),
plays `--pairs` game pairs between theta+ and theta- with
../shared/tools/match.py (colours swapped within a pair, same opening), and
moves theta along the sign vector in proportion to the score:

    c_k = step / (k + 1) ** 0.101
    a_k = a / (A + k + 1) ** 0.602
    theta += a_k * step * (W - L) / pairs * sign

(the Fishtest form with the per-parameter scale `step`: one full win per
pair moves a parameter by about `a_k * step`).

With `--opponent`, theta+ and theta- do not meet: each plays the same
`--pairs` game pairs (same openings, same colours) against a fixed engine,
the two matches side by side, and the gradient is the difference of their
scores, (W+ - L+) - (W- - L-) per pair: in expectation the same scale as
the self-play result, at twice the games, but it tunes for the result
against that engine (YaneuraOu, say) rather than in self-play, and the
running score against it shows whether the tuning moves it.

Values are clamped to [min, max] and rounded when given to the engine.
Every iteration is logged to a CSV; the end prints the values as `--option` text for match.py and as
Rust for `SearchParams::DEFAULT`. Verify the result with an SPRT match
against the defaults (match.py --sprt) before adopting it.

Only the standard library is used.
"""

import argparse
import csv
import random
import re
import subprocess
import sys


def read_spec(path):
    params = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, value, lo, hi, step = line.split(",")
            params.append(
                {"name": name, "value": float(value), "min": int(lo), "max": int(hi), "step": float(step)}
            )
    return params


def option_text(names, values):
    return ",".join(f"{n}={v}" for n, v in zip(names, values))


def match_command(args, engine2, option1, option2, seed, concurrency):
    """The match.py command line of one iteration's games; engine 1 is named `plus`."""
    cmd = [
        sys.executable, args.match,
        "--engine1", args.engine, "--engine2", engine2,
        "--name1", "plus", "--name2", "other",
        "--games", str(2 * args.pairs),
        "--openings", args.openings, "--opening-seed", str(seed),
        "--concurrency", str(concurrency), "--quiet",
    ]
    if args.nodes:
        cmd += ["--nodes", str(args.nodes)]
    else:
        cmd += ["--byoyomi", str(args.byoyomi)]
    for option in (option1, args.base_options):
        if option:
            cmd += ["--option1", option]
    if option2:
        cmd += ["--option2", option2]
    return cmd


def match_result(out):
    """(wins, draws, losses) of engine 1 and the fault line of a match.py summary."""
    m = re.search(r"Result: plus\s+W (\d+)\s+D (\d+)\s+L (\d+)", out)
    if not m:
        raise SystemExit(f"match.py gave no result:\n{out}")
    faults = re.search(r"^Faults: (.*)$", out, re.M)
    return tuple(int(x) for x in m.groups()), faults.group(1) if faults else "?"


def play(args, plus, minus, seed):
    """Plays the iteration's games: (W, D, L) of theta+ against theta-, and the faults."""
    option2 = ",".join(o for o in (minus, args.base_options) if o)
    cmd = match_command(args, args.engine, plus, option2, seed, args.concurrency)
    return match_result(subprocess.run(cmd, capture_output=True, text=True).stdout)


def play_opponent(args, plus, minus, seed):
    """Plays theta+ and theta- against the opponent on the same openings, side by side.

    Returns ((W, D, L) of theta+, (W, D, L) of theta-, faults of both)."""
    each = max(1, args.concurrency // 2)
    procs = [
        subprocess.Popen(
            match_command(args, args.opponent, side, args.opponent_options, seed, each),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        for side in (plus, minus)
    ]
    (wdl_plus, faults_plus), (wdl_minus, faults_minus) = (match_result(p.communicate()[0]) for p in procs)
    return wdl_plus, wdl_minus, f"{faults_plus} / {faults_minus}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", required=True, help="ryuo built with --features tune")
    p.add_argument("--spec", required=True, help="output of `ryuo tune-spec` (may be edited to tune a subset)")
    p.add_argument("--openings", required=True)
    p.add_argument("--match", default="../shared/tools/match.py")
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--pairs", type=int, default=4, help="game pairs per iteration")
    p.add_argument("--nodes", type=int, default=0, help="fixed nodes per move (else --byoyomi)")
    p.add_argument("--byoyomi", type=int, default=100)
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--a", type=float, default=0.5, help="gain: a_k = a / (A + k + 1)^0.602")
    p.add_argument("--A", type=float, default=20.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--base-options", default="", help="Name=Value,... given to both sides (to theta+ and theta- with --opponent)")
    p.add_argument("--opponent", help="engine command: theta+ and theta- each play it instead of each other")
    p.add_argument("--opponent-options", default="", help="Name=Value,... for the opponent")
    p.add_argument("--log", default="spsa.csv")
    args = p.parse_args()

    params = read_spec(args.spec)
    names = [q["name"] for q in params]
    theta = [q["value"] for q in params]
    rng = random.Random(args.seed)
    with open(args.log, "w", newline="") as f:
        log = csv.writer(f)
        log.writerow(["iteration", "wins", "draws", "losses", "result", "faults"] + names)
        points = games = 0
        for k in range(args.iterations):
            a_k = args.a / (args.A + k + 1) ** 0.602
            signs = [rng.choice((-1, 1)) for _ in params]
            plus, minus = [], []
            for q, t, s in zip(params, theta, signs):
                c_k = q["step"] / (k + 1) ** 0.101
                plus.append(min(q["max"], max(q["min"], round(t + c_k * s))))
                minus.append(min(q["max"], max(q["min"], round(t - c_k * s))))
            seed = args.seed * 100003 + k
            plus_text, minus_text = option_text(names, plus), option_text(names, minus)
            if args.opponent:
                (w, d, l), (w2, d2, l2), faults = play_opponent(args, plus_text, minus_text, seed)
                result = ((w - l) - (w2 - l2)) / args.pairs
                points += w + w2 + (d + d2) / 2
                games += w + d + l + w2 + d2 + l2
                games_text = f"+{w} ={d} -{l} against +{w2} ={d2} -{l2}, both {100 * points / games:.1f} % so far"
            else:
                (w, d, l), faults = play(args, plus_text, minus_text, seed)
                result = (w - l) / args.pairs
                games_text = f"+{w} ={d} -{l}"
            for i, q in enumerate(params):
                theta[i] += a_k * q["step"] * result * signs[i]
                theta[i] = min(q["max"], max(q["min"], theta[i]))
            log.writerow([k, w, d, l, round(result, 3), faults] + [round(t, 2) for t in theta])
            f.flush()
            print(f"iteration {k}: {games_text}, faults {faults}  " + option_text(names, [round(t, 1) for t in theta]), flush=True)

    final = [round(t) for t in theta]
    print("\n--option text:", option_text(names, final))
    print("\nRust (SearchParams::DEFAULT fields, by option name):")
    for n, v in zip(names, final):
        print(f"    {n}: {v},")


if __name__ == "__main__":
    main()
