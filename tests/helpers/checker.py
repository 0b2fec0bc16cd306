"""An independent claim checker (SPEC section 2a): every explanation re-derived from raw pages.

Nothing here imports snapdiff: pages are read with PyYAML, normalised by SPEC's words, and each
record of a JSON report's `changes` and `stack_moves` is checked against them, its text
included. `check_report` returns the false claims found (empty when every claim is true).
"""

from __future__ import annotations

import hashlib
import html
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, where PyYAML has it
ALIASES = {"oneapi": "intel-oneapi-compilers", "clang": "llvm"}
NO_COMPILER = "none"
DIMS = {"os": 0, "platform": 1, "target": 2, "compiler": 3, "variants": 4}
Config = tuple[str, str, str, str, tuple[str, ...]]


def compiler(raw: str) -> str:
    name, at, version = raw.replace("@=", "@").partition("@")
    return ALIASES.get(name, name) + at + version


def config_of(entry: dict[str, Any]) -> Config:
    variants = {v.replace(":=", "=", 1) for v in entry.get("variants", [])}
    return (
        entry.get("os", ""),
        entry.get("platform", ""),
        entry.get("target", ""),
        compiler(str(entry.get("compiler", ""))),
        tuple(sorted(variants)),
    )


def vkey(version: str) -> tuple[Any, ...]:
    """Spack order, written again from SPEC section 3 (enough for the versions tests use)."""
    infinity = ["stable", "trunk", "head", "master", "main", "develop"]
    ref = ""
    if "=" in version[1:]:
        ref, version = version.split("=", 1)
    parts = re.findall(r"[0-9]+|[a-zA-Z]+", version)
    pre: tuple[int, ...] = (3,)
    kinds = {"alpha": 0, "beta": 1, "rc": 2, "final": 3}
    if len(parts) >= 3 and parts[-2] in kinds and parts[-1].isdigit():
        pre, parts = (kinds[parts[-2]], int(parts[-1])), parts[:-2]
    elif len(parts) >= 2 and parts[-1] in kinds:
        pre, parts = (kinds[parts[-1]],), parts[:-1]
    comps = tuple(
        (1, int(p)) if p.isdigit() else (2, infinity.index(p)) if p in infinity else (0, p)
        for p in parts
    )
    return (comps, pre, 1 if ref else 0, ref.removeprefix("git."))


def spec_version(entry: dict[str, Any]) -> str:
    return max(entry["versions"], key=lambda v: (vkey(v), v)) if entry["versions"] else ""


@dataclass
class Side:
    """One snapshot's specs: by package, hash -> (configuration, version, stacks)."""

    packages: dict[tuple[str, str], dict[str, tuple[Config, str, frozenset[str]]]] = field(
        default_factory=dict
    )


_READ: dict[tuple[str | None, str], Side] = {}


def read_side(root: Path, label_tag: str | None = None) -> Side:
    """The side in `root`, read once per content: many tests check reports of the same sample
    folders, and YAML reads a page slowly (keyed by the files' bytes, never their times, so a
    folder rewritten in place is read again; the Side is never changed by its readers)."""
    files = sorted(p for name in ("*.md", "index.json", "spack.lock") for p in root.rglob(name))
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"{path.relative_to(root)}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    key = (label_tag, digest.hexdigest())
    if key not in _READ:
        if len(_READ) >= 16:  # the oldest first: a worker's memory stays small
            del _READ[next(iter(_READ))]
        _READ[key] = _read_side(root, label_tag)
    return _READ[key]


def _read_side(root: Path, label_tag: str | None) -> Side:
    side = Side()
    for path in sorted(root.rglob("*.md")):
        text = path.read_text(encoding="utf-8-sig")
        if not text.startswith("---"):
            continue
        front = yaml.load(text.split("---", 2)[1], Loader=_LOADER)
        if not isinstance(front, dict) or front.get("layout") != "cache":
            continue
        tag = label_tag or front["categories"][1]
        specs = side.packages.setdefault((tag, front["title"]), {})
        for entry in front["spec_details"]:
            specs[entry["hash"]] = (
                config_of(entry),
                spec_version(entry),
                frozenset(entry["stacks"]),
            )
    if list(root.rglob("index.json")) or list(root.rglob("spack.lock")):
        _read_indexes(root, side, label_tag or "develop")
    return side


