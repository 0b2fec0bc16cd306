"""Explain a package's added and removed specs: rebuilds, version moves, migrations (SPEC §2)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from .model import Configuration, Spec
from .report import Explanation, Migration, Pair, Sentence, SpecChange
from .versions import sort_versions, version_key

__all__ = ["describe_fields", "explain"]

_DIMENSIONS = ("os", "target", "compiler")


def _version(spec: Spec) -> str:
    """The version a spec is known by: its highest, when it lists several."""
    if len(spec.versions) == 1:
        return spec.versions[0]
    return sort_versions(spec.versions)[-1] if spec.versions else ""


def _pair_configuration(
    config: Configuration, removed: list[Spec], added: list[Spec]
) -> tuple[list[Pair], list[Spec], list[Spec]]:
    """Pairs within one configuration: equal versions first (rebuilds), then in version order."""
    by_version: dict[object, list[Spec]] = defaultdict(list)
    for spec in sorted(added, key=lambda s: s.hash):
        by_version[version_key(_version(spec))].append(spec)
    pairs, left_removed = [], []
    for old in sorted(removed, key=lambda s: (version_key(_version(s)), s.hash)):
        same = by_version.get(version_key(_version(old)))
        if same:
            new = same.pop(0)
            pairs.append(Pair(old.hash, new.hash, _version(old), _version(new), "rebuilt", config))
        else:
            left_removed.append(old)
    left_added = sorted(
        (s for group in by_version.values() for s in group),
        key=lambda s: (version_key(_version(s)), s.hash),
    )
    for old, new in zip(left_removed, left_added, strict=False):
        up = version_key(_version(new)) > version_key(_version(old))
        kind = "upgrade" if up else "downgrade"
        pairs.append(Pair(old.hash, new.hash, _version(old), _version(new), kind, config))
    count = min(len(left_removed), len(left_added))
    return pairs, left_removed[count:], left_added[count:]


Values = Mapping[tuple[str, str], set[str]]  # (platform, dimension) -> values on one side


def _migrations(old: Values, new: Values, gone: list[Spec], came: list[Spec]) -> list[Migration]:
    """Per platform and dimension: values no new spec has any more, values no old spec had."""
    found = []
    for platform in sorted({p for p, _ in old.keys() | new.keys()}):
        for name in _DIMENSIONS:
            before, after = old.get((platform, name), set()), new.get((platform, name), set())
            dropped, arrived = sorted(before - after), sorted(after - before)
            specs_old = sum(
                1 for s in gone if s.platform == platform and getattr(s, name) in dropped
            )
            specs_new = sum(
                1 for s in came if s.platform == platform and getattr(s, name) in arrived
            )
            if specs_old or specs_new:
                found.append(
                    Migration(platform, name, tuple(dropped), tuple(arrived), specs_old, specs_new)
                )
    return found


def _specs(count: int) -> str:
    return f"{count} spec{'' if count == 1 else 's'}"


def _slots(values: tuple[str, ...] | list[str]) -> str:
    """`{}, {}` for a list of values, each filled in (and marked up) on its own."""
    return ", ".join("{}" for _ in values)


def _pair_lines(
    pairs: list[Pair], configurations: Callable[[], set[Configuration]]
) -> list[Sentence]:
    """One sentence per identical change, however many configurations it happened on."""
    if not pairs:
        return []
    per_platform = Counter(config[1] for config in configurations())
    groups: dict[tuple[str, str, str], list[Pair]] = defaultdict(list)
    for pair in pairs:
        groups[(pair.kind, pair.old_version, pair.new_version)].append(pair)
    lines = []
    for (kind, old, new), group in sorted(
        groups.items(), key=lambda item: (item[0][0] != "downgrade", -len(item[1]), item[0])
    ):
        configs = {pair.configuration for pair in group}
        platforms = sorted({config[1] for config in configs})
        where = f"{len(configs)} configuration{'s' * (len(configs) != 1)}"
        values: tuple[str, ...] = ()
        if len(platforms) == 1:
            total = per_platform[platforms[0]]
            where = f"{len(configs)} of {total} {{}} configurations"
            if len(configs) == total:
                where = f"all {total} {{}} configurations" if total > 1 else "its {} configuration"
            values = (platforms[0],)
        extra = f" ({_specs(len(group))})" if len(group) != len(configs) else ""
        if kind == "rebuilt":
            lines.append(Sentence("rebuilt at {} on " + where + extra, (new, *values)))
        else:
            said = " (downgrade)" if kind == "downgrade" else ""
            lines.append(Sentence("{} → {} on " + where + extra + said, (old, new, *values)))
    return lines


def _migration_line(m: Migration) -> Sentence:
    """`darwin os ventura → sequoia (6 specs)`, or what was dropped and what is new."""
    if len(m.old) == 1 and len(m.new) == 1:
        count = _specs(m.specs_new or m.specs_old)
        return Sentence(f"{{}} {m.dimension} {{}} → {{}} ({count})", (m.platform, *m.old, *m.new))
    said = []
    if m.old:
        said.append(f"dropped {_slots(m.old)} ({_specs(m.specs_old)})")
    if m.new:
        said.append(f"new {_slots(m.new)} ({_specs(m.specs_new)})")
    return Sentence(f"{{}} {m.dimension}: " + "; ".join(said), (m.platform, *m.old, *m.new))


def _leftover_line(word: str, specs: list[Spec]) -> Sentence | None:
    if not specs:
        return None
    configs = len({s.configuration() for s in specs})
    versions = sort_versions({_version(s) for s in specs})
    where = f"{configs} {word} configuration{'s' * (configs != 1)}"
    return Sentence(f"{_specs(len(specs))} in {where} ({_slots(versions)})", tuple(versions))


def _record(spec: Spec) -> dict[str, Any]:
    """A spec as plain data for deepdiff, without what is compared elsewhere."""
    entry = spec.as_entry()
    del entry["hash"], entry["stacks"]
    return entry


def describe_fields(before: Spec, after: Spec) -> tuple[Sentence, ...]:
    """What differs between two records of one hash, other than stacks, one line per difference.

    Only called for records already known to differ, so deepdiff (half a second to import)
    is loaded only when a report has such a spec.
    """
    from deepdiff import DeepDiff

    found = DeepDiff(_record(before), _record(after), ignore_order=True)
    lines = []
    for kind, items in found.tree.items():
        for item in items:
            path = ".".join(str(p) for p in item.path(output_format="list") if isinstance(p, str))
            if kind.endswith("_added"):
                lines.append(Sentence("{}: added {}", (path, str(item.t2))))
            elif kind.endswith("_removed"):
                lines.append(Sentence("{}: removed {}", (path, str(item.t1))))
            else:
                lines.append(Sentence("{}: {} → {}", (path, str(item.t1), str(item.t2))))
    return tuple(sorted(lines, key=Sentence.plain))


def _stack_lines(changed: list[SpecChange]) -> list[Sentence]:
    """Same-hash specs that joined or left stacks, counted per stack; other field changes."""
    joined = Counter(stack for change in changed for stack in change.stacks_added)
    left = Counter(stack for change in changed for stack in change.stacks_removed)
    lines = [Sentence(f"{_specs(n)} joined {{}}", (stack,)) for stack, n in sorted(joined.items())]
    lines += [Sentence(f"{_specs(n)} left {{}}", (stack,)) for stack, n in sorted(left.items())]
    for change in changed:
        for detail in change.details:
            lines.append(Sentence("spec {}: " + detail.words, (change.hash[:7], *detail.values)))
    return lines


def explain(
    removed: list[Spec],
    added: list[Spec],
    values: Callable[[], tuple[Values, Values]],
    configurations: Callable[[], set[Configuration]],
    changed: list[SpecChange],
    describe: bool = True,
) -> Explanation:
    """Classify every removed and added spec of one package into exactly one class.

    `values` gives, per platform and dimension (os, target, compiler), the values the package's
    specs have on each side, and `configurations` those of its new specs: both are computed only
    when needed (for leftovers, and for pairs). describe=False classifies without migrations
    or sentences, which a history of many commits does not show.
    """
    by_config: dict[Configuration, tuple[list[Spec], list[Spec]]] = defaultdict(lambda: ([], []))
    for spec in removed:
        by_config[spec.configuration()][0].append(spec)
    for spec in added:
        by_config[spec.configuration()][1].append(spec)
    pairs: list[Pair] = []
    gone: list[Spec] = []
    came: list[Spec] = []
    for config in sorted(by_config):
        found, left_removed, left_added = _pair_configuration(config, *by_config[config])
        pairs += found
        gone += left_removed
        came += left_added
    migrations = _migrations(*values(), gone, came) if describe and (gone or came) else []
    lines: list[Sentence] = []
    if describe:
        lines += _pair_lines(pairs, configurations)
        lines += [_migration_line(m) for m in migrations]
        lines += [
            line
            for line in (_leftover_line("new", came), _leftover_line("dropped", gone))
            if line is not None
        ]
        lines += _stack_lines(changed)
    return Explanation(
        tuple(sorted(pairs, key=lambda p: p.new)),
        tuple(sorted(s.hash for s in came)),
        tuple(sorted(s.hash for s in gone)),
        tuple(migrations),
        tuple(lines),
    )
