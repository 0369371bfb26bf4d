"""Skills' scripts as commands (py_vfs/shell/skills.py): where they are found, what a name runs
when several things answer it (`type -a`, `command -v`, `which`), `commands`, Tab completion,
the bounds of the lookup, and scripts a scoop could write (docs/shell.md, "Scripts")."""

from __future__ import annotations

import pytest
from helpers import run
from shell_session import outcome as sh

from py_vfs import VFS
from py_vfs.shell import Shell, skills
from py_vfs.shell.complete import complete

SKILL = "---\nname: {name}\ndescription: an example\n---\n\n# {name}\n"
PRINTS = "import sys\nprint({text!r}, sys.argv[1:])\n"


def write(vfs: VFS, path: str, text: str, mode: int | None = None) -> None:
    run(vfs.write_file(path, text))
    if mode is not None:
        run(vfs.chmod(path, mode))


def skill(vfs: VFS, folder: str, name: str, **scripts: str) -> None:
    """A skill ``name`` in the skills folder ``folder``, with ``scripts`` (file name -> text;
    ``__`` in a name stands for ``/``)."""
    write(vfs, f"{folder}/{name}/SKILL.md", SKILL.format(name=name))
    for file, text in scripts.items():
        write(vfs, f"{folder}/{name}/{file.replace('__', '/')}", text)


@pytest.fixture
def shell() -> Shell:
    vfs = VFS.memory()
    run(vfs.mkdir("/workspace/bin", recursive=True))
    skill(vfs, "/workspace/skills", "notes", **{"tool.py": PRINTS.format(text="notes tool"),
                                                "scripts__fetch.py": PRINTS.format(text="fetch"),
                                                "README.md": "not a command\n"})
    return Shell(vfs)


def test_a_skills_script_runs_by_its_name_without_extension_and_x_bit(shell):
    assert sh(shell, "tool a 'b c'") == ("notes tool ['a', 'b c']\n", "", 0)
    assert sh(shell, "fetch") == ("fetch []\n", "", 0)  # from the skill's scripts/
    assert sh(shell, "echo x | tool | cat") == ("notes tool []\n", "", 0)
    # Other files of the skill are not commands.
    assert sh(shell, "README")[2] == 127
    assert sh(shell, "SKILL")[2] == 127


def test_a_folder_without_skill_md_is_not_a_skill(shell):
    write(shell.vfs, "/workspace/skills/loose/tool2.py", PRINTS.format(text="loose"))
    assert sh(shell, "tool2") == ("", "sh: tool2: command not found\n", 127)
    write(shell.vfs, "/workspace/skills/loose/SKILL.md", "---\nname: loose\n---\n")
    assert sh(shell, "tool2") == ("loose []\n", "", 0)


def test_which_type_and_command_v_name_the_skills_script(shell):
    path = "/workspace/skills/notes/tool.py"
    assert sh(shell, "which tool") == (f"{path}\n", "", 0)
    assert sh(shell, "type tool") == (f"tool is {path}\n", "", 0)
    assert sh(shell, "type -t tool") == ("file\n", "", 0)
    assert sh(shell, "command -v tool") == (f"{path}\n", "", 0)
    assert sh(shell, "command -V tool") == (f"tool is {path}\n", "", 0)


def test_precedence_builtin_function_path_then_skills(shell):
    vfs = shell.vfs
    skill(vfs, "/workspace/skills", "other", **{"cat.py": PRINTS.format(text="skill cat"),
                                                "tool.jsh": "console.log(1)\n"})
    write(vfs, "/workspace/bin/tool.py", PRINTS.format(text="path tool"), 0o755)
    # A builtin shadows a skill's script; a $PATH script comes before the skills'.
    assert sh(shell, "cat /workspace/skills/other/SKILL.md | head -2") == (
        "---\nname: other\n", "", 0)
    assert sh(shell, "tool") == ("path tool []\n", "", 0)
    assert sh(shell, "which -a tool cat") == (
        "/workspace/bin/tool.py\n/workspace/skills/notes/tool.py\n"
        "/workspace/skills/other/tool.jsh\n"
        "cat: shell built-in command\n/workspace/skills/other/cat.py\n", "", 0)
    # A function comes before all of them; `command` skips it; type -a lists the order.
    sh(shell, "tool() { echo function; }")
    assert sh(shell, "tool; command tool") == ("function\npath tool []\n", "", 0)
    assert sh(shell, "type -a tool") == (
        "tool is a function\ntool is /workspace/bin/tool.py\n"
        "tool is /workspace/skills/notes/tool.py\ntool is /workspace/skills/other/tool.jsh\n",
        "", 0)
    assert sh(shell, "type -P tool") == ("/workspace/bin/tool.py\n", "", 0)
    assert sh(shell, "type -p tool; echo $?") == ("0\n", "", 0)  # a function runs first
    assert sh(shell, "type -f tool") == ("tool is /workspace/bin/tool.py\n", "", 0)
    assert sh(shell, "type -P cat") == ("/workspace/skills/other/cat.py\n", "", 0)