def _read_indexes(root: Path, side: Side, tag: str) -> None:
    """Build-cache indexes (or lockfiles), as snapdiff's pages of them: every binary record
    (variants without patches), read by the cause checker's own reader."""
    from causes import read_side as read_records

    for digest, record in read_records(root).items():
        if not record["binary"]:
            continue
        variants = sorted(v for v in record["variants"] if not v.startswith("patches="))
        entry = {**record, "variants": variants}
        side.packages.setdefault((tag, record["name"]), {})[digest] = (
            config_of(entry),
            record["version"],
            frozenset(record["stacks"]),
        )


def _config(record: dict[str, Any]) -> Config:
    return (
        record["os"],
        record["platform"],
        record["target"],
        record["compiler"],
        tuple(record["variants"]),
    )


@dataclass
class Package:
    """What SPEC section 2a's definitions need of one package."""

    removed: dict[str, tuple[Config, str]]
    added: dict[str, tuple[Config, str]]
    v_old: dict[Config, set[str]]
    v_new: dict[Config, set[str]]
    stacks_old: dict[Config, set[str]]  # the stacks of each configuration's specs, on each side
    stacks_new: dict[Config, set[str]]
    migrated: set[Config] = field(default_factory=set)  # in the package's migration records
    # looked up, not searched (a package can have thousands of configurations and records):
    # (side, configuration) -> its removed (added) specs by version; dimensions -> `outside`
    _specs: dict[tuple[str, Config], dict[str, set[str]]] = field(default_factory=dict)
    _outside: dict[tuple[int, ...], dict[tuple[Any, ...], tuple[list[Config], list[Config]]]] = (
        field(default_factory=dict)
    )

    def at(self, hashes: list[str], side: str) -> dict[str, tuple[Config, str]]:
        found = self.removed if side == "old" else self.added
        return {h: found[h] for h in hashes}

    def specs(self, side: str, config: Config, version: str | None = None) -> set[str]:
        if not self._specs:
            for name, found in (("old", self.removed), ("new", self.added)):
                for h, (c, v) in found.items():
                    self._specs.setdefault((name, c), {}).setdefault(v, set()).add(h)
        by_version = self._specs.get((side, config), {})
        if version is not None:
            return set(by_version.get(version, ()))
        return set().union(*by_version.values())

    def outside(
        self, dims: tuple[int, ...]
    ) -> dict[tuple[Any, ...], tuple[list[Config], list[Config]]]:
        """The configurations one side lacks that hold removed (added) specs, by their values
        outside `dims`: dropped ones, then new ones."""
        if dims not in self._outside:
            found: dict[tuple[Any, ...], tuple[list[Config], list[Config]]] = defaultdict(
                lambda: ([], [])
            )
            for index, (mine, theirs, side) in enumerate(
                ((self.v_old, self.v_new, "old"), (self.v_new, self.v_old, "new"))
            ):
                for c in mine.keys() - theirs.keys():
                    if self.specs(side, c):
                        rest = tuple(None if i in dims else v for i, v in enumerate(c))
                        found[rest][index].append(c)
            self._outside[dims] = found
        return self._outside[dims]


def _tag_hashes(side: Side) -> set[tuple[str, str]]:
    return {(tag, h) for (tag, _), specs in side.packages.items() for h in specs}


def _package(
    tag: str, old: dict[str, Any], new: dict[str, Any], moved: set[tuple[str, str]]
) -> Package:
    """One package; a hash on both sides of its tag but on another page `moved` (SPEC 2)."""
    v_old: dict[Config, set[str]] = defaultdict(set)
    v_new: dict[Config, set[str]] = defaultdict(set)
    s_old: dict[Config, set[str]] = defaultdict(set)
    s_new: dict[Config, set[str]] = defaultdict(set)
    for c, v, stacks in old.values():
        v_old[c].add(v)
        s_old[c] |= stacks
    for c, v, stacks in new.values():
        v_new[c].add(v)
        s_new[c] |= stacks
    removed = {h: old[h][:2] for h in old.keys() - new.keys() if (tag, h) not in moved}
    added = {h: new[h][:2] for h in new.keys() - old.keys() if (tag, h) not in moved}
    return Package(removed, added, dict(v_old), dict(v_new), dict(s_old), dict(s_new))


def target_family(target: str) -> str:
    """A target's family as Spack's `archspec` defines it; one it does not know is its own."""
    import archspec.cpu

    known = archspec.cpu.TARGETS.get(target)
    return known.family.name if known is not None else target


