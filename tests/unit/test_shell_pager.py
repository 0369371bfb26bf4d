"""`less` and `more` (py_vfs/shell/commands/pager.py) on CPython: the pass-through into a pipe,
and the pager on a terminal driven by scripted keys through the web shell call (its ``read``
asked in raw mode), with what each screen shows, the escaping of control characters and the
bounded reading of an endless input."""

from __future__ import annotations

import pytest
from helpers import run

from py_vfs.shell.commands.pager import split_keys
from py_vfs.shell.commands.pager_text import shown_rows
from py_vfs.web.webapi import WebAPI

ROWS, COLS = 5, 20


@pytest.fixture
def vfs(vfs):
    run(vfs.mkdir("/workspace"))
    numbers = "".join(f"line {n}\n" for n in range(1, 31))
    run(vfs.write_file("/workspace/n.txt", numbers))
    return vfs


class Keys:
    """A terminal for one call: the keys to type, in turn; what the screen showed when each
    was asked for; whether each read asked for raw input."""

    def __init__(self, *keys: str | None) -> None:
        self.keys = list(keys)
        self.output = bytearray()
        self.frames: list[list[str]] = []
        self.raw: list[bool] = []

    def emit(self, stream: str, data: bytes) -> None:
        self.output += data

    async def read(self, raw: bool = False) -> bytes | None:
        self.raw.append(raw)
        self.frames.append(self.screen())
        if not self.keys:
            return None
        key = self.keys.pop(0)
        return None if key is None else key.encode()

    def screen(self) -> list[str]:
        """The last frame drawn: the rows after the last cursor-home, without the clears."""
        text = self.output.decode("utf-8", "replace").rpartition("\x1b[H")[2]
        return text.replace("\x1b[K", "").split("\r\n")


def page(vfs, line: str, keys: Keys, **options) -> dict:
    api = WebAPI(vfs)
    return run(api.shell_ops.run(line, {"isatty": True, "rows": ROWS, "cols": COLS, **options},
                                 keys.emit, keys.read), bound=30)


# --- into a pipe or a file: unchanged ----------------------------------------------------------


def test_into_a_pipe_less_passes_files_and_stdin_through(sh):
    sh.write("/a", "one\n\x1b[2J\n")
    sh.write("/b", "two")
    assert sh.ok("less /a /b") == "one\n\x1b[2J\ntwo"
    assert sh.ok("printf 'x\\ny\\n' | less | wc -l").strip() == "2"
    assert sh.ok("printf 'x\\n' | more - /b") == "x\n::::::::::::::\n/b\n::::::::::::::\ntwo"
    assert sh.ok("more /b") == "::::::::::::::\n/b\n::::::::::::::\ntwo"
    assert sh.ok("more < /b") == "two"


def test_into_a_pipe_a_missing_file_is_reported_and_the_rest_printed(sh):
    sh.write("/b", "two\n")
    result = sh("less /none /b")
    assert (result.stdout, result.code) == ("two\n", 1)
    assert result.stderr == "less: /none: No such file or directory\n"


def test_yes_into_less_into_head_ends(sh):
    assert sh.ok("yes | less | head -2") == "y\ny\n"


def test_a_terminal_without_keys_passes_through(vfs):
    api = WebAPI(vfs)
    result = run(api.shell_ops.run("less /workspace/n.txt", {"isatty": True}))
    assert result["stdout"].startswith("line 1\nline 2\n") and result["code"] == 0


# --- on the terminal -------------------------------------------------------------------------


def test_the_first_page_then_space_then_q(vfs):
    keys = Keys(" ", "q")
    result = page(vfs, "less /workspace/n.txt", keys)
    assert result["code"] == 0 and all(keys.raw)
    first, second = keys.frames[0], keys.frames[1]
    assert first == ["line 1", "line 2", "line 3", "line 4",
                     "\x1b[7m/workspace/n.txt\x1b[27m"]
    assert second == ["line 5", "line 6", "line 7", "line 8", ":"]
    out = keys.output.decode()
    assert out.startswith("\x1b[?1049h") and out.endswith("\x1b[?1049l")


def test_moving_by_lines_pages_and_to_both_ends(vfs):
    keys = Keys("j", "\x1b[B", "k", "\x1b[6~", "b", "G", "\x1b[A", "g", "\x1b[5~", "q")
    page(vfs, "less /workspace/n.txt", keys)
    tops = [frame[0] for frame in keys.frames]
    assert tops == ["line 1", "line 2", "line 3", "line 2", "line 6", "line 2", "line 27",
                    "line 26", "line 1", "line 1"]
    assert keys.frames[6][-1] == "\x1b[7m(END)\x1b[27m"


def test_space_at_the_end_stays_on_the_last_page(vfs):
    keys = Keys(*" " * 12, "q")
    page(vfs, "less /workspace/n.txt", keys)
    assert keys.frames[-1][:4] == ["line 27", "line 28", "line 29", "line 30"]