def test_project_skills_in_the_cwd_and_its_parents_come_first(shell):
    vfs = shell.vfs
    for folder in ("/proj/.claude/skills", "/proj/sub/.agents/skills", "/workspace/.claude/skills"):
        skill(vfs, folder, "s", **{"tool.py": PRINTS.format(text=folder)})
    run(vfs.mkdir("/proj/sub/deeper", recursive=True))
    assert sh(shell, "cd /proj/sub/deeper && which -a tool") == (
        "/proj/sub/.agents/skills/s/tool.py\n/proj/.claude/skills/s/tool.py\n"
        "/workspace/.claude/skills/s/tool.py\n/workspace/skills/notes/tool.py\n", "", 0)
    assert sh(shell, "tool") == ("/proj/sub/.agents/skills []\n", "", 0)
    # Elsewhere, only $HOME's (/workspace) and the workspace's.
    assert sh(shell, "cd /; tool") == ("/workspace/.claude/skills []\n", "", 0)
    # Among skills of one folder: by the skill's name; a skill's own files before scripts/.
    skill(vfs, "/workspace/skills", "a-first", **{"scripts__tool.py": PRINTS.format(text="a")})
    assert sh(shell, "cd /workspace/skills && tool") == ("/workspace/.claude/skills []\n", "", 0)
    assert sh(shell, "cd /tmp 2>/dev/null; which -a tool | tail -2") == (
        "/workspace/skills/a-first/scripts/tool.py\n/workspace/skills/notes/tool.py\n", "", 0)


def test_files_with_an_x_bit_or_a_script_extension_are_commands(shell):
    vfs = shell.vfs
    skill(vfs, "/workspace/skills", "kinds", **{"run.sh": "echo sh\n", "data.json": "{}\n",
                                                "tool.v2.py": PRINTS.format(text="v2")})
    write(vfs, "/workspace/skills/kinds/noext", "#!/usr/bin/env python3\nprint('noext')\n",
          0o755)
    assert sh(shell, "noext") == ("noext\n", "", 0)
    assert sh(shell, "tool.v2") == ("v2 []\n", "", 0)
    assert sh(shell, "which run") == ("/workspace/skills/kinds/run.sh\n", "", 0)
    assert sh(shell, "which data; echo $?") == ("1\n", "", 0)
    # A file is found but what runs it is the #! line (a .sh without one cannot run yet).
    assert sh(shell, "run")[2] == 126


def test_commands_lists_every_command_sorted_with_its_origin(shell):
    vfs = shell.vfs
    write(vfs, "/workspace/bin/upper.py", "print('u')\n", 0o755)
    write(vfs, "/workspace/bin/tool", "#!/usr/bin/env python3\n", 0o755)
    write(vfs, "/workspace/bin/notes.txt", "not a command\n")  # no x bit: not listed
    sh(shell, "alias ll='ls -l'; greet() { echo hi; }")
    out, err, code = sh(shell, "commands")
    assert (err, code) == ("", 0)
    lines = out.splitlines()
    names = [line.split()[0] for line in lines]
    assert names == sorted(names) and len(names) == len(set(names))
    table = {line.split()[0]: line.split(None, 1)[1] for line in lines}
    assert table["cat"] == "builtin"
    assert table["ll"] == "alias: ls -l"
    assert table["greet"] == "function"
    assert table["upper"] == "$PATH /workspace/bin: /workspace/bin/upper.py"
    assert table["tool"] == "$PATH /workspace/bin: /workspace/bin/tool"
    assert table["fetch"] == "skill notes: /workspace/skills/notes/scripts/fetch.py"
    assert "commands" in table and "which" in table
    assert "notes.txt" not in table and "README" not in table
    # -a: what each name shadows too; -q: the names alone.
    shadowed = [line.split() for line in sh(shell, "commands -a")[0].splitlines()
                if "shadowed" in line]
    assert shadowed == [["tool", "skill", "notes:", "/workspace/skills/notes/tool.py",
                         "(shadowed)"]]
    assert sh(shell, "commands -q")[0] == "".join(f"{name}\n" for name in names)
    assert sh(shell, "commands x") == ("", "commands: extra operand x\n", 2)


def test_tab_completion_offers_skills_scripts(shell):
    assert complete(shell, "fet", 3).candidates == ["fetch "]
    assert "tool " in complete(shell, "to", 2).candidates


