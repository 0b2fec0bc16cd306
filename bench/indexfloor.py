#!/usr/bin/env python3
"""The floor of a build-cache index diff (a benchmark helper, not a test): issue 28's yardstick.

Usage: python bench/indexfloor.py OLD/index.json NEW/index.json

`json.loads` of both files, both kept, the garbage collector off, and no interpreter teardown
(`os._exit` once both are parsed: freeing ~40 M objects is not part of the floor). Standard
library only.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    gc.disable()
    kept = [json.loads(Path(name).read_bytes()) for name in argv[:2]]
    records = [len(index["database"]["installs"]) for index in kept]
    sys.stdout.write(" ".join(f"{count} records" for count in records) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
