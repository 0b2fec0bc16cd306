"""The CI recipes in docs/: they parse and use only real options."""

from __future__ import annotations

import re
import shlex

import pytest
import yaml
from clirun import ROOT

from snapdiff.options import parser


@pytest.mark.parametrize("recipe", ["github-actions.yml", "gitlab-ci.yml"])
def test_ci_recipes_parse_and_use_real_options(recipe: str) -> None:
    text = (ROOT / "docs" / recipe).read_text()
    assert yaml.safe_load(text)
    options = {o for a in parser()._actions for o in a.option_strings}
    used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", text))
    assert {"--for", "--full-report", "--fail-on", "--output"} <= used
    assert used <= options | {"--header", "--data"}  # curl's own, in the GitLab recipe
    commands = [line for line in text.splitlines() if line.strip().startswith("snapdiff ")]
    assert commands and all(shlex.split(c.replace("\\", ""))[0] == "snapdiff" for c in commands)