def test_command_runs_builtins_and_scripts_and_reports_as_bash(shell):
    assert sh(shell, "command echo hi") == ("hi\n", "", 0)
    assert sh(shell, "command; echo $?") == ("0\n", "", 0)
    assert sh(shell, "f() { echo fn; }; command f") == ("", "sh: f: command not found\n", 127)
    assert sh(shell, "command -v cd nosuch if; echo $?") == ("cd\nif\n0\n", "", 0)
    assert sh(shell, "command -v nosuch; echo $?") == ("1\n", "", 0)
    assert sh(shell, "alias ll=\"ls -l 'x'\"; command -v ll") == (
        "alias ll='ls -l '\\''x'\\'''\n", "", 0)
    assert sh(shell, "command -V nosuch") == ("", "sh: command: nosuch: not found\n", 1)
    assert sh(shell, "command -vV cd; command -Vv cd") == ("cd is a shell builtin\ncd\n", "", 0)
    assert sh(shell, "command -x") == (
        "", "sh: command: -x: invalid option\n"
        "command: usage: command [-pVv] command [arg ...]\n", 2)
    # -p: the default $PATH, whatever $PATH holds.
    assert sh(shell, "PATH=/nowhere; command -v tool; command -pv tool") == (
        "/workspace/skills/notes/tool.py\n/workspace/skills/notes/tool.py\n", "", 0)
    # A path, as typed, when the file can run (as a path, a .py needs its x bit).
    assert sh(shell, "cd /workspace; command -v ./skills/notes/tool.py; echo $?") == (
        "1\n", "", 0)
    assert sh(shell, "chmod +x skills/notes/tool.py; command -v ./skills/notes/tool.py") == (
        "./skills/notes/tool.py\n", "", 0)


def test_the_lookup_is_bounded(shell, monkeypatch):
    vfs = shell.vfs
    for number in range(5):
        skill(vfs, "/workspace/skills", f"s{number}", **{f"t{number}.py": "print(1)\n"})
    monkeypatch.setattr(skills, "MAX_SKILLS", 3)  # notes, s0, s1 are read; s2.. are not
    assert sh(shell, "which t1; which t2; echo $?") == (
        "/workspace/skills/s1/t1.py\n1\n", "", 0)
    monkeypatch.setattr(skills, "MAX_SKILLS", 256)
    skill(vfs, "/workspace/skills", "many", **{f"f{n:02d}.py": "" for n in range(10)})
    monkeypatch.setattr(skills, "MAX_ENTRIES", 3)  # f00, f01, f02 (SKILL.md is no file's)
    assert sh(shell, "which f02; which f03; echo $?") == (
        "/workspace/skills/many/f02.py\n1\n", "", 0)
    monkeypatch.setattr(skills, "MAX_ENTRIES", 256)
    # And all in all: skills are read by name (many, notes, s0..s4), each counting one.
    monkeypatch.setattr(skills, "MAX_READ", 1 + 10 + 1 + 3)  # many + 10 files, notes + 3
    assert sh(shell, "which f09 fetch; which t0; echo $?") == (
        "/workspace/skills/many/f09.py\n/workspace/skills/notes/scripts/fetch.py\n1\n", "", 0)
    monkeypatch.setattr(skills, "MAX_READ", 4096)
    # The parents looked at: at most MAX_PARENTS levels up.
    deep = "/d/" + "/".join("x" * 5)
    run(vfs.mkdir(deep, recursive=True))
    skill(vfs, "/d/.claude/skills", "far", **{"far.py": "print('far')\n"})
    assert sh(shell, f"cd {deep} && far") == ("far\n", "", 0)
    monkeypatch.setattr(skills, "MAX_PARENTS", 3)
    assert sh(shell, "far")[2] == 127
    # What a lookup reads: the skills folders that exist and their skills, nothing else.
    calls: list[str] = []
    readdir = vfs.readdir

    def counting(path: str, *args, **kwargs):
        calls.append(path)
        return readdir(path, *args, **kwargs)

    monkeypatch.setattr(vfs, "readdir", counting)
    assert sh(shell, "cd /; nosuch")[2] == 127
    assert not any(path.startswith(("/d", "/proj")) for path in calls)
    assert all("skills" in path or path.startswith("/workspace/bin") for path in calls), calls


def test_the_cone_skips_skills_a_scoop_could_write(shell):
    vfs = shell.vfs
    skill(vfs, "/shared/proj/.claude/skills", "evil", **{"planted.py": "print('owned')\n"})
    out, err, code = sh(shell, "cd /shared/proj && planted")
    assert (out, code) == ("", 127)
    assert err == ("sh: planted: command not found (/shared/proj/.claude/skills/evil/planted.py"
                   " not run from the whole disk: a scoop can write it)\n")
    assert "planted" not in sh(shell, "commands -q")[0]
    assert complete(shell, "plan", 4).candidates == []
    # Inside a scoop, its own skills are found (and run in its realm, with its rights).
    assert sh(shell, "scoop a")[2] == 0
    skill(vfs, "/scoops/a/workspace/.agents/skills", "mine", **{"mine.py": "print('mine')\n"})
    assert sh(shell, "which mine") == (
        "/scoops/a/workspace/.agents/skills/mine/mine.py\n", "", 0)
    sh(shell, "exit")