def compiler_family(raw: str) -> str:
    """A compiler's Spack 1.0 package (SPEC section 6: `intel` is
    `intel-oneapi-compilers-classic`, another family than `intel-oneapi-compilers`)."""
    name = compiler(raw).partition("@")[0]
    return "intel-oneapi-compilers-classic" if name == "intel" else name


def related(dropped: Config, new: Config, p: Package) -> bool:
    """SPEC section 2a's related: the two configurations' specs share a stack other than
    `root` (skipped where either has no other), the target keeps its family, the compiler its
    family or goes to or from `none`."""
    here = p.stacks_old.get(dropped, set()) - {"root"}
    there = p.stacks_new.get(new, set()) - {"root"}
    if here and there and not here & there:
        return False
    if target_family(dropped[2]) != target_family(new[2]):
        return False
    families = {compiler_family(dropped[3]), compiler_family(new[3])}
    return len(families) == 1 or NO_COMPILER in families


def _top(versions: set[str]) -> str | None:
    return max(versions, key=lambda v: (vkey(v), v)) if versions else None


def _check_class(r: dict[str, Any], p: Package) -> list[str]:
    """What is false in one record, by its class's definition."""
    kind = r["class"]
    olds = [_config(c) for c in r["configurations_old"]]
    news = [_config(c) for c in r["configurations_new"]]
    so, sn = set(r["specs_old"]), set(r["specs_new"])
    errors = []
    if kind == "new-configuration" or kind == "dropped-configuration":
        configs, side = (news, "new") if kind == "new-configuration" else (olds, "old")
        theirs_v = p.v_old if side == "new" else p.v_new
        mine_v = p.v_new if side == "new" else p.v_old
        if olds if side == "new" else news:
            errors.append("configurations on the wrong side")
        for c in configs:
            if c in theirs_v or c not in mine_v:
                errors.append(f"{c} is not a {kind}")
        every = set().union(*(p.specs(side, c) for c in configs)) if configs else set()
        if (sn if side == "new" else so) != every or (so if side == "new" else sn):
            errors.append("specs are not exactly those of the configurations")
        return errors
    if kind == "migration":
        return _check_migration(r, p, olds, news, so, sn)
    if olds != news or not olds:
        return ["configurations differ between the sides"]
    for c in olds:
        if c not in p.v_old or c not in p.v_new:
            errors.append(f"{c} is not on both sides")
            continue
        gone, came = p.v_old[c] - p.v_new[c], p.v_new[c] - p.v_old[c]
        in_old = {h for h in so if p.removed[h][0] == c}
        in_new = {h for h in sn if p.added[h][0] == c}
        if kind == "rebuilt":
            (v,) = r["versions_old"]
            k = min(len(p.specs("old", c, v)), len(p.specs("new", c, v)))
            ok = r["versions_new"] == [v] and len(in_old) == len(in_new) == k > 0
            ok = ok and all(p.removed[h][1] == v for h in in_old)
            ok = ok and all(p.added[h][1] == v for h in in_new)
        elif kind in ("upgrade", "downgrade"):
            (v1,), (v2,) = r["versions_old"], r["versions_new"]
            up = vkey(v2) > vkey(v1)
            ok = v1 == _top(gone) and v2 == _top(came) and up == (kind == "upgrade")
            ok = ok and in_old == p.specs("old", c, v1) and in_new == p.specs("new", c, v2)
        elif kind in ("version-retired", "version-added"):
            old_side = kind == "version-retired"
            (v,) = r["versions_old"] if old_side else r["versions_new"]
            mine, theirs = (gone, came) if old_side else (came, gone)
            ok = v in mine and not (theirs and v == _top(mine))
            ok = ok and (in_old, in_new) == (
                (p.specs("old", c, v), set()) if old_side else (set(), p.specs("new", c, v))
            )
        else:  # more-builds, fewer-builds
            more = kind == "more-builds"
            (v,) = r["versions_new"] if more else r["versions_old"]
            both = v in p.v_old[c] and v in p.v_new[c]
            removed, added = len(p.specs("old", c, v)), len(p.specs("new", c, v))
            extra = added - min(removed, added) if more else removed - min(removed, added)
            ok = both and len(in_new if more else in_old) == extra > 0
            ok = ok and not (in_old if more else in_new)
        if not ok:
            errors.append(f"{kind} is false in {c}")
    if sum(1 for h in so if p.removed[h][0] in olds) != len(so):
        errors.append("specs outside the configurations")
    if sum(1 for h in sn if p.added[h][0] in news) != len(sn):
        errors.append("specs outside the configurations")
    return errors


