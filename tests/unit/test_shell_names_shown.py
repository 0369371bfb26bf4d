"""No name reaches the terminal raw (issue 27, finding 6): every command is run here on a name
holding terminal control sequences, and nothing it prints holds them; names printed as data
(find, grep, wc, the checksums, readlink, realpath...) go through format.shown_name: as they
are when harmless, quoted as ls quotes them otherwise, to a terminal or a pipe alike, and raw
in null-separated outputs. Also: a redirection on a read-only mount (finding 12)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import run

from py_vfs import VFS
from py_vfs.shell import Shell
from py_vfs.shell.commands import COMMANDS
from py_vfs.shell.complete import complete
from py_vfs.shell.format import quote_arg

EVIL = "e\x1b]0;owned\x07\x1b[2Jvil"  # retitles the window, then clears the screen
SHOWN = quote_arg(EVIL)  # 'e'$'\033'']0;owned'$'\a'''$'\033''[2Jvil'
RAW = ("\x1b", "\x07")
P = f"/d/{EVIL}"  # a file holding "x\n"
MISSING = f"/d/nope-{EVIL}"

# A line per command that makes it print the name (or a missing one) on stdout or stderr.
LINES = {
    ".": f". '{MISSING}'",
    "[": f"[ '{EVIL}' -eq 1 ]",
    "alias": f"alias '{EVIL}'",
    "awk": f"awk 1 '{MISSING}'",
    "base64": f"base64 '{MISSING}'",
    "basename": f"basename '{MISSING}'",
    "break": f"for i in 1; do break '{EVIL}'; done",
    "cat": f"cat '{MISSING}'",
    "cd": f"cd '{MISSING}'",
    "chmod": f"chmod -v 644 '{P}'",
    "cmp": f"cmp '{P}' /d/other",
    "command": f"command -V '{EVIL}'",
    "commands": f"mkdir -p /workspace/bin && cp '{P}' /workspace/bin/'{EVIL}' && "
                f"chmod +x /workspace/bin/'{EVIL}' && commands",
    "continue": f"for i in 1; do continue '{EVIL}'; done",
    "cp": f"cp -v '{P}' /d/copy",
    "curl": f"curl -sS --data-binary @'{MISSING}' http://127.0.0.1:9/",
    "cut": f"cut -f1 '{MISSING}'",
    "date": f"date -r '{MISSING}'",
    "df": f"df '{EVIL}'",
    "diff": f"diff -q '{P}' /d/other",
    "dirname": f"dirname '{MISSING}'",
    "du": "du -a /d",
    "env": f"env '{MISSING}'",
    "eval": f"eval '{EVIL}'",
    "exit": f"(exit '{EVIL}')",
    "export": f"export '{EVIL}'",
    "find": "find /d",
    "fsck": f"fsck '{EVIL}'",
    "grep": "grep -r x /d",
    "head": f"head -v '{P}'",
    "help": f"help '{EVIL}'",
    "history": f"history '{EVIL}'",
    "import": f"import '{MISSING}'",
    "jq": f"jq . '{MISSING}'",
    "ln": f"ln -sv '{P}' /d/ln",
    "local": f"local '{EVIL}'",
    "log": f"log -n 1 '{P}'",
    "ls": "ls /d",
    "less": f"less '{MISSING}'",
    "man": f"man '{EVIL}'",
    "md5sum": f"md5sum '{P}'",
    "mkdir": f"mkdir -v /d/dir-'{EVIL}'",
    "more": f"more '{MISSING}' '{P}'",
    "mount": f"mount '{MISSING}'/m /nonexistent-host-dir",
    "mv": f"mv -v /d/copy /d/moved-'{EVIL}'",
    "open": f"open '{MISSING}'",
    "printenv": f"X='{EVIL}' printenv X",
    "printf": f"printf %d '{EVIL}'",
    "pwd": f"cd /d/dir-'{EVIL}'; pwd",
    "python": f"python '{MISSING}'",
    "read": f"read x < '{MISSING}'",
    "readlink": "readlink /d/link",
    "realpath": "realpath /d/link",
    "reset": f"reset '{EVIL}'",
    "restore": f"restore '{EVIL}'",
    "return": f"f() {{ return '{EVIL}'; }}; f",
    "rm": f"rm -v /d/moved-'{EVIL}'",
    "rmdir": f"rmdir -v /d/dir-'{EVIL}'",
    "scoop": "scoop a/b",
    "scoops": "scoops",
    "sed": f"sed p '{MISSING}'",
    "seq": f"seq '{EVIL}'",
    "serve": f"serve '{MISSING}'",
    "set": f"set -o '{EVIL}'",
    "sha256sum": f"sha256sum '{P}'",
    "shift": f"shift '{EVIL}'",
    "sleep": f"sleep '{EVIL}'",
    "snapshot": f"snapshot '{EVIL}'",
    "snapshots": f"snapshots '{EVIL}'",
    "sort": f"sort '{MISSING}'",
    "source": f"source '{MISSING}'",
    "sql": f"sql '{EVIL}'",
    "stat": f"stat '{P}'",
    "tail": f"tail -v '{P}'",
    "tar": f"tar -cvf /d/t.tar '{P}'",
    "tee": f"tee /d/nope-dir/'{EVIL}' < /dev/null",
    "test": f"test '{EVIL}' -eq 1",
    "touch": f"touch '{MISSING}'/x",
    "tr": f"tr '{EVIL}'",
    "tree": "tree /d",
    "type": f"type '{EVIL}'",
    "umount": f"umount '{MISSING}'",
    "unalias": f"unalias '{EVIL}'",
    "uniq": f"uniq '{MISSING}'",
    "unset": f"unset -z '{EVIL}'",
    "unzip": f"unzip '{MISSING}'",
    "wc": f"wc '{P}'",
    "which": f"which -a /d/'{EVIL}'",
    "xargs": f"printf '%s\\0' '{P}' | xargs -0 -t true",
    "xxd": f"xxd '{MISSING}'",
    "yes": f"yes '{EVIL}' | head -c 0; echo $?",
    "zip": f"zip /d/z.zip '{P}'",
    "sh": f"sh '{MISSING}'",
    "bash": f"bash -c 'echo $0' '{EVIL}' 2>&1 > /dev/null; bash '{MISSING}'",
    "timeout": f"timeout 1 '{EVIL}'; timeout '{EVIL}' true",
    "wget": f"wget --post-file '{MISSING}' http://127.0.0.1:9/",
    "trap": f"trap x '{EVIL}'",
    "column": f"column '{MISSING}'",
    "comm": f"comm '{MISSING}' /d/other",
    "expr": f"expr '{EVIL}' : '\\(x'",
    "file": f"file '{P}' '{MISSING}'",
    "fold": f"fold '{MISSING}'",
    "gunzip": f"gunzip '{P}'",
    "git": f"git init -q /d/repo && cp '{P}' /d/repo/ && cd /d/repo && git status && "
           f"git add . && git status -s && git commit -qm x && git diff --stat HEAD HEAD",
    "gzip": f"gzip -c '{MISSING}' '{P}' | gzip -l; gzip -t '{P}'",
    "join": f"join '{MISSING}' /d/other",
    "mktemp": f"mktemp -p /d '{EVIL}XXX'",
    "nl": f"nl '{MISSING}'",
    "od": f"od '{MISSING}'",
    "paste": f"paste '{MISSING}'",
    "rev": f"rev '{MISSING}'",
    "sha1sum": f"sha1sum '{P}'",
    "sha512sum": f"sha512sum '{MISSING}'",
    "split": f"split '{MISSING}'",
    "strings": f"strings '{MISSING}'",
    "tac": f"tac '{MISSING}'",
    "truncate": f"truncate -s 1 '{MISSING}'/x",
    "unlink": f"unlink '{MISSING}'",
    "zcat": f"zcat '{P}'",
    # They print only their arguments, or nothing: no name of the disk.
    "hostname": None, "whoami": None,
    "echo": None, "true": None, "false": None, ":": None, "clear": None,
}

# Commands whose output is data (their arguments, their input, a file's bytes), printed
# unchanged as a real terminal shows it (docs/shell.md): their error messages are checked
# above, what they print as data is not escaped.
DATA = {"echo", "printf", "cat", "base64", "xxd", "sed", "tr", "cut", "sort", "uniq", "jq", "tee",
        "seq", "yes", "env", "printenv", "basename", "dirname", "python", "sql", "eval", "date"}


@pytest.fixture
def shell(tmp_path) -> Shell:
    vfs = VFS.memory()
    run(vfs.write_file(P, "x\n"))
    run(vfs.write_file("/d/other", "y\n"))
    run(vfs.symlink(P, "/d/link"))
    run(vfs.mkdir(f"/scoops/{EVIL}", recursive=True))
    return Shell(vfs, host_mounts=True)


def test_every_command_is_walked():
    assert set(LINES) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(name for name, line in LINES.items() if line))
def test_no_command_prints_a_control_character_of_a_name(shell, command):
    for line in ("mkdir /d/dir-" + EVIL, "cp /d/other /d/copy"):
        run(shell.run(line))
    result = run(shell.run(LINES[command]))
    shown = result.stdout + result.stderr
    assert shown.strip(), result
    if command in DATA and not result.stderr:
        return  # it printed data, as asked
    assert not any(char in shown for char in RAW), shown


@pytest.mark.parametrize(("line", "out"), [
    ("find /d -name 'e*'", f"{quote_arg(P)}\n"),
    ("grep -l x /d/*", f"{quote_arg(P)}\n/d/link\n"),
    ("grep -H x /d/e*", f"{quote_arg(P)}:x\n"),
    ("wc -l /d/e*", f"1 {quote_arg(P)}\n"),
    ("readlink /d/link", f"{quote_arg(P)}\n"),
    ("realpath /d/link", f"{quote_arg(P)}\n"),
    ("scoops", f"{SHOWN}\n"),
    ("find /d -name 'e*' | cat", f"{quote_arg(P)}\n"),  # a pipe too
    # Harmless names print as GNU prints them, spaces and quotes included.
    ("cd /d; touch \"a b\" \"it's\"; find . -name 'a*' -o -name 'i*' | sort", "./a b\n./it's\n"),
])
def test_names_printed_as_data_are_quoted_only_when_they_hold_control_characters(shell, line,
                                                                                 out):
    result = run(shell.run(line))
    assert (result.stdout, result.stderr) == (out, "")


def test_null_separated_outputs_stay_raw_for_programs(shell):
    assert run(shell.run("find /d -name 'e*' -print0")).stdout == P + "\0"
    assert run(shell.run("realpath -z /d/link")).stdout == P + "\0"
    assert run(shell.run("readlink -z /d/link")).stdout == P + "\0"
    # find -print0 | xargs -0 reaches the file itself.
    result = run(shell.run("find /d -name 'e*' -print0 | xargs -0 cat"))
    assert (result.stdout, result.stderr) == ("x\n", "")


def test_checksums_quote_such_a_name_and_keep_gnus_backslash_escape():
    shell = Shell(VFS.memory())
    run(shell.vfs.write_file("/a\\b", ""))
    run(shell.vfs.write_file(P, ""))
    out = run(shell.run("cd / && sha256sum 'a\\b' d/*")).stdout.splitlines()
    empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert out == [f"\\{empty}  a\\\\b", f"{empty}  {quote_arg(P[1:])}"]


def test_tab_completion_shows_and_inserts_such_a_name_visibly(shell):
    for line, inserted in (("cat /d/e", "/d/e$'\\033'\\]0\\;owned$'\\007'$'\\033'\\[2Jvil "),
                           ("cat '/d/e", "'/d/e'$'\\033'']0;owned'$'\\007'''$'\\033''[2Jvil' ")):
        found = complete(shell, line, len(line))
        assert found.names == [SHOWN]
        assert found.candidates == [inserted]
        assert not any(char in inserted for char in RAW)
        # What Tab inserts is shell text that names the file.
        assert run(shell.run("cat " + inserted)).stdout == "x\n"


@pytest.mark.skipif(sys.platform == "emscripten", reason="Emscripten (Pyodide) has no processes")
def test_the_cpython_prompt_shows_the_cwd_visibly(tmp_path):
    typed = "mkdir \"/e$(printf '\\033[2J')x\" && cd /e*\npwd\n"
    shell = [sys.executable, "-m", "py_vfs", "shell", "--disk", str(tmp_path / "p.db")]
    done = subprocess.run(shell, input=typed, capture_output=True, text=True, timeout=60)
    assert "py_vfs:'/e'$'\\033''[2Jx'$ " in done.stdout, done
    assert "\x1b" not in done.stdout + done.stderr


# --- finding 12: a redirection the disk refuses ------------------------------------------


def test_a_redirection_to_a_read_only_mount_fails_as_open_would(tmp_path):
    shell = Shell(VFS.memory(), host_mounts=True)
    run(shell.run(f"mkdir /m && mount --read-only /m {tmp_path}"))
    for line in ("echo x > /m/f", "echo x >> /m/f", "echo x 2> /m/f"):
        result = run(shell.run(line + "; echo next"))
        assert (result.stdout, result.stderr) == ("next\n",
                                                  "sh: /m/f: Read-only file system\n"), line
    assert not (tmp_path / "f").exists()


def test_a_redirection_outside_a_scoop_fails_as_open_would():
    shell = Shell(VFS.memory())
    run(shell.run("scoop a"))
    result = run(shell.run("echo x > /elsewhere; echo $?"))
    assert result.stdout == "1\n"
    assert result.stderr.startswith("sh: /elsewhere: Permission denied (")
