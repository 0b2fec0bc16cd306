"""Spack build-cache indexes as snapshots (real samples from spack/spack's test data)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from pagegen import page_text

from snapdiff.cli import main
from snapdiff.model import Spec
from snapdiff.sources import LoadOptions, load_snapshot

INDEX = Path(__file__).parent / "data" / "spack-index"
V7, V8 = str(INDEX / "db-v7-index.json"), str(INDEX / "db-v8-index.json")


def specs(path: str, **options: Any) -> dict[str, tuple[str, Spec]]:
    snapshot = load_snapshot(path, LoadOptions(**options))
    found = {}
    for (_, name), page in snapshot.pages.items():
        assert page.entries is not None
        for digest, entry in page.entries.items():
            found[digest] = (name, Spec.from_entry(entry))
    return found


# Read by hand from the two files.
V7_SPECS = {
    "rqh2vuf6fqwkmipzgi2wjx352mq7y7ez": ("libelf", "0.8.13", "gcc@10.2.1", "core2"),
    "sk2gqqz4n5njmvktycnd25wq25jxiqkr": ("libdwarf", "20130729", "gcc@10.2.1", "core2"),
}
V8_SPECS = {
    **V7_SPECS,  # upgraded from spec v4: compiler from annotations.compiler ("gcc@=10.2.1")
    "qeehcxyvluwnihsc2qxstmpomtxo3lrc": ("compiler-wrapper", "1.0", "none", "m1"),
    "izgzpzeljwairalfjm3k6fntbb64nt6n": ("gcc-runtime", "10.2.1", "none", "m1"),
    "jr3yipyxyjulcdvckwwwjrrumis7glpa": ("libelf", "0.8.13", "gcc@10.2.1", "m1"),  # c provider
    "u5uz3dcch5if4eve4sef67o2rf2lbfgh": ("libdwarf", "20130729", "gcc@10.2.1", "m1"),
}


@pytest.mark.parametrize(("path", "expected"), [(V7, V7_SPECS), (V8, V8_SPECS)])
def test_records_become_catalogue_specs(path: str, expected: dict[str, Any]) -> None:
    found = specs(path, stack_name="e4s", index_tag="develop")
    assert set(found) == set(expected)  # the external gcc (in_buildcache: false) is not a spec
    for digest, (name, version, compiler, target) in expected.items():
        package, spec = found[digest]
        assert (package, spec.versions, spec.compiler, spec.target) == (
            name,
            (version,),
            compiler,
            target,
        )
        assert (spec.os, spec.platform, spec.stacks) == ("debian6", "test", ("e4s",))
        assert spec.variants == ("build_system=generic",)  # flags are not variants


def test_two_indexes_of_one_stack(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([V7, V8, "--stack-name", "e4s", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    status = {
        p["name"]: (p["status"], len(p["specs_added"]), len(p["specs_removed"]))
        for p in data["packages"]
    }
    assert status == {
        "compiler-wrapper": ("added", 1, 0),
        "gcc-runtime": ("added", 1, 0),
        "libdwarf": ("changed", 1, 0),
        "libelf": ("changed", 1, 0),
    }
    assert data["summary"]["specs_changed"] == 0  # the same hashes, the same records
    libelf = next(p for p in data["packages"] if p["name"] == "libelf")
    assert [c["class"] for c in libelf["changes"]] == ["new-configuration"]
    assert libelf["changes"][0]["configurations_new"][0]["target"] == "m1"


def test_a_mirror_folder_names_stacks_by_their_folders(tmp_path: Path) -> None:
    for stack, source in (("", V7), ("e4s", V8), ("ml-cpu", V8)):
        target = tmp_path / "mirror" / stack / "build_cache" / "index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    found = specs(str(tmp_path / "mirror"))
    assert found["rqh2vuf6fqwkmipzgi2wjx352mq7y7ez"][1].stacks == ("e4s", "ml-cpu", "root")
    assert found["jr3yipyxyjulcdvckwwwjrrumis7glpa"][1].stacks == ("e4s", "ml-cpu")
    assert load_snapshot(str(tmp_path / "mirror"), LoadOptions(index_tag="v0.23")).tags == (
        "v0.23",
    )


def test_an_index_against_catalogue_pages_of_the_same_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pages written from the index's own records: nothing differs."""
    pages: dict[str, list[dict[str, Any]]] = {}
    for name, spec in specs(V8, stack_name="e4s").values():
        entry = spec.as_entry()
        pages.setdefault(name, []).append(entry)
    for name, entries in pages.items():
        path = tmp_path / "pages" / "_cache" / "develop" / name / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(page_text(name, "develop", entries))
    assert main([V8, str(tmp_path / "pages"), "--stack-name", "e4s", "--exit-code"]) == 0
    assert "No changes" in capsys.readouterr().out


def test_a_bad_index_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "index.json"
    bad.write_text('{"database": {"version": "7"}}')
    assert main([V7, str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"snapdiff: error: {bad}: not a Spack database: no database.installs "
        "(give a Spack build-cache index.json (database version 6 or later))\n"
    )
    bad.write_text("{oops")
    assert main([V7, str(bad)]) == 2
    assert f"{bad}: not valid JSON" in capsys.readouterr().err