def _check_migration(
    r: dict[str, Any],
    p: Package,
    olds: list[Config],
    news: list[Config],
    so: set[str],
    sn: set[str],
) -> list[str]:
    """One to one along one or two dimensions, or many to one (one to many) along one: every
    configuration equal outside the dimensions, every dropped one related to every new one it
    is equal to there, every value before differing from every value after, and nothing else of
    the package equal to them outside the dimensions and related to them."""
    dims = [DIMS[d] for d in r["dimensions"]]
    if not dims or not olds or not news:
        return ["a migration needs dimensions and configurations on each side"]
    if len(olds) != len(news) and (len(dims) != 1 or r["dimensions"] == ["variants"]):
        return ["many to one only along one dimension other than variants"]
    errors = []

    def rest(c: Config) -> tuple[Any, ...]:
        return tuple(None if i in dims else v for i, v in enumerate(c))

    groups: dict[tuple[Any, ...], tuple[list[Config], list[Config]]] = defaultdict(lambda: ([], []))
    for c in olds:
        groups[rest(c)][0].append(c)
    for c in news:
        groups[rest(c)][1].append(c)
    for key, (before, after) in groups.items():
        if not before or not after:
            errors.append(f"configurations do not match outside the dimensions: {key}")
        elif len(before) > 1 and len(after) > 1:
            errors.append(f"many to many is no migration: {key}")
        # configurations one side lacks that hold removed (added) specs: one whose specs all
        # moved from another page holds none, and is not a new configuration of this package
        # (one in another migration is taken: one dimension is preferred to two)
        own = {*olds, *news}
        dropped, came = (
            [c for c in cs if c in own or c not in p.migrated]
            for cs in p.outside(tuple(dims)).get(key, ([], []))
        )
        # only related configurations pair: one unrelated to this group is no rival of it
        dropped = [c for c in dropped if c in before or any(related(c, b, p) for b in after)]
        came = [c for c in came if c in after or any(related(a, c, p) for a in before)]
        if sorted(dropped) != sorted(before) or sorted(came) != sorted(after):
            errors.append(f"other configurations equal outside the dimensions: {key}")
        errors += [
            f"unrelated configurations migrate: {a} → {b}"
            for a in before
            for b in after
            if not related(a, b, p)
        ]
    values_before = {tuple(c[d] for d in dims) for c in olds}
    values_after = {tuple(c[d] for d in dims) for c in news}
    if len(values_before) * len(values_after) != max(len(values_before), len(values_after)):
        errors.append("a migration moves values to one value, or one value to values")
    if any(x == y for a in values_before for b in values_after for x, y in zip(a, b, strict=True)):
        errors.append("a value did not change along a dimension named")
    for key, (before, after) in groups.items():
        mine = ({tuple(c[d] for d in dims) for c in cs} for cs in (before, after))
        if (next(mine), next(mine)) != (values_before, values_after):
            errors.append(f"configurations moved otherwise than the others: {key}")
    for c in olds:
        if c not in p.v_old or c in p.v_new:
            errors.append(f"{c} is not dropped")
    for c in news:
        if c not in p.v_new or c in p.v_old:
            errors.append(f"{c} is not new")
    if so != set().union(*(p.specs("old", c) for c in olds)):
        errors.append("removed specs are not those of the dropped configurations")
    if sn != set().union(*(p.specs("new", c) for c in news)):
        errors.append("added specs are not those of the new configurations")
    if set(r["versions_old"]) != {p.removed[h][1] for h in so}:
        errors.append("versions_old are not the versions of the removed specs")
    if set(r["versions_new"]) != {p.added[h][1] for h in sn}:
        errors.append("versions_new are not the versions of the added specs")
    return errors


_WHERE = re.compile(
    r" in (?:its only (?P<one>\S+) configuration"
    r"|all (?P<all>[\d,]+) (?P<allp>\S+) configurations"
    r"|(?P<some>[\d,]+) (?P<somep>\S+) configurations?"
    r"|(?P<every>all )?(?P<n>[\d,]+) configurations?)"
)


def _num(text: str) -> int:
    return int(text.replace(",", ""))


