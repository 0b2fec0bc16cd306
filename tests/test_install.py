"""A non-editable install carries the default templates and runs from any directory."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_wheel_ships_templates_and_runs_from_elsewhere(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("snapdiff-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert "snapdiff/templates/report.md.j2" in names
        archive.extractall(tmp_path / "site")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import snapdiff.render as r, sys; print(r.templates_dir()); "
            "from snapdiff.cli import main; sys.exit(main(sys.argv[1:]))",
            str(ROOT / "snapshots" / "v1"),
            str(ROOT / "snapshots" / "v2"),
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    first, _, notes = done.stdout.partition("\n")
    assert first == str(tmp_path / "site" / "snapdiff" / "templates")
    assert "`py-ml-dtypes` | `0.3.1` → `0.4.0`" in notes
