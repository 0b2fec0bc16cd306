"""A non-editable install carries the default templates and runs from any directory."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).parents[2]


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
    (wheel,) = wheels.glob("spack_snapdiff-*.whl")  # the distribution; the package is snapdiff
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert "snapdiff/templates/report.md.j2" in names
        assert "snapdiff/py.typed" in names  # the package is typed (PEP 561)
        assert "snapdiff/ci/github.py" in names  # what the Action runs as python -m
        archive.extractall(tmp_path / "site")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import snapdiff.render.markdown as r, sys; print(r.templates_dir()); "
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


def test_every_third_party_import_is_a_declared_dependency() -> None:
    """A package imported by snapdiff but installed only by hand breaks a fresh install."""
    import ast
    import sys
    import tomllib

    distributions = {
        "yaml": "pyyaml",
        "jinja2": "jinja2",
        "deepdiff": "deepdiff",
        "orjson": "orjson",
        "markupsafe": "markupsafe",
        "msgspec": "msgspec",
        "archspec": "archspec",
    }
    imported = set()
    for path in (ROOT / "snapdiff").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m != "snapdiff"}
    assert third_party <= set(distributions), third_party - set(distributions)
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {d.split(">")[0].split("=")[0].split("<")[0].strip().lower() for d in declared}
    assert {distributions[m] for m in third_party} <= names
