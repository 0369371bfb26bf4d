"""Search over the index: ``ls``, ``find``, ``glob`` (metadata only) and ``grep`` (content).

Traversal never follows symlinks, as ``find`` and ripgrep do by default, so a link cycle cannot
loop and a tree is never reported twice. Glob patterns (``globs.py``) and grep's regular
expressions (``grep_pattern.py``) are matched by automata in linear time, never by backtracking:
patterns come from users and agents, and a hostile one must not block the worker.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core import paths
from ..core.cancel import aborted, checkpoint
from ..core.errors import FsError
from ..core.globs import compile_glob, has_magic
from ..core.grep_pattern import LineMatcher, compile_pattern
from ..core.node import Node
from .resolver import Resolver
from .tree import Tree

BINARY_SNIFF_BYTES = 8192
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024


@dataclass
class GrepResult:
    """What ``grep`` found: the matching lines, and the files it passed over (too large,
    binary)."""

    matches: list[dict] = field(default_factory=list)
    skipped_paths: list[str] = field(default_factory=list)
    skipped_binary_paths: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """The result as the JS API returns it."""
        return {"matches": self.matches, "skipped_paths": self.skipped_paths,
                "skipped_binary_paths": self.skipped_binary_paths}


class Search:
    """``ls``, ``find``, ``glob`` and ``grep`` over the tree (mounted folders included)."""

    def __init__(self, resolver: Resolver, tree: Tree) -> None:
        self.resolver = resolver
        self.tree = tree

    def ls(self, prefix: str = "/") -> list[str]:
        """Every non-directory at or under ``prefix`` (segment-aware); ``[]`` when it is missing."""
        try:
            node, canonical = self.resolver.lookup(prefix, "scandir", follow=False)
        except FsError as error:
            if error.code in ("ENOENT", "ENOTDIR"):
                return []
            raise
        if not node.is_dir:
            return [canonical]
        return [p for p, child in self.tree.descendants(node, canonical) if not child.is_dir]

    def find(self, directory: str = "/", pattern: str | None = None) -> list[dict]:
        """Entries below ``directory`` whose path relative to it matches ``pattern``."""
        node, canonical = self.resolver.lookup(directory, "scandir")
        if not node.is_dir:
            raise FsError.of("ENOTDIR", "scandir", directory)
        regex = compile_glob(pattern, "find") if pattern else None
        start = len(canonical.rstrip("/")) + 1
        return [{"path": p, "type": child.kind}
                for p, child in self.tree.descendants(node, canonical)
                if regex is None or regex.match(p[start:])]

    def glob(self, pattern: str) -> list[str]:
        """Absolute paths matching ``pattern`` (relative patterns are taken from ``/``)."""
        absolute = pattern if pattern.startswith("/") else "/" + pattern
        if not has_magic(absolute):
            return [paths.normalize(absolute)] if self.resolver.exists(absolute) else []
        base = paths.normalize(_static_prefix(absolute))
        try:
            node, _ = self.resolver.lookup(base, "scandir")
        except FsError:
            return []
        if not node.is_dir:
            return []
        # Results keep the pattern's own spelling of the base, even through a symlink.
        regex = compile_glob(absolute, "glob")
        return [p for p, _ in self.tree.descendants(node, base) if regex.match(p)]

    async def grep(self, pattern: str, path: str = "/", *, regex: bool = True,
                   ignore_case: bool = False, include: str | None = None,
                   max_results: int | None = None,
                   max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> GrepResult:
        """Lines matching ``pattern`` in the files at or under ``path``, in path order."""
        matcher = compile_pattern(pattern, regex=regex, ignore_case=ignore_case)
        result = GrepResult()
        try:
            candidates = self._grep_candidates(path, include)
        except FsError as error:  # cancelled between two directories of the listing
            if error.code == "ECANCELED":
                raise aborted("grep", "stopped while listing the files") from None
            raise
        for done, (file_path, node) in enumerate(candidates):
            # A safe point per file: a cancelled grep stops here, saying how far it got.
            await checkpoint("grep", done, len(candidates), "files")
            if max_results is not None and len(result.matches) >= max_results:
                break
            if node.size > max_file_size:
                result.skipped_paths.append(file_path)
                continue
            data = await self.tree.read(node)
            if b"\0" in data[:BINARY_SNIFF_BYTES]:
                result.skipped_binary_paths.append(file_path)
                continue
            _match_lines(file_path, data, matcher, result, max_results)
        return result

    def _grep_candidates(self, path: str, include: str | None) -> list[tuple[str, Node]]:
        node, canonical = self.resolver.lookup(path, "scandir")
        if not node.is_dir:
            return [(canonical, node)]
        start = len(canonical.rstrip("/")) + 1
        include_regex = compile_glob(include, "grep") if include else None
        found = []
        for file_path, child in self.tree.descendants(node, canonical, sizes=True):
            if child.kind != "file":
                continue
            subject = file_path[start:] if include and "/" in include else child.name
            if include_regex is None or include_regex.match(subject):
                found.append((file_path, child))
        return found


def _match_lines(path: str, data: bytes, matcher: LineMatcher, result: GrepResult,
                 max_results: int | None) -> None:
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        if matcher.match(line):
            result.matches.append({"path": path, "line": number, "text": line})
            if max_results is not None and len(result.matches) >= max_results:
                return


def _static_prefix(pattern: str) -> str:
    """The directory part of a pattern before its first wildcard segment."""
    segments = pattern.split("/")
    static = []
    for segment in segments[:-1]:
        if has_magic(segment):
            break
        static.append(segment)
    return "/".join(static) or "/"
