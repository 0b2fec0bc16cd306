"""The compare stage's shape: which way its imports point, and its one table of classes."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import snapdiff
from snapdiff import diff_snapshots, load_pair
from snapdiff.compare.classes import CLASSES
from snapdiff.model import Configuration
from snapdiff.report import ChangeClass

PACKAGE = Path(snapdiff.__file__).parent


def _imports(module: Path) -> set[str]:
    """The snapdiff modules a module imports, as dotted names relative to the package."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    where = module.relative_to(PACKAGE).with_suffix("").parts[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = where[: len(where) - node.level + 1]
            name = ".".join([*base, *([node.module] if node.module else [])])
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("snapdiff"):
            found.add((node.module or "").removeprefix("snapdiff").lstrip("."))
    return found


def test_report_does_not_import_the_json_schema() -> None:
    """The report owns its Literals; the JSON shapes are described from it, not the reverse."""
    for module in sorted((PACKAGE / "report").glob("*.py")):
        assert not {name for name in _imports(module) if name.startswith("schema")}, module.name
    assert "report" in _imports(PACKAGE / "schema.py")


def test_configurations_are_named_records_in_one_field_order() -> None:
    """Every configuration a diff's records carry is a `Configuration` read by name, its fields
    in the order configurations sort in (os first, variants last)."""
    assert Configuration._fields == ("os", "platform", "target", "compiler", "variants")
    cases = Path(__file__).parents[1] / "cases" / "explanations"
    old, new = load_pair(str(cases / "old"), str(cases / "new"))
    changes = [c for p in diff_snapshots(old, new).packages for c in p.changes]
    configs = [c for x in changes for c in x.configurations_old + x.configurations_new]
    assert configs and all(isinstance(c, Configuration) for c in configs)
    assert {c.platform for c in configs} == {"darwin", "linux"}


def test_the_classes_table_has_a_row_for_every_class_in_their_order() -> None:
    """A class without its row (rank, wording, summary words) would fail only when a report
    first has one; the table's keys are exactly the classes, in `ChangeClass`'s order (which
    JSON's `specs_by_class` follows), and each has its own place in a package's list."""
    assert tuple(CLASSES) == get_args(ChangeClass)
    assert sorted(info.rank for info in CLASSES.values()) == list(range(len(CLASSES)))


def test_compare_does_not_import_the_loaders() -> None:
    """Only the command line and the package's face read inputs: the compare stage works on
    the records of `model` (an empty page's entries included)."""
    for module in sorted((PACKAGE / "compare").glob("*.py")):
        assert not {n for n in _imports(module) if n.startswith("sources")}, module.name


def test_no_module_holds_two_concepts_and_every_function_is_short() -> None:
    """One concept a module (STYLE.md): a module past 500 lines is a reason to look (it usually
    holds two concepts, to be split by concept, never by count); a function past 60 lines is an
    error, in every stage."""
    for module in sorted(PACKAGE.rglob("*.py")):
        text = module.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 500, f"{module.name}: two concepts? split by concept"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                assert length <= 60, f"{module.name}: {node.name} has {length} lines"
