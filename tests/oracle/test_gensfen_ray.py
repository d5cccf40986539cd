#!/usr/bin/env python3
"""Checks tools/gensfen_ray.py on a local Ray (2 CPUs): 4 shards of 50
records at --nodes 200 merge into exactly 200 records, the same bytes as
the four `ryuo gensfen --shard i/4` commands run by hand and concatenated,
which cshogi reads as ryuo does (psv_check.py); and with faults injected
(shard 1's first worker killed, shard 2's first output corrupted), the
shards are run again and the result is the same file.

    python3 tests/oracle/test_gensfen_ray.py [--engine target/release/ryuo]

Runs under pytest too (RYUO_ENGINE names the engine). The last line is
`N passed, M failed`.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DRIVER = os.path.join(ROOT, "tools", "gensfen_ray.py")
ENGINE = os.environ.get("RYUO_ENGINE", os.path.join(ROOT, "target", "release", "ryuo"))
SHARDS, PER_SHARD, NODES, SEED = 4, 50, 200, 5


def run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)
    assert done.returncode == 0, f"{cmd} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def direct_shards(folder):
    """The shards made by `ryuo gensfen --shard i/4`, concatenated."""
    data = b""
    for i in range(SHARDS):
        out = os.path.join(folder, f"direct-{i}.psv")
        run([ENGINE, "gensfen", "--count", str(PER_SHARD), "--nodes", str(NODES),
             "--seed", str(SEED), "--shard", f"{i}/{SHARDS}", "--out", out])
        with open(out, "rb") as f:
            data += f.read()
    return data


def driver(folder, name, *extra):
    out = os.path.join(folder, name)
    text = run([sys.executable, DRIVER, "--engine", ENGINE, "--count", str(SHARDS * PER_SHARD),
                "--shards", str(SHARDS), "--nodes", str(NODES), "--seed", str(SEED),
                "--out", out, *extra])
    with open(out, "rb") as f:
        return out, f.read(), text


def test_driver_merges_the_shards_as_made_by_hand():
    with tempfile.TemporaryDirectory() as folder:
        out, merged, text = driver(folder, "merged.psv")
        assert len(merged) == SHARDS * PER_SHARD * 40, len(merged)
        assert merged == direct_shards(folder)
        assert "200 records from 4 files" in text, text
        assert not os.path.exists(out + ".parts"), "shard files left behind"
        run([ENGINE, "gensfen-verify", out])
        check = run([sys.executable, os.path.join(HERE, "psv_check.py"), out,
                     "--engine", ENGINE])
        print("psv_check:", check.strip().splitlines()[-1])
        assert check.strip().endswith("200 records, 0 mismatches"), check


def test_failed_shards_are_run_again():
    with tempfile.TemporaryDirectory() as folder:
        _, merged, text = driver(folder, "faults.psv", "--transfer", "bytes",
                                 "--inject-fault", "crash:1", "--inject-fault", "corrupt:2")
        assert "shard 2 attempt 1 failed" in text and "content hash" in text, text
        assert "shard 2/4 done (attempt 2" in text, text
        assert "shard 1: its first worker was killed" in text, text
        assert merged == direct_shards(folder)


if __name__ == "__main__":
    if "--engine" in sys.argv:
        ENGINE = os.path.abspath(sys.argv[sys.argv.index("--engine") + 1])
    passed = failed = 0
    for name, test in list(globals().items()):
        if name.startswith("test_") and callable(test):
            try:
                test()
                passed += 1
                print(f"ok   {name}")
            except AssertionError as e:
                failed += 1
                print(f"FAIL {name}: {e}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