def _check_where(text: str, r: dict[str, Any], p: Package) -> list[str]:
    """The "in all 3 linux configurations" part: count, platform and "all" true."""
    configs = {_config(c) for c in r["configurations_new"] or r["configurations_old"]}
    m = _WHERE.search(text)
    if m is None:
        return [f"no configurations said: {text}"]
    platforms = {c[1] for c in configs}
    platform = m["one"] or m["allp"] or m["somep"]
    count = 1 if m["one"] else _num(m["all"] or m["some"] or m["n"])
    errors = []
    if count != len(configs):
        errors.append(f"says {count} configurations, has {len(configs)}")
    if platform is not None and platforms != {platform}:
        errors.append(f"says platform {platform}, has {sorted(platforms)}")
    if m["one"] or m["all"] or m["every"]:
        old_p = {c for c in p.v_old if platform in (None, c[1])}
        new_p = {c for c in p.v_new if platform in (None, c[1])}
        if not configs == old_p == new_p:
            errors.append(f"says all configurations, but the package has others: {text}")
    return errors


def _check_text(r: dict[str, Any], p: Package) -> list[str]:
    """The sentence says the record's class, versions and counts, and nothing else."""
    text, kind = r["text"], r["class"]
    n_old, n_new = len(r["specs_old"]), len(r["specs_new"])
    for version in r["versions_old"] + r["versions_new"]:
        if kind not in ("migration",) and version not in text:
            return [f"version {version} not said: {text}"]
    patterns = {
        "rebuilt": rf"^rebuilt at \S+ in .*: {n_new:,} "
        + ("spec with a new hash$" if n_new == 1 else "specs with new hashes$"),
        "upgrade": rf"^\S+ → \S+ in .*: {n_old:,} → {n_new:,} specs?$",
        "downgrade": rf"^\S+ → \S+ \(downgrade\) in .*: {n_old:,} → {n_new:,} specs?$",
        "version-retired": rf"^\S+ retired in .*: {n_old:,} specs?$",
        "version-added": rf"^\S+ added in .*: {n_new:,} specs?$",
        "more-builds": rf"^{n_new:,} more builds? of \S+ in .*$",
        "fewer-builds": rf"^{n_old:,} fewer builds? of \S+ in .*$",
        "new-configuration": rf"^{n_new:,} specs? in {len(r['configurations_new']):,} new "
        r"configurations? \(.*\)$",
        "dropped-configuration": rf"^{n_old:,} specs? in {len(r['configurations_old']):,} "
        r"dropped configurations? \(.*\)$",
        "migration": rf": {_configurations(r)}, {n_old:,} → {n_new:,} specs?"
        rf"{re.escape(_versions_moved(r))}$",
    }
    if not re.search(patterns[kind], text):
        return [f"text does not say the record: {text}"]
    if kind == "migration":
        return _check_values_said(text, r)
    if kind in ("new-configuration", "dropped-configuration"):
        return []
    return _check_where(text, r, p)


def _configurations(r: dict[str, Any]) -> str:
    """How a migration sentence counts its configurations: "3 configurations", "2
    configurations → 1"."""
    n_old, n_new = len(r["configurations_old"]), len(r["configurations_new"])
    said = f"{n_old:,} configuration{'s' if n_old != 1 else ''}"
    return said if n_old == n_new else f"{said} → {n_new:,}"


def _versions_moved(r: dict[str, Any]) -> str:
    """What a migration sentence must say of versions: those on one side only (nothing when
    both sides have the same versions)."""
    gone = sorted(set(r["versions_old"]) - set(r["versions_new"]), key=vkey)
    came = sorted(set(r["versions_new"]) - set(r["versions_old"]), key=vkey)
    if gone and came:
        return f"; versions {', '.join(gone)} → {', '.join(came)}"
    if came:
        return f"; new version{'s' if len(came) > 1 else ''} {', '.join(came)}"
    if gone:
        return f"; version{'s' if len(gone) > 1 else ''} {', '.join(gone)} no longer built"
    return ""


def _said_value(text: str, dimension: str) -> str:
    value = "none" if text == "no compiler (none)" else text
    return compiler(value) if dimension == "compiler" else value


