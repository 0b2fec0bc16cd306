"""A whole-process check, not a test: SIGTERM or SIGINT sent to snapdiff's own process (not its
group) at a random moment of `snapdiff HEAD~1 HEAD` or `snapdiff log HEAD~2..HEAD` on a git
repository; each run must end within a second of the signal, with no traceback and no file
beside the report it was writing.

Usage: python bench/signals.py RUNS [FOLDER]  (FOLDER, default /tmp/sigcheck, gets a SYNTHETIC
catalogue repository from bench/gencat.py: 1,500 packages, three snapshots)"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/sigcheck")


def repo() -> Path:
    target = WORK / "repo"
    if not (target / ".git").exists():
        WORK.mkdir(exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "gencat.py"),
                "--packages",
                "1500",
                "--specs-total",
                "30000",
                "--seed",
                "7",
                "--git",
                "--snapshots",
                "3",
                "--out",
                str(target),
            ],
            check=True,
            capture_output=True,
        )
    return target


def main() -> int:
    runs = int(sys.argv[1])
    where = repo()
    rng = random.Random(47)
    hung = left = 0
    codes: dict[str, int] = {}
    for number in range(runs):
        out = WORK / f"out{number % 4}"
        out.mkdir(exist_ok=True)
        for stale in out.iterdir():
            stale.unlink()
        argv = ["log", "HEAD~2..HEAD"] if number % 2 else ["HEAD~1", "HEAD"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "snapdiff", *argv, "-o", str(out / "report.md"), "--no-cache"],
            cwd=where,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            # a job started in the background inherits SIGINT ignored; a terminal's process not
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        time.sleep(rng.uniform(0.3, 2.5))
        sig = signal.SIGTERM if number % 3 else signal.SIGINT
        proc.send_signal(sig)
        try:
            proc.wait(timeout=1.0)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            hung += 1
            print(f"run {number}: {sig.name} {' '.join(argv)} still running", flush=True)
            try:
                proc.wait(timeout=5.0)
                print(f"   ... ended after more time: {proc.returncode}", flush=True)
            except subprocess.TimeoutExpired:
                print("   ... still alive after 6 s", flush=True)
            proc.kill()
            proc.wait()
            code = -999
        assert proc.stderr is not None
        err = proc.stderr.read().decode(errors="replace")
        if "Traceback" in err:
            print(f"run {number}: traceback\n{err}")
        extra = [p.name for p in out.iterdir() if p.name != "report.md"]
        if extra:
            left += 1
            print(f"run {number}: left {extra}")
        codes[str(code)] = codes.get(str(code), 0) + 1
    print(
        f"{runs} runs: {hung} hung past a second, {left} left a temporary file; exit codes {codes}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
