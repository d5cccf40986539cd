#!/usr/bin/env python3
"""Runs `ryuo gensfen` as N shards on Ray and merges them into one file.

Shard i of N is `ryuo gensfen --shard i/N --seed S --count C_i ...`, a Ray
task; C_i splits --count as evenly as possible (the first --count % N
shards get one more). Every returned shard is checked against its manifest
(`ryuo gensfen-verify`: size, records, content hash) and a shard that fails
— the engine exited with an error, its worker died, or the file does not
match its manifest — is run again, up to --retries times (a dead worker is
retried by Ray itself, `max_retries`; the rest by this driver). The shards
are then merged in shard order by `ryuo gensfen-merge` into --out with a
merged manifest (--out.manifest.json) listing the parts. Since a shard's
file depends only on its command, the result is the same bytes as running
the N commands by hand and concatenating them, whatever ran where.

Local Ray by default (`ray.init(num_cpus=--cpus)`, 2: two shards at a time
with --threads 1), all on 127.0.0.1; with --address, an existing cluster.
How files travel (--transfer): `path` (the default locally) writes shards
straight into a folder beside --out, so it needs a filesystem shared with
the workers; `bytes` (the default with --address) runs each shard in a
private temporary folder with a copy of the engine shipped through Ray's
object store and returns the file's bytes, so nothing is shared but Ray
itself. Flags this script does not know are passed to every `ryuo
gensfen` (e.g. --random-plies 4..8, --eval-limit 2000, --classic); a file
named there (--eval-file) must exist at that path on every worker.

    pip install ray
    python3 tools/gensfen_ray.py --engine target/release/ryuo \\
        --count 1000000 --shards 8 --nodes 3000 --seed 7 --out data/gen7.psv

Fault injection (for tests): --inject-fault crash:I makes the first
attempt of shard I kill its worker process, corrupt:I flips a byte of
shard I's first output (the check catches it). Exit status 1 when a shard
still fails after its retries, 2 on bad arguments.
"""

import argparse
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time

# Before Ray is imported: no usage report leaves the machine, and a local
# Ray runs on the loopback address rather than the machine's own address.
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


def shard_counts(total, shards):
    """--count split over the shards, the first ones one larger."""
    base, extra = divmod(total, shards)
    return [base + (1 if i < extra else 0) for i in range(shards)]


def gensfen_args(spec, out):
    """The `ryuo gensfen` arguments of a shard (after the engine)."""
    args = ["gensfen", "--count", str(spec["count"]), "--out", out,
            "--shard", f"{spec['index']}/{spec['shards']}",
            "--seed", str(spec["seed"]), "--threads", str(spec["threads"])]
    if spec["nodes"] is not None:
        args += ["--nodes", str(spec["nodes"])]
    return args + spec["extra"]


def run_gensfen(engine, spec, out):
    """Runs the shard's command; returns its last stderr lines."""
    cmd = [engine] + gensfen_args(spec, out)
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    tail = done.stderr.strip().splitlines()[-3:]
    if done.returncode != 0:
        raise RuntimeError(f"shard {spec['index']}: {' '.join(cmd)} exited with "
                           f"{done.returncode}: {' / '.join(tail)}")
    return tail


