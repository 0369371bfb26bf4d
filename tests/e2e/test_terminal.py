"""The terminal in real Chromium: output streamed as it is written, Ctrl-C during a long
command while the page stays responsive, Tab completion, Ctrl-R, continuation lines, and the
history kept in ~/.history across a reload. Keystrokes are typed into xterm.js.

One booted page for the whole module (`app`); the reload test comes last.
"""

from __future__ import annotations

from py_vfs.disk.content import CHUNK_SIZE

from .conftest import BOOT_TIMEOUT_MS, js, poll_page, sh

ROWS = "document.querySelector('.xterm-rows').innerText"


def type_line(page, text: str) -> None:
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def wait_rows(page, text: str, what: str) -> None:
    poll_page(page, f"{ROWS}.includes({text!r})", what, timeout_ms=60_000)


def last_row(page) -> str:
    rows = [row for row in page.evaluate(ROWS).split("\n") if row.strip()]
    return rows[-1] if rows else ""


def test_output_streams_and_a_character_split_between_pieces_stays_whole(app):
    # Each chunk of the file ends inside a two-byte character: cat writes it chunk by chunk.
    result = js(app, """
      const piece = "a".repeat(args[0] - 1) + "\\u00e9";
      await vfs.writeFile("/stream.txt", piece.repeat(5));
      const pieces = [];
      const onOutput = (stream, text) => pieces.push([stream, text]);
      const answer = await vfs.shell("cat /stream.txt", {onOutput});
      const text = pieces.map(([, t]) => t).join("");
      return {answer, count: pieces.length, same: text === piece.repeat(5),
              replaced: text.includes("\\ufffd"), streams: [...new Set(pieces.map(([s]) => s))]};
    """, CHUNK_SIZE)
    assert result["count"] > 1
    assert (result["same"], result["replaced"], result["streams"]) == (True, False, ["stdout"])
    assert (result["answer"]["stdout"], result["answer"]["code"]) == ("", 0)
    # Without onOutput the output is collected, as before.
    assert sh(app, "echo collected")["stdout"] == "collected\n"


def test_ctrl_c_stops_a_grep_over_10000_files_while_the_page_answers(app):
    # 10,240 files: 10 files, then a folder holding two copies of the last, ten times over.
    js(app, """
      await vfs.mkdir("/many/l0", {recursive: true});
      for (let i = 0; i < 10; i++) await vfs.writeFile(`/many/l0/f${i}`, `something ${i}\\n`);
      for (let level = 1; level <= 10; level++) {
        await vfs.mkdir(`/many/l${level}`);
        await vfs.cp(`/many/l${level - 1}`, `/many/l${level}/a`, {recursive: true});
        await vfs.cp(`/many/l${level - 1}`, `/many/l${level}/b`, {recursive: true});
      }
    """)
    type_line(app, "grep -r something /")
    wait_rows(app, "something", "grep's first matches")
    # The page answers while the command streams: script runs, and a VFS call is answered.
    assert app.evaluate("1 + 1") == 2
    assert js(app, "return (await vfs.stat('/many/l0/f1')).size") == len("something 1\n")
    app.keyboard.press("Control+C")
    wait_rows(app, "^C", "^C after Ctrl-C")
    poll_page(app, f"{ROWS}.trimEnd().endsWith('$')", "the prompt after Ctrl-C")
    fsck = sh(app, "fsck")
    assert (fsck["code"], "no problems" in fsck["stdout"]) == (0, True), fsck
    type_line(app, "echo after-interrupt")
    wait_rows(app, "after-interrupt\n", "a command run after the interrupt")


def test_tab_completes_commands_and_quoted_paths_and_lists_on_the_second_tab(app):
    js(app, """
      await vfs.mkdir("/tc/my dir", {recursive: true});
      await vfs.writeFile("/tc/alpha1", "1");
      await vfs.writeFile("/tc/alpha2", "2");
    """)
    app.locator(".xterm-helper-textarea").focus()
    app.keyboard.type("cd /tc/my")
    app.keyboard.press("Tab")
    poll_page(app, f"{ROWS}.includes('cd /tc/my\\\\ dir/')", "the path completed and quoted")
    app.keyboard.press("Enter")
    poll_page(app, "window.pyvfs.shell('pwd').then((r) => r.stdout === '/tc/my dir\\n')",
              "cd into the completed folder")
    app.keyboard.type("ls /tc/al")
    app.keyboard.press("Tab")
    app.keyboard.press("Tab")
    poll_page(app, f"/alpha1 +alpha2/.test({ROWS})", "the candidates listed in columns")
    app.keyboard.press("Control+U")
    app.keyboard.type("histo")
    app.keyboard.press("Tab")
    app.keyboard.type("1")
    app.keyboard.press("Enter")
    poll_page(app, f"/\\d+  history 1/.test({ROWS})", "the completed command run")


def test_ctrl_r_finds_an_earlier_line_and_enter_runs_it(app):
    type_line(app, "echo needle-one")
    wait_rows(app, "needle-one\n", "the first line's output")
    type_line(app, "echo other-line")
    wait_rows(app, "other-line\n", "the second line's output")
    app.keyboard.press("Control+R")
    app.keyboard.type("needle")
    poll_page(app, f"{ROWS}.includes(\"(reverse-i-search)`needle': echo needle-one\")",
              "the search prompt showing the match")
    app.keyboard.press("Enter")
    poll_page(app, f"{ROWS}.split('needle-one\\n').length > 2", "the found line run again")


