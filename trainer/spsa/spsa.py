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
pair moves a parameter by about `a_k * step`). Values are clamped to
[min, max] and rounded when given to the engine. Every iteration is logged
to a CSV; the end prints the values as `--option` text for match.py and as
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


def play(args, plus, minus, seed):
    """Plays the iteration's games; returns (wins, draws, losses) of theta+."""
    cmd = [
        sys.executable, args.match,
        "--engine1", args.engine, "--engine2", args.engine,
        "--name1", "plus", "--name2", "minus",
        "--option1", plus, "--option2", minus,
        "--games", str(2 * args.pairs),
        "--openings", args.openings, "--opening-seed", str(seed),
        "--concurrency", str(args.concurrency), "--quiet",
    ]
    if args.nodes:
        cmd += ["--nodes", str(args.nodes)]
    else:
        cmd += ["--byoyomi", str(args.byoyomi)]
    if args.base_options:
        cmd += ["--option1", args.base_options, "--option2", args.base_options]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    m = re.search(r"Result: plus\s+W (\d+)\s+D (\d+)\s+L (\d+)", out)
    if not m:
        raise SystemExit(f"match.py gave no result:\n{out}")
    return tuple(int(x) for x in m.groups())


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
    p.add_argument("--base-options", default="", help="Name=Value,... given to both sides")
    p.add_argument("--log", default="spsa.csv")
    args = p.parse_args()

    params = read_spec(args.spec)
    names = [q["name"] for q in params]
    theta = [q["value"] for q in params]
    rng = random.Random(args.seed)
    with open(args.log, "w", newline="") as f:
        log = csv.writer(f)
        log.writerow(["iteration", "wins", "draws", "losses"] + names)
        for k in range(args.iterations):
            a_k = args.a / (args.A + k + 1) ** 0.602
            signs = [rng.choice((-1, 1)) for _ in params]
            plus, minus = [], []
            for q, t, s in zip(params, theta, signs):
                c_k = q["step"] / (k + 1) ** 0.101
                plus.append(min(q["max"], max(q["min"], round(t + c_k * s))))
                minus.append(min(q["max"], max(q["min"], round(t - c_k * s))))
            w, d, l = play(args, option_text(names, plus), option_text(names, minus), args.seed * 100003 + k)
            result = (w - l) / args.pairs
            for i, q in enumerate(params):
                theta[i] += a_k * q["step"] * result * signs[i]
                theta[i] = min(q["max"], max(q["min"], theta[i]))
            log.writerow([k, w, d, l] + [round(t, 2) for t in theta])
            f.flush()
            print(f"iteration {k}: +{w} ={d} -{l}  " + option_text(names, [round(t, 1) for t in theta]), flush=True)

    final = [round(t) for t in theta]
    print("\n--option text:", option_text(names, final))
    print("\nRust (SearchParams::DEFAULT fields, by option name):")
    for n, v in zip(names, final):
        print(f"    {n}: {v},")


if __name__ == "__main__":
    main()
