"""Regenerate tests/unit/shell_text_cases.json: run each line of tests/unit/shell_text_lines.txt
with GNU bash and coreutils (LC_ALL=C, TZ=UTC) in a fresh directory holding the files the unit
test puts on its disk, and record stdout, stderr and status. Run it on a Linux machine with
bash, coreutils, grep, sed and diffutils; the test itself needs none of them.

    python tests/gen_shell_text_cases.py
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).parent / "unit"
# What the directory (and the test's disk) holds; the JSON file carries it to the test.
FILES = {
    "f.txt": "banana\napple\ncherry\napple\n10\n9\n",
    "g.txt": "one two\nthree\n",
    "ctx.txt": "1\n2\nx\n3\n4\n5\nx\n6\n7\n8\n9\nx\n",
    "bin.dat": "abc\0def\nxyz\n",
    "d/a.txt": "hello world\nfoo\nhello again\n",
    "d/sub/b.md": "nothing\n",
    "x1": "a\nb\nc\nd\n",
    "x2": "a\nB\nc\nd\ne\n",
    "x3": "a\n",
    "x4": "a",
}


def main() -> None:
    """Run every line and write the JSON file."""
    cases = []
    env = {"LC_ALL": "C", "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    for line in (HERE / "shell_text_lines.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        with tempfile.TemporaryDirectory() as folder:
            for name, content in FILES.items():
                Path(folder, name).parent.mkdir(parents=True, exist_ok=True)
                Path(folder, name).write_text(content, encoding="utf-8")
            done = subprocess.run(["bash", "-c", line], cwd=folder, env=env,
                                  capture_output=True, timeout=30, check=False)
        cases.append([line, done.stdout.decode("utf-8", "surrogateescape"),
                      done.stderr.decode("utf-8", "surrogateescape"), done.returncode])
    data = {"files": FILES, "cases": cases}
    (HERE / "shell_text_cases.json").write_text(json.dumps(data, indent=1) + "\n",
                                                encoding="utf-8")


if __name__ == "__main__":
    main()