def test_an_open_quote_continues_on_the_next_line(app):
    type_line(app, "echo 'first")
    poll_page(app, f"{ROWS}.trimEnd().endsWith('>')", "the continuation prompt")
    type_line(app, "second'")
    wait_rows(app, "first\nsecond\n", "both lines' text as one argument")


def test_a_command_reads_the_keyboard_until_ctrl_d(app):
    type_line(app, "cat > /typed-input.txt")
    type_line(app, "first typed line")
    app.keyboard.type("second")
    app.keyboard.press("Control+D")  # mid-line: what is typed so far goes to cat
    app.keyboard.press("Control+D")  # at the start of the input: the end
    poll_page(app, "window.pyvfs.ready.then((vfs) => vfs.exists('/typed-input.txt'))",
              "cat's file")
    assert js(app, "return vfs.readFile('/typed-input.txt', 'utf8')") == (
        "first typed line\nsecond")
    type_line(app, "cat")  # waiting for the keyboard, Ctrl-C stops it
    app.keyboard.press("Control+C")
    type_line(app, "echo after-reading")
    wait_rows(app, "after-reading\n", "the prompt after Ctrl-C stopped a reading cat")


def test_arrow_up_recalls_the_line_just_run(app):
    """Finding 13: the shell's history list replaced the terminal's without moving its position
    to the end, so Up recalled the line before the last (and Enter ran `> f` again)."""
    type_line(app, "echo X > /arrow-up.txt")
    poll_page(app, "window.pyvfs.ready.then((vfs) => vfs.exists('/arrow-up.txt'))",
              "the first line's file")
    type_line(app, "echo again >> /arrow-up.txt")
    poll_page(app, "window.pyvfs.ready.then(async (vfs) => "
                   "(await vfs.readFile('/arrow-up.txt', 'utf8')) === 'X\\nagain\\n')",
              "the second line's append")
    poll_page(app, f"{ROWS}.trimEnd().endsWith('$')", "the prompt after the second line")
    app.keyboard.press("ArrowUp")
    poll_page(app, f"/[$] echo .*arrow-up[.]txt\\s*$/.test({ROWS}.trimEnd())",
              "a recalled line at the prompt")
    assert last_row(app).rstrip().endswith("$ echo again >> /arrow-up.txt")
    app.keyboard.press("Enter")
    poll_page(app, "window.pyvfs.ready.then(async (vfs) => "
                   "(await vfs.readFile('/arrow-up.txt', 'utf8')).length > 8)",
              "the recalled line run")
    assert js(app, "return vfs.readFile('/arrow-up.txt', 'utf8')") == "X\nagain\nagain\n"


def test_the_prompt_shows_a_control_character_of_the_cwd_visibly(app):
    """Finding 6: the prompt drew the cwd raw, so a folder named with an escape sequence could
    retitle the window or clear the screen; it shows as the shell quotes names instead."""
    js(app, "await vfs.mkdir('/e\\x1b[2Jvil\\x07', {recursive: true})")
    sh(app, "cd /e*")
    app.locator(".xterm-helper-textarea").focus()
    app.keyboard.press("Enter")  # a fresh prompt, drawn with the new cwd
    poll_page(app, f"{ROWS}.includes(\"user@py_vfs:'/e'$'\\\\033''[2Jvil'$'\\\\a'$\")",
              "the cwd quoted in the prompt")
    sh(app, "cd /")


def test_history_is_kept_in_the_disk_across_a_reload(app):
    type_line(app, "echo kept-across-reload")
    wait_rows(app, "kept-across-reload\n", "the line's output")
    # Written a quiet interval after the line (py_vfs/shell/history_file.py, FLUSH_DELAY).
    poll_page(app, "window.pyvfs.ready.then((vfs) => vfs.readFile('/workspace/.history', "
                   "'utf8')).then((text) => text.endsWith('echo kept-across-reload\\n'), "
                   "() => false)",
              "the line in ~/.history")
    app.reload()
    app.evaluate("window.pyvfs.ready")
    poll_page(app, "document.body.dataset.state === 'ready'", "the terminal after the reload",
              timeout_ms=BOOT_TIMEOUT_MS)
    app.locator(".xterm-helper-textarea").focus()
    app.keyboard.press("ArrowUp")
    poll_page(app, f"{ROWS}.includes('$ echo kept-across-reload')", "the recalled line")
    app.keyboard.press("Control+U")
    type_line(app, "!!")
    poll_page(app, f"{ROWS}.split('kept-across-reload').length >= 3",
              "!! echoing the line and running it")


def test_python_alone_is_an_interactive_interpreter_on_the_disk(app):
    """`python` in the terminal: the console's prompt, a line typed after it runs with the
    shell's disk at hand as `vfs`, and Ctrl-D at the start of a line ends it and returns the
    shell's prompt."""
    type_line(app, "python")
    wait_rows(app, ">>> ", "the interactive interpreter's prompt")
    type_line(app, "print(6 * 7, vfs.stat('/').type)")
    wait_rows(app, "42 directory\n", "the interpreter's answer")
    app.keyboard.press("Control+D")
    type_line(app, "echo after-python")
    wait_rows(app, "after-python\n", "the shell's prompt after Ctrl-D ended the interpreter")
