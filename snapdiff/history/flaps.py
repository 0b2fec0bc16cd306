"""Flapping specs: hashes a range removed and later added again, held compactly."""

from __future__ import annotations

from collections import defaultdict

from .records import Flap, Moved

__all__ = ["Flaps"]


class Flaps:
    """Hashes removed and later added again, with the commits of each. Every hash a step removes
    is remembered, so compactly (`Removed`): a year of daily commits removes millions. Most
    hashes a range adds are new, and are not followed."""

    def __init__(self) -> None:
        self.commits: list[str] = []  # the steps' commits, in order
        self.left: dict[str, Removed] = {}  # tag -> hashes removed, with the steps removing them
        self.returned: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.owner: dict[tuple[str, str], str] = {}  # of a hash that came back: its package

    def step(self, package: Moved, commit: str) -> None:
        if not self.commits or self.commits[-1] != commit:
            self.commits.append(commit)
        index, tag, name = len(self.commits) - 1, package.tag, package.name
        left = self.left.setdefault(tag, Removed())
        for digest in package.specs_removed:
            left.add(digest, index)
            if (tag, digest) in self.returned:
                self.owner[(tag, digest)] = name
        for digest in package.specs_added:
            if left.steps(digest):
                self.returned[(tag, digest)].append(commit)
                self.owner[(tag, digest)] = name

    def found(self) -> tuple[Flap, ...]:
        flaps = []
        for (tag, digest), back in sorted(self.returned.items()):
            left = tuple(self.commits[i] for i in self.left[tag].steps(digest))
            flaps.append(Flap(tag, digest, self.owner[(tag, digest)], left, tuple(back)))
        return tuple(flaps)


_HASH_BYTES = 32  # a Spack hash: 32 base32 characters
_RECORD = _HASH_BYTES + 4  # and the index of a step removing it


class Removed:
    """Hashes removed from one tag, each with the index of every step that removed it, in order.

    A hash of 32 ASCII characters (as Spack's are) is a record of 36 bytes, its characters and
    the step's index, appended to a bucket (a bytearray) by its first two characters: about 40
    bytes a hash, where a string keyed in a dictionary takes about 130. Any other hash is kept
    as a string in a dictionary.
    """

    def __init__(self) -> None:
        self.buckets: dict[str, bytearray] = {}
        self.other: dict[str, list[int]] = {}

    def add(self, digest: str, index: int) -> None:
        if len(digest) != _HASH_BYTES or not digest.isascii():
            self.other.setdefault(digest, []).append(index)
            return
        bucket = self.buckets.setdefault(digest[:2], bytearray())
        bucket += digest.encode()
        bucket += index.to_bytes(4, "big")

    def steps(self, digest: str) -> list[int]:
        """The indices of the steps that removed the hash, in order (none: never removed)."""
        if len(digest) != _HASH_BYTES or not digest.isascii():
            return self.other.get(digest, [])
        bucket = self.buckets.get(digest[:2])
        if bucket is None:
            return []
        found, wanted = [], digest.encode()
        at = bucket.find(wanted)
        while at != -1:
            if at % _RECORD:  # across two records: not this hash
                at = bucket.find(wanted, at + 1)
                continue
            found.append(int.from_bytes(bucket[at + _HASH_BYTES : at + _RECORD], "big"))
            at = bucket.find(wanted, at + _RECORD)
        return found