def _check_values_said(text: str, r: dict[str, Any]) -> list[str]:
    """Each dimension's values before and after, as the sentence says them (compilers compared
    normalised, as the pages may spell them otherwise)."""
    errors = []
    for dimension in r["dimensions"]:
        if dimension == "variants":
            continue
        m = re.search(rf" {dimension} (.+?) → (.+?)(?: and |: )", text)
        if m is None:
            errors.append(f"{dimension} not said: {text}")
            continue
        for said, side in ((m[1], "configurations_old"), (m[2], "configurations_new")):
            values = {_said_value(v, dimension) for v in said.split(", ")}
            if values != {c[dimension] for c in r[side]}:
                errors.append(f"{dimension} values said {sorted(values)} are not the record's")
    return errors


def check_report(report: Mapping[str, Any], old_root: Path, new_root: Path) -> list[str]:
    """Every false claim of a JSON report (unfiltered) about two snapshot directories."""
    releases = report["old"]["tags"] != report["new"]["tags"] and len(report["new"]["tags"]) == 1
    label = report["new"]["tags"][0] if releases else None
    if len(report.get("environments", [])) == 1:  # one environment a side: named by the new one
        label = report["environments"][0]["name"]
    old, new = read_side(old_root, label), read_side(new_root, label)
    errors = []
    moved = _tag_hashes(old) & _tag_hashes(new)
    for package in report["packages"]:
        key = (package["tag"], package["name"])
        p = _package(key[0], old.packages.get(key, {}), new.packages.get(key, {}), moved)
        where = f"{key[1]}"
        seen_old: list[str] = []
        seen_new: list[str] = []
        p.migrated = {
            _config(c)
            for r in package["changes"]
            if r["class"] == "migration"
            for c in r["configurations_old"] + r["configurations_new"]
        }
        for record in package["changes"]:
            seen_old += record["specs_old"]
            seen_new += record["specs_new"]
            if not set(record["specs_old"]) <= p.removed.keys():
                errors.append(f"{where}: a spec said removed is not")
                continue
            if not set(record["specs_new"]) <= p.added.keys():
                errors.append(f"{where}: a spec said added is not")
                continue
            try:
                found = _check_class(record, p) + _check_text(record, p)
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                found = [f"a record not of its class's shape ({exc!r}): {record['text']}"]
            errors += [f"{where}: {e}" for e in found]
        if sorted(seen_old) != sorted(p.removed) or sorted(seen_new) != sorted(p.added):
            errors.append(f"{where}: not every added and removed spec in exactly one record")
        errors += [f"{where}: {e}" for e in _check_kept(package, old, new)]
        errors += [f"{where}: {e}" for e in _check_variants(package, old, new)]
        errors += [f"{where}: {e}" for e in _check_cause(package, old, new)]
    errors += _check_stack_moves(report, old, new)
    return errors


def _cause_text(version: str, removed: list[str], left: list[str]) -> str:
    parts = []
    if removed:
        parts.append(f"the removed stack{'s' * (len(removed) > 1)} {', '.join(removed)}")
    if left:
        verb = "builds" if len(left) == 1 else "build"
        many = "s" * (len(left) > 1)
        parts.append(f"the stack{many} {', '.join(left)}, which no longer {verb} the package")
    return f"{version} was built only in " + " and ".join(parts)


def _check_cause(package: dict[str, Any], old: Side, new: Side) -> list[str]:
    """A downgrade's `cause` is said exactly when every old spec of its old highest version is
    in a stack besides `root` and none of those stacks holds a spec of the package on the new
    side; its stacks are the removed ones (no spec of the tag on the new side) and the rest."""
    bump = package["bump"]
    if not bump or bump["kind"] != "downgrade":
        return []
    key = (package["tag"], package["name"])
    wanted = vkey(bump["from"])
    builds = {
        h: set(stacks) - {"root"}
        for h, (_, version, stacks) in old.packages.get(key, {}).items()
        if vkey(version) == wanted
    }
    still = {s for _, _, stacks in new.packages.get(key, {}).values() for s in stacks}
    shown = bool(builds) and all(b and not b & still for b in builds.values())
    cause = bump["cause"]
    if bool(cause) != shown:
        return [f"a downgrade's cause is {'said' if cause else 'not said'}, but is not so"]
    if not cause:
        return []
    stacks = set().union(*builds.values())
    kept = {
        s
        for (tag, _), specs in new.packages.items()
        if tag == key[0]
        for _, _, held in specs.values()
        for s in held
    }
    removed, left = sorted(stacks - kept), sorted(stacks & kept)
    expected = {
        "version": bump["from"],
        "specs": sorted(builds),
        "stacks_removed": removed,
        "stacks_left": left,
        "text": _cause_text(bump["from"], removed, left),
    }
    return [] if cause == expected else [f"says {cause}, but the pages say {expected}"]