def inject(spec, out):
    """The fault asked for this shard, on its first attempt only."""
    kind = spec["faults"].get(spec["index"])
    if kind == "corrupt" and spec["attempt"] == 1:
        with open(out, "r+b") as f:
            f.seek(os.path.getsize(out) // 2)
            byte = f.read(1)
            f.seek(-1, os.SEEK_CUR)
            f.write(bytes([byte[0] ^ 0xFF]))
        print(f"shard {spec['index']}: fault injected: one byte of the output flipped",
              file=sys.stderr, flush=True)
    if kind == "crash":
        # Ray re-runs the same task after a worker dies, with the same
        # arguments: a marker file tells the rerun from the first try.
        marker = os.path.join(spec["fault_dir"], f"crashed-{spec['index']}")
        if not os.path.exists(marker):
            open(marker, "w").close()
            print(f"shard {spec['index']}: fault injected: the worker exits",
                  file=sys.stderr, flush=True)
            os._exit(1)


def shard_task(spec, engine_bytes):
    """One attempt at one shard, in a Ray worker. With `engine_bytes` (bytes
    transfer) the engine is written to a private folder and the result
    carries the file's bytes; otherwise the shard is written under
    spec["parts_dir"] and the result carries its path."""
    start = time.time()
    if engine_bytes is not None:
        folder = tempfile.mkdtemp(prefix=f"ryuo-shard-{spec['index']}-")
        try:
            engine = os.path.join(folder, "ryuo")
            with open(engine, "wb") as f:
                f.write(engine_bytes)
            os.chmod(engine, stat.S_IRWXU)
            out = os.path.join(folder, f"shard-{spec['index']}.psv")
            tail = run_gensfen(engine, spec, out)
            inject(spec, out)
            with open(out, "rb") as f:
                psv = f.read()
            with open(out + ".manifest.json", "rb") as f:
                manifest = f.read()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        result = {"psv": psv, "manifest": manifest}
    else:
        # Each attempt in its own folder, under the shard's final name
        # (which its manifest records).
        folder = os.path.join(spec["parts_dir"], f"attempt-{spec['attempt']}")
        os.makedirs(folder, exist_ok=True)
        out = os.path.join(folder, f"shard-{spec['index']}.psv")
        tail = run_gensfen(spec["engine"], spec, out)
        inject(spec, out)
        result = {"path": out}
    result.update(index=spec["index"], attempt=spec["attempt"], tail=tail,
                  host=socket.gethostname(), seconds=time.time() - start)
    return result


def verify(engine, path):
    """None if `path` matches its manifest, else why not."""
    done = subprocess.run([engine, "gensfen-verify", path], capture_output=True,
                          text=True, check=False)
    if done.returncode == 0:
        return None
    first = (done.stdout + done.stderr).strip().splitlines()[0]
    return first.split("FAILED: ", 1)[-1]


def settle(result, parts_dir, final):
    """Puts a returned shard at `final` (with its manifest)."""
    if "psv" in result:
        with open(final, "wb") as f:
            f.write(result["psv"])
        with open(final + ".manifest.json", "wb") as f:
            f.write(result["manifest"])
    else:
        os.replace(result["path"], final)
        os.replace(result["path"] + ".manifest.json", final + ".manifest.json")


def discard(path):
    for p in (path, path + ".manifest.json"):
        if os.path.exists(p):
            os.remove(p)


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Other flags are passed to every ryuo gensfen.", allow_abbrev=False)
    ap.add_argument("--engine", default="target/release/ryuo")
    ap.add_argument("--count", type=int, required=True, help="records in all")
    ap.add_argument("--shards", type=int, required=True)
    ap.add_argument("--nodes", type=int, default=None,
                    help="node budget per move (or pass --depth D)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", type=int, default=1, help="per shard")
    ap.add_argument("--address", default=None,
                    help="Ray cluster to use (default: a local Ray)")
    ap.add_argument("--cpus", type=int, default=2, help="CPUs of a local Ray")
    ap.add_argument("--retries", type=int, default=2,
                    help="runs of a failed shard after its first")
    ap.add_argument("--transfer", choices=["path", "bytes"], default=None,
                    help="path: a shared folder (local default); bytes: "
                         "through Ray (cluster default)")
    ap.add_argument("--keep-parts", action="store_true",
                    help="keep the shard files beside --out")
    ap.add_argument("--inject-fault", action="append", default=[],
                    metavar="KIND:SHARD", help="crash:I or corrupt:I (tests)")
    args, extra = ap.parse_known_args(argv)
    if args.shards < 1 or args.count < args.shards:
        ap.error("--shards must be at least 1 and at most --count")
    if args.retries < 0 or args.threads < 1 or args.cpus < 1:
        ap.error("--retries must be >= 0, --threads and --cpus >= 1")
    if args.nodes is None and "--depth" not in extra:
        ap.error("give --nodes or --depth")
    for bad in ("--shard", "--out", "--count", "--seed", "--threads"):
        if any(e == bad or e.startswith(bad + "=") for e in extra):
            ap.error(f"{bad} is set by the driver")
    faults = {}
    for f in args.inject_fault:
        kind, _, index = f.partition(":")
        if kind not in ("crash", "corrupt") or not index.isdigit():
            ap.error(f"--inject-fault {f}: crash:I or corrupt:I")
        faults[int(index)] = kind
    if not os.access(args.engine, os.X_OK):
        ap.error(f"--engine {args.engine}: not an executable file")
    return args, extra, faults


def main(argv=None):
    args, extra, faults = parse_args(sys.argv[1:] if argv is None else argv)
    transfer = args.transfer or ("bytes" if args.address else "path")
    engine = os.path.abspath(args.engine)
    out = os.path.abspath(args.out)
    parts_dir = out + ".parts"
    os.makedirs(parts_dir, exist_ok=True)
    fault_dir = tempfile.mkdtemp(prefix="ryuo-faults-")

    if args.address is None:
        # Loopback only: Ray's "no cluster" mode.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    import ray  # after the environment above

    start = time.time()
    if args.address is None:
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=True)
    else:
        ray.init(address=args.address, log_to_driver=True)
    remote = ray.remote(num_cpus=args.threads, max_retries=args.retries)(shard_task)
    engine_ref = None
    if transfer == "bytes":
        with open(engine, "rb") as f:
            engine_ref = ray.put(f.read())

    counts = shard_counts(args.count, args.shards)
    specs = [{"index": i, "shards": args.shards, "count": c, "seed": args.seed,
              "nodes": args.nodes, "threads": args.threads, "extra": extra,
              "engine": engine, "parts_dir": parts_dir, "attempt": 1,
              "faults": faults, "fault_dir": fault_dir}
             for i, c in enumerate(counts)]
    pending = {remote.remote(s, engine_ref): s for s in specs}
    finals = [os.path.join(parts_dir, f"shard-{i}.psv") for i in range(args.shards)]
    done, failed = set(), []
    print(f"gensfen_ray: {args.shards} shards of seed {args.seed}, {args.count} "
          f"records, transfer {transfer}", flush=True)
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        spec = pending.pop(ready[0])
        i, attempt = spec["index"], spec["attempt"]
        why = None
        try:
            result = ray.get(ready[0])
        except Exception as e:  # the engine failed, or retries of a dead worker ran out
            why = str(e).strip().splitlines()[-1]
        if why is None:
            settle(result, parts_dir, finals[i])
            why = verify(engine, finals[i])
        if why is None:
            done.add(i)
            print(f"gensfen_ray: shard {i}/{args.shards} done (attempt {attempt}, "
                  f"{result['host']}, {result['seconds']:.1f} s): "
                  f"{result['tail'][0] if result['tail'] else ''} "
                  f"[{len(done)}/{args.shards}]", flush=True)
            continue
        discard(finals[i])
        if attempt > args.retries:
            print(f"gensfen_ray: shard {i} failed {attempt} times, last: {why}", flush=True)
            failed.append(i)
            continue
        print(f"gensfen_ray: shard {i} attempt {attempt} failed: {why}; "
              f"running it again", flush=True)
        again = dict(spec, attempt=attempt + 1)
        pending[remote.remote(again, engine_ref)] = again
    ray.shutdown()
    for i, kind in sorted(faults.items()):
        if kind == "crash" and os.path.exists(os.path.join(fault_dir, f"crashed-{i}")):
            print(f"gensfen_ray: shard {i}: its first worker was killed (injected); "
                  f"Ray ran the task again", flush=True)
    shutil.rmtree(fault_dir, ignore_errors=True)
    if failed:
        print(f"gensfen_ray: shards {sorted(failed)} failed; nothing merged "
              f"(the others are in {parts_dir})", flush=True)
        return 1

    merge = subprocess.run([engine, "gensfen-merge", out] + finals,
                           capture_output=True, text=True, check=False)
    if merge.returncode != 0:
        print(f"gensfen_ray: merge failed: {merge.stderr.strip()}", flush=True)
        return 1
    if not args.keep_parts:
        shutil.rmtree(parts_dir, ignore_errors=True)
    print(f"gensfen_ray: {merge.stdout.strip()} in {time.time() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
