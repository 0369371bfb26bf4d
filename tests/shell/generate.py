"""Regenerate tests/shell/expected.json: what GNU bash and coreutils print for every case.

    python tests/shell/generate.py            # all cases (about a minute)
    python tests/shell/generate.py glob-01    # only these cases, the others kept as they are

For each case of ``cases.CASES`` this builds ``cases.TREE`` in a fresh temporary directory
named ``work`` (files, directories and the symlink, every mtime ``cases.MTIME``, modes 0644 and
0755), then runs ``bash --noprofile --norc -O globstar -c LINE`` there with standard input from
/dev/null, umask 022, and only these variables in the environment: ``HOME`` (the tree's root),
``PATH=/usr/bin:/bin``, ``TZ=UTC`` and ``LC_ALL=C`` (``C.UTF-8`` for the topics of
``cases.UTF8_TOPICS``). It records stdout, stderr (decoded as UTF-8, invalid bytes replaced, as
our shell's collected output is) and the exit status. The temporary directory's path is written
``cases.ROOT`` (``/work``) in both streams, so the VFS side runs at that path.

``-O globstar``: our shell's globs are ``vfs.glob``'s dialect, where ``**`` always matches
any number of directories; bash does so only with ``globstar`` set.

Needs GNU bash 5.2, coreutils 9.1, grep 3.8, sed 4.9, diffutils 3.8, findutils, jq 1.6, xxd,
Info-ZIP zip 3.0 and unzip, GNU tar, tree 2.1 and GNU awk 5.2, run as `awk` (plain, not
--posix) through a directory put first in PATH (Debian 12: `apt-get install jq xxd zip unzip
tree gawk`); the versions used are recorded in the file's ``tools``. The suite itself
(tests/unit/test_shell_conformance.py) runs without any of them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402  (the sibling module, found through the path set just above)

EXPECTED = HERE / "expected.json"
CASE_SECONDS = 20
VERSIONS = {
    "bash": ["bash", "--version"],
    "coreutils": ["ls", "--version"],
    "grep": ["grep", "--version"],
    "sed": ["sed", "--version"],
    "diffutils": ["diff", "--version"],
    "findutils": ["find", "--version"],
    "jq": ["jq", "--version"],
    "tar": ["tar", "--version"],
    "zip": ["zip", "-v"],
    "tree": ["tree", "--version"],
    "gawk": ["gawk", "--version"],
}


def build_tree(root: Path) -> None:
    """``cases.TREE`` under ``root`` with the fixed times and modes."""
    for rel, node in cases.TREE.items():
        path = root / rel
        if node is None:
            path.mkdir(mode=0o755)
        elif isinstance(node, tuple):
            path.symlink_to(node[1])
        else:
            path.write_bytes(node)
            path.chmod(0o644)
    # Directories last (writing into one changes its mtime), deepest first; the link itself too.
    for rel in sorted(cases.TREE, key=lambda r: -r.count("/")):
        os.utime(root / rel, (cases.MTIME, cases.MTIME), follow_symlinks=False)
    root.chmod(0o755)
    os.utime(root, (cases.MTIME, cases.MTIME))


def run_case(case: str) -> dict[str, object]:
    """Run the case's line with bash in a fresh tree; its stdout, stderr and status."""
    line = cases.CASES[case]
    utf8 = case.rsplit("-", 1)[0] in cases.UTF8_TOPICS
    with tempfile.TemporaryDirectory(prefix="pyvfs-conform-") as temp:
        root = Path(temp) / "work"
        root.mkdir()
        build_tree(root)
        # `awk` is GNU awk (Debian's /usr/bin/awk may be mawk): a directory of its own first.
        shim = Path(temp) / "bin"
        shim.mkdir()
        (shim / "awk").symlink_to(shutil.which("gawk") or "/usr/bin/gawk")
        env = {"HOME": str(root), "PATH": f"{shim}:/usr/bin:/bin",
               "LC_ALL": "C.UTF-8" if utf8 else "C", "TZ": "UTC"}
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-O", "globstar", "-c", line],
            cwd=root, env=env, stdin=subprocess.DEVNULL, capture_output=True,
            timeout=CASE_SECONDS, check=False)

    def text(data: bytes) -> str:
        return data.decode("utf-8", "replace").replace(str(root), cases.ROOT)

    return {"line": line, "stdout": text(proc.stdout), "stderr": text(proc.stderr),
            "status": proc.returncode}


def tool_versions() -> dict[str, str]:
    """The first line each tool prints about its version."""
    found = {}
    for name, argv in VERSIONS.items():
        out = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=10)
        lines = [line for line in (out.stdout or out.stderr).splitlines() if line.strip()]
        found[name] = lines[0].strip() if lines else "?"
    return found


def main(argv: list[str]) -> int:
    """Write expected.json for every case, or only for the case ids in ``argv``."""
    missing = [argv0[0] for argv0 in VERSIONS.values() if shutil.which(argv0[0]) is None]
    if missing:
        print(f"generate.py: missing tools: {' '.join(missing)}", file=sys.stderr)
        return 1
    unknown = [case for case in argv if case not in cases.CASES]
    if unknown:
        print(f"generate.py: no such case: {' '.join(unknown)}", file=sys.stderr)
        return 2
    os.umask(0o022)
    old = json.loads(EXPECTED.read_text()) if argv and EXPECTED.exists() else {"cases": {}}
    results = {case: entry for case, entry in old["cases"].items() if case in cases.CASES}
    for case in argv or list(cases.CASES):
        results[case] = run_case(case)
    document = {
        "generated_by": "tests/shell/generate.py",
        "root": cases.ROOT,
        "tools": tool_versions(),
        "cases": {case: results[case] for case in cases.CASES if case in results},
    }
    EXPECTED.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    print(f"generate.py: {len(document['cases'])} cases written to {EXPECTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