_JOINED = re.compile(r"^([\d,]+) specs? (joined|left) (.+)$")


def _check_kept(package: dict[str, Any], old: Side, new: Side) -> list[str]:
    """Check "N specs joined S" and "left S": specs of the package's pages on both sides of the
    tag (one that moved to another page is the same spec) whose stacks changed so."""
    key = (package["tag"], package["name"])
    mine = old.packages.get(key, {}).keys() | new.packages.get(key, {}).keys()
    before, after = (
        {h: s[h] for (tag, _), s in side.packages.items() if tag == key[0] for h in s if h in mine}
        for side in (old, new)
    )
    errors = []
    for line in package["kept"]:
        m = _JOINED.match(line)
        if m is None:
            continue  # a field's change ("spec abc1234: size: - → 1024"), said by deepdiff
        count, verb, stack = _num(m[1]), m[2], m[3]
        joined = verb == "joined"
        found = sum(
            1
            for h in before.keys() & after.keys()
            if (stack in after[h][2]) == joined and (stack in before[h][2]) != joined
        )
        if found != count:
            errors.append(f"says {line}, but {found} did")
    return errors


def _stack_facts(
    side: Side,
) -> tuple[dict[tuple[str, str], int], dict[tuple[str, str], dict[str, dict[str, int]]], Any]:
    """Per (tag, stack) of one side: its spec count, per dimension the specs of each value, and
    its packages."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    values: dict[tuple[str, str], dict[str, dict[str, int]]] = defaultdict(
        lambda: {dim: defaultdict(int) for dim in ("os", "target", "compiler")}
    )
    packages: dict[tuple[str, str], set[str]] = defaultdict(set)
    for (tag, name), specs in side.packages.items():
        for config, _, stacks in specs.values():
            for stack in stacks:
                counts[(tag, stack)] += 1
                packages[(tag, stack)].add(name)
                for dim in ("os", "target", "compiler"):
                    values[(tag, stack)][dim][str(config[DIMS[dim]])] += 1
    return counts, values, packages


def expected_stack_moves(old: Side, new: Side) -> dict[tuple[Any, ...], tuple[int, int, int, int]]:
    """Every stack move SPEC section 2a defines, with (specs_old, specs_new, specs with no
    compiler set aside on each side): never `root`; a package on both sides; on the compiler
    dimension, specs with no compiler on both sides left out of the sets and counted apart."""
    (c_old, v_old, p_old), (c_new, v_new, p_new) = _stack_facts(old), _stack_facts(new)
    expected = {}
    for key in v_old.keys() & v_new.keys():
        if key[1] == "root" or not p_old[key] & p_new[key]:
            continue
        for dim in ("os", "target", "compiler"):
            was, now = v_old[key][dim], v_new[key][dim]
            aside = dim == "compiler" and NO_COMPILER in was and NO_COMPILER in now
            before = set(was) - ({NO_COMPILER} if aside else set())
            after = set(now) - ({NO_COMPILER} if aside else set())
            if before and after and not before & after:
                off_old = was[NO_COMPILER] if aside else 0
                off_new = now[NO_COMPILER] if aside else 0
                move = (*key, dim, tuple(sorted(before)), tuple(sorted(after)))
                expected[move] = (c_old[key] - off_old, c_new[key] - off_new, off_old, off_new)
    return expected


def _check_stack_moves(report: Mapping[str, Any], old: Side, new: Side) -> list[str]:
    """Each stack move true, its counts (the set-aside specs with no compiler apart), and every
    stack that moved reported."""
    expected = expected_stack_moves(old, new)
    said = {
        (m["tag"], m["stack"], m["dimension"], tuple(m["from"]), tuple(m["to"])): m
        for m in report["stack_moves"]
    }
    errors = [f"stack move not true: {m}" for m in sorted(said.keys() - expected.keys())]
    errors += [f"stack move not reported: {m}" for m in sorted(expected.keys() - said.keys())]
    for key, m in said.items():
        counts = (
            m["specs_old"],
            m["specs_new"],
            m["specs_no_compiler_old"],
            m["specs_no_compiler_new"],
        )
        if key in expected and counts != expected[key]:
            errors.append(f"stack move counts wrong: {m}")
    return errors


def _check_variants(package: dict[str, Any], old: Side, new: Side) -> list[str]:
    """`variants_added` and `variants_removed`: the package's variant tokens (normalised, over
    all its specs) on one side only; none said for a package added or removed."""
    key = (package["tag"], package["name"])
    before, after = (
        {v for config, _, _ in side.packages.get(key, {}).values() for v in config[4]}
        for side in (old, new)
    )
    changed = package["status"] == "changed"
    added = sorted(after - before) if changed else []
    removed = sorted(before - after) if changed else []
    if (package["variants_added"], package["variants_removed"]) != (added, removed):
        return [f"variant values said {package['variants_added']}, {package['variants_removed']}"]
    return []


_REASONS = ("pure-python", "pure python", "because", "nothing else", "only python")
_NOTE = re.compile(
    r"^From a compiler to no compiler \(`none`\): ([\d,]+) configurations? of ([\d,]+) "
    r"packages? \((.*?)\), ([\d,]+) → ([\d,]+) specs?"
)
_CONFIG_LINE = re.compile(r"^  - .*\(`([^`]+)`\)$")
_MORE_LINE = re.compile(r"^  - … and ([\d,]+) more `([^`]+)`$")


def _to_none(r: dict[str, Any]) -> bool:
    return (
        r["class"] == "migration"
        and "compiler" in r["dimensions"]
        and all(c["compiler"] == "none" for c in r["configurations_new"])
        and all(c["compiler"] != "none" for c in r["configurations_old"])
    )


def check_markdown(markdown: str, report: Mapping[str, Any]) -> list[str]:
    """The Markdown's own claims: the note on the move to no compiler (no reason given, every
    package named, counts right) and every cut list of configurations (each platform visible,
    what is hidden counted per platform). The records themselves are `check_report`'s."""
    errors = []
    lines = markdown.splitlines()
    moved = [(p, r) for p in report["packages"] for r in p["changes"] if _to_none(r)]
    notes = [line for line in lines if "no compiler (`none`)" in line and "`none` says" in line]
    for line in lines:
        if "none" in line and any(word in line.lower() for word in _REASONS):
            errors.append(f"a reason or absence the data does not show: {line}")
    if moved and len(notes) != 1:
        errors.append("the move to no compiler is not said once")
    for note in notes:
        m = _NOTE.match(note)
        if m is None:
            errors.append(f"note not understood: {note}")
            continue
        names = sorted({p["name"] for p, _ in moved})
        said = [n.strip("`") for n in m[3].split(", ")]
        if said != names or _num(m[2]) != len(names):
            errors.append(f"the note names {said}, the packages are {names}")
        counts = (
            sum(len(r["configurations_old"]) for _, r in moved),
            sum(len(r["specs_old"]) for _, r in moved),
            sum(len(r["specs_new"]) for _, r in moved),
        )
        if (_num(m[1]), _num(m[4]), _num(m[5])) != counts:
            errors.append(f"the note's counts are not {counts}: {note}")
    for block in markdown.split("<details><summary>")[1:]:
        summary = block.split("\n", 1)[0]
        mine: list[dict[str, Any]] = [
            r
            for p in report["packages"]
            if f"{html.escape(p['name'])}</code>:" in summary
            for r in p["changes"]
            if r["class"] in ("new-configuration", "dropped-configuration")
        ]
        lines = block.splitlines()
        for index, line in enumerate(lines):
            matching = [
                r for r in mine if line.startswith("- ") and r["text"] == line[2:].replace("`", "")
            ]
            if matching:
                found: list[list[str]] = [_check_cut(lines[index + 1 :], r) for r in matching]
                errors += sorted(found, key=len)[0]  # records that read the same: one fits
    return errors


def _check_cut(following: list[str], record: dict[str, Any]) -> list[str]:
    """The configurations listed under a sentence: every platform of the record visible, and
    the hidden ones counted per platform."""
    configs = record["configurations_new"] or record["configurations_old"]
    platforms = Counter(c["platform"] for c in configs)
    shown: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    for line in following:
        if (m := _MORE_LINE.match(line)) is not None:
            hidden[m[2]] += _num(m[1])
        elif (m := _CONFIG_LINE.match(line)) is not None:
            shown[m[1]] += 1
        else:
            break
    errors = []
    if set(shown) != set(platforms):
        errors.append(f"a platform hidden by a cut list: {sorted(set(platforms) - set(shown))}")
    if shown + hidden != platforms:
        errors.append(f"a cut list counts {dict(shown + hidden)}, has {dict(platforms)}")
    return errors
