"""The shell's history commands as a terminal user sees them: log, snapshot, snapshots, diff
and restore, and that the shell's changes are made by ``shell``."""

from __future__ import annotations

import re

from shell_session import Session

ENTRY = re.compile(r"^(?P<rev>\d+)  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}  (?P<writer>\S+)  "
                   r"(?P<op>\S+)  (?P<paths>.+)$")


def entries(out: str) -> list[tuple[str, str, str]]:
    """(writer, operation, paths) of each line log printed, checking the line's shape."""
    found = []
    for line in out.splitlines():
        match = ENTRY.match(line)
        assert match, line
        found.append((match["writer"], match["op"], match["paths"]))
    return found


def test_log_shows_who_did_what_newest_first_and_filters():
    s = Session()
    s.ok("mkdir /d; echo hi > /d/a")
    s.runner.run(s.vfs.as_writer("agent:x").write_file("/d/b", "from x"))
    s.write("/u", "by the user")
    assert entries(s.ok("log")) == [
        ("user", "writeFile", "/u /"), ("agent:x", "writeFile", "/d/b /d"),
        ("shell", "writeFile", "/d/a"), ("shell", "mkdir", "/d /")]
    assert entries(s.ok("log -n 1")) == [("user", "writeFile", "/u /")]
    assert entries(s.ok("log --writer agent:x")) == [("agent:x", "writeFile", "/d/b /d")]
    assert [e[2] for e in entries(s.ok("cd /d; log --writer=shell a"))] == ["/d/a"]
    s.ok("echo x > '/e\x1b[2J'")
    assert entries(s.ok("log -n 1"))[0][2] == "'/e'$'\\033''[2J' /"  # made visible, not run


def test_log_refuses_what_it_does_not_understand():
    s = Session()
    for line in ("log -n", "log -n many", "log --since 2026", "log a b"):
        result = s(line)
        assert result.code == 2 and result.stdout == "" and result.stderr.startswith("log: "), \
            (line, result)


def test_snapshot_diff_and_restore_round_trip():
    s = Session()
    s.ok("mkdir /p; echo one > /p/keep; echo old > /p/notes; echo out > /q")
    assert re.fullmatch(r"before at revision \d+\n", s.ok("snapshot before"))
    assert s("snapshot before").code == 1
    assert re.fullmatch(r"before  \d+  \S+ \S+  shell\n", s.ok("snapshots"))
    s.ok("echo two > /p/keep; mv /p/notes /p/old; echo new > /p/added; rm /q")
    assert sorted(s.ok("diff before").splitlines()) == [
        "A\t/p/added", "D\t/q", "M\t/p/keep", "R\t/p/notes\t/p/old"]
    assert s.ok("diff before before") == ""
    assert s.ok("diff now before").count("\n") == 4
    out = s.ok("restore before /p")
    assert re.fullmatch(r"restored \d+ nodes at revision \d+\n", out)
    assert s.ok("ls /p") == "keep\nnotes\n" and s.text("/p/keep") == "one\n"
    assert s("cat /q").code == 1  # outside the path: left as it is
    assert entries(s.ok("log -n 1"))[0][:2] == ("shell", "restore")
    assert s("diff nowhere").code == 1 and s("restore").code == 2


def test_restore_by_revision_and_before_a_time():
    s = Session()
    s.ok("echo v1 > /f")
    revision = int(entries_rev(s.ok("log -n 1")))
    s.ok("echo v2 > /f")
    s.ok(f"restore --revision {revision}")
    assert s.text("/f") == "v1\n"
    assert s.ok(f"diff @{revision}") == ""
    s.ok("echo v3 > /f")
    s.ok("restore --before 2999-01-01")  # the last revision before then: now
    assert s.text("/f") == "v3\n"
    result = s("restore --revision 1 --before 2026-01-01")
    assert result.code == 2 and s.text("/f") == "v3\n"


def entries_rev(out: str) -> str:
    """The revision of log's first line."""
    match = ENTRY.match(out.splitlines()[0])
    assert match, out
    return match["rev"]