def test_a_short_text_ends_with_tildes_and_end(vfs):
    keys = Keys("q")
    page(vfs, "printf 'a\\nb\\n' | less", keys)
    assert keys.frames[0] == ["a", "b", "~", "~", "\x1b[7m(END)\x1b[27m"]


def test_search_forward_next_previous_and_not_found(vfs):
    keys = Keys("/", "e", " ", "1", "\r", "n", "N", "/", "z", "z", "\r", "/", "(", "\r", "q")
    page(vfs, "less /workspace/n.txt", keys)
    tops = [frame[0] for frame in keys.frames]
    assert tops[5] == "line 10"  # /e 1 from line 1: line 10
    assert tops[6] == "line 11"  # n
    assert tops[7] == "line 10"  # N
    assert keys.frames[11][-1] == "\x1b[7mPattern not found\x1b[27m"
    assert keys.frames[14][-1] == "\x1b[7mInvalid pattern\x1b[27m"


def test_keys_typed_together_are_each_handled(vfs):
    keys = Keys("jj\x1b[Bq")
    page(vfs, "less /workspace/n.txt", keys)
    assert len(keys.frames) == 1 and keys.output.decode().count("\x1b[H") == 4


def test_ctrl_c_and_the_end_of_the_input_quit(vfs):
    keys = Keys("\x03")
    assert page(vfs, "less /workspace/n.txt; echo after", keys)["code"] == 0
    assert keys.output.decode().endswith("\x1b[?1049lafter\n")
    keys = Keys(None)
    page(vfs, "less /workspace/n.txt", keys)
    assert keys.output.decode().endswith("\x1b[?1049l")


def test_control_characters_are_shown_escaped(vfs):
    run(vfs.write_file("/workspace/evil", "a\x1b]0;title\x07\nb\tc\r\n\x9b2J\n"))
    keys = Keys("q")
    page(vfs, "less /workspace/evil", keys)
    assert keys.frames[0][:2] == ["a\\033]0;title\\007", "b       c\\015"]
    assert keys.frames[0][2] == "\\302\\2332J"
    drawn = keys.output.decode()
    for sequence in ("\x1b]", "\x07", "\x9b"):
        assert sequence not in drawn


def test_long_and_wide_lines_wrap_at_the_terminal_width(vfs):
    assert shown_rows("x" * 45, 20) == ["x" * 20, "x" * 20, "x" * 5]
    assert shown_rows("界" * 11, 20) == ["界" * 10, "界"]
    assert shown_rows("", 20) == [""]


def test_an_endless_input_is_read_only_as_far_as_the_screen_needs(vfs):
    keys = Keys(" ", "q")
    result = page(vfs, "yes | less", keys)
    assert result["code"] == 0 and keys.frames[1][:4] == ["y"] * 4


def test_g_on_an_endless_input_stops_at_the_pagers_limit(vfs, monkeypatch):
    from py_vfs.shell.commands import pager_text
    monkeypatch.setattr(pager_text, "HOLD_LIMIT", 1 << 16)
    keys = Keys("G", "q")
    page(vfs, "yes | less", keys, cols=60)
    assert keys.frames[1][-1] == "\x1b[7m(END: input past the pager's limit)\x1b[27m"


def test_x_keeps_the_screen_and_f_prints_a_short_text(vfs):
    keys = Keys("q")
    page(vfs, "less -X /workspace/n.txt", keys)
    out = keys.output.decode()
    assert "\x1b[?1049" not in out and out.endswith("\r\x1b[K")
    keys = Keys("q")
    result = page(vfs, "printf 'a\\x1b\\n' | less -F", keys)
    assert (keys.output.decode(), keys.frames) == ("a\\033\r\n", [])
    assert result["code"] == 0


def test_the_terminal_as_input_is_refused(vfs):
    keys = Keys("q")
    result = page(vfs, "less", keys)
    assert result["code"] == 1 and b"less: missing filename" in keys.output


def test_man_pages_through_less(vfs):
    keys = Keys("q")
    page(vfs, "man less", keys)
    assert keys.frames[0][0].startswith("less") and keys.frames[0][-1] == ":"


def test_keys_split_into_escape_sequences():
    assert split_keys("j\x1b[6~\x1bOBq\x1b") == ["j", "\x1b[6~", "\x1bOB", "q", "\x1b"]


def test_a_line_typed_on_the_terminal_still_reaches_cat_cooked(vfs):
    keys = Keys("hello\n", None)
    result = page(vfs, "cat", keys)
    assert (keys.output, result["code"], keys.raw) == (b"hello\n", 0, [False, False])


def test_the_size_the_page_gives_is_bounded(vfs):
    keys = Keys("q")
    page(vfs, "less /workspace/n.txt", keys, rows=10**9, cols=-3)
    frame = keys.frames[0]  # 1000 rows (999 and the status line), 80 columns
    assert (len(frame), frame[29:31], frame[-1]) == (1000, ["line 30", "~"],
                                                     "\x1b[7m(END)\x1b[27m")
