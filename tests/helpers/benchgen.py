"""The benchmark's own generators (bench/genindex.py, bench/gencat.py), SYNTHETIC data, run in
this process: the same files as `python bench/NAME.py ARGS`, without starting Python each time
(a start and the generator's imports cost about a third of a CPU-second: many tests generate)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import warnings
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).parents[2]
_LOADED: dict[str, ModuleType] = {}


def _module(name: str) -> ModuleType:
    if name not in _LOADED:
        path = ROOT / "bench" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _LOADED[name] = module
    return _LOADED[name]


def generate(name: str, *args: str, cwd: Path | None = None) -> str:
    """`python bench/NAME.py ARGS` in `cwd`, in this process: its standard output (its notes on
    standard error are dropped, as a test capturing the command's output must not see them; so
    are the warnings of the files it leaves to be closed, as a script may)."""
    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore", ResourceWarning)
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
        code = _module(name).main(list(args))
    assert code in (None, 0), f"bench/{name}.py {' '.join(args)}: exit {code}"
    return out.getvalue()
