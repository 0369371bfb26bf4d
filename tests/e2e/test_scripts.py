"""`.jsh` scripts in real Chromium: found in $PATH and run in a Web Worker of their own, in
pipelines with builtins and Python, with argv/env/cwd, exit statuses, `fs` restricted as the
shell is (a scoop's view inside one), and a runaway script killed by the call's signal while
the page keeps answering (docs/scripts.md)."""

from __future__ import annotations

import json

import pytest

from .conftest import js

# Every wait in the page is bounded and says what it waited for.
WITHIN = """
const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) =>
  setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms))]);
const sh = (line, options) => within(vfs.shell(line, options), 60000, line);
"""

SCRIPTS = {
    "/workspace/bin/upper.jsh":
        "for await (const chunk of process.stdin) "
        "await process.stdout.write(new TextDecoder().decode(chunk).toUpperCase());",
    "/workspace/bin/args.jsh":
        "console.log(JSON.stringify({argv: process.argv, cwd: process.cwd(), "
        "env: process.env}));",
    "/workspace/bin/fail.jsh": "console.log('before'); throw new Error('broken here');",
    "/workspace/bin/seven.jsh":
        "await process.stdout.write('out\\n'); process.exit(7); console.log('never');",
    "/workspace/bin/copy.jsh":
        "const text = await fs.readFile(process.argv[2], 'utf8');\n"
        "await fs.writeFile(process.argv[3], text.split('').reverse().join(''));\n"
        "console.error('copied', text.length);",
    "/workspace/bin/endless.jsh":
        "await fs.writeFile('/workspace/endless-started', 'yes');\n"
        "while (true) await process.stdout.write('y\\n'.repeat(4096));",
    "/workspace/bin/spin.jsh":
        "await fs.writeFile('/workspace/spinning', 'yes'); while (true) {}",
    "/workspace/bin/count.py":
        "#!/usr/bin/env python3\nimport sys\n"
        "data = sys.stdin.buffer.read()\nprint(len(data), sys.argv[1:], cwd)\n",
    "/shared/bin/probe.jsh":
        "const tries = {read: () => fs.readFile('/workspace/secret', 'utf8'),\n"
        "  write: () => fs.writeFile('/workspace/planted', 'x'),\n"
        "  own: () => fs.writeFile(process.cwd() + '/mine', 'ok')};\n"
        "for (const [name, attempt] of Object.entries(tries)) {\n"
        "  try { await attempt(); console.log(name, 'ok'); }\n"
        "  catch (e) { console.log(name, e.code); }\n}",
}


@pytest.fixture(scope="module")
def page(app):
    """The app with the scripts of this module written to its disk."""
    js(app, """
      for (const [path, text] of Object.entries(args[0])) {
        await vfs.mkdir(path.slice(0, path.lastIndexOf("/")), {recursive: true});
        await vfs.writeFile(path, text);
      }
      await vfs.chmod("/workspace/bin/count.py", 0o755);""", SCRIPTS)
    return app


def shell(page, line: str) -> dict:
    return js(page, WITHIN + "return await sh(args[0]);", line)


def test_a_jsh_script_in_path_runs_by_name_in_a_pipeline(page):
    result = shell(page, "echo hi | upper | python -c 'import sys; print(len(sys.stdin.read()))'")
    assert (result["stdout"], result["stderr"], result["code"]) == ("3\n", "", 0)
    result = shell(page, "echo hi | upper")
    assert (result["stdout"], result["stderr"], result["code"]) == ("HI\n", "", 0)
    assert shell(page, "which upper")["stdout"] == "/workspace/bin/upper.jsh\n"


def test_an_executable_python_script_runs_by_name_in_pyodide_after_a_jsh_stage(page):
    result = shell(page, "cd /workspace && echo hi | upper | count a 'b c' && cd /")
    assert (result["stdout"], result["stderr"], result["code"]) == (
        "3 ['a', 'b c'] /workspace\n", "", 0)


def test_a_python_script_is_interrupted_at_its_awaits_by_the_signal(page):
    result = js(page, WITHIN + """
      await vfs.rm("/workspace/py-started", {force: true});
      const controller = new AbortController();
      const code = "await vfs.write_file('/workspace/py-started', b'1')\\n" +
        "import asyncio\\nawait asyncio.sleep(3600)";
      const running = vfs.shell(`python -c "${code}"`, {signal: controller.signal});
      let started = false;
      for (let i = 0; i < 600 && !started; i++) {
        started = await vfs.readFile("/workspace/py-started").then(() => true, () => false);
        if (!started) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (!started) throw new Error("the Python script never wrote its marker");
      controller.abort();
      const stopped = await within(running.then((r) => ({resolved: r}),
        (e) => ({name: e.name, hint: e.hint})), 30000, "the aborted python script");
      return {stopped, after: await sh("python -c 'print(6 * 7)'")};
    """)
    # A shell call aborted while it runs resolves with the line's status, 130, as a shell
    # reports Ctrl-C (docs/api.md, shell).
    assert result["stopped"]["resolved"]["code"] == 130
    assert (result["after"]["stdout"], result["after"]["code"]) == ("42\n", 0)


def test_a_python_script_reads_an_endless_pipe_line_by_line(page):
    """In the page (JSPI) each read of sys.stdin waits for the pipeline's next piece: a script
    takes two lines of `yes` and ends, and `yes` then stops (its reader is gone). Read whole
    before the script started, the endless input failed with EFBIG (checked on Chromium
    156.0.8078.79)."""
    result = shell(page, "yes | python -c 'import sys; print(sys.stdin.readline().strip() + "
                         "input())'; echo status $?")
    assert (result["stdout"], result["stderr"], result["code"]) == ("yy\nstatus 0\n", "", 0)


def test_a_python_prompt_shows_before_its_input_is_read_and_ctrl_c_ends_the_wait(page):
    """input("name? ") with the keyboard as stdin: the prompt reaches onOutput before the script
    asks for input, the typed line is the answer; a second input() waiting when the signal
    aborts ends the script with status 130 and the shell answers the next line."""
    result = js(page, WITHIN + """
      const seen = [];
      let answered = 0;
      const controller = new AbortController();
      const code = "print('hello ' + input('name? ')); input('again? ')";
      const running = vfs.shell(`python -c "${code}"`, {
        signal: controller.signal,
        onOutput: (stream, text) => seen.push([stream, text]),
        input: () => {
          answered += 1;
          if (answered === 1) return Promise.resolve("ada\\n");
          setTimeout(() => controller.abort(), 0);
          return new Promise(() => {});
        },
      });
      const done = await within(running, 60000, "the python script waiting for input");
      return {seen, code: done.code, after: await sh("python -c 'print(6 * 7)'")};
    """)
    text = "".join(piece for stream, piece in result["seen"] if stream == "stdout")
    assert text == "name? hello ada\nagain? "
    assert result["code"] == 130
    assert (result["after"]["stdout"], result["after"]["code"]) == ("42\n", 0)


def test_an_endless_writer_ends_when_its_reader_is_gone(page):
    """`endless | true`: true reads nothing and ends; the script's next write finds no reader,
    and the script is stopped (141, as SIGPIPE) instead of writing forever; the line's status
    is true's."""
    result = js(page, WITHIN + """
      await vfs.rm("/workspace/endless-started", {force: true});
      const run = await sh("endless | true");
      return {run, started: await vfs.exists("/workspace/endless-started")};
    """)
    assert result["started"] is True
    assert (result["run"]["stdout"], result["run"]["stderr"], result["run"]["code"]) == ("", "", 0)
    piped = shell(page, "endless | true; echo next")
    assert (piped["stdout"], piped["code"]) == ("next\n", 0)


def test_argv_env_and_cwd(page):
    result = shell(page, "cd /workspace && args one 'two words' && cd /")
    assert (result["stderr"], result["code"]) == ("", 0)
    seen = json.loads(result["stdout"])
    # node's shape: [runtime, script, ...args]; env: the shell's exported variables.
    assert (seen["argv"], seen["cwd"]) == (
        ["jsh", "/workspace/bin/args.jsh", "one", "two words"], "/workspace")
    assert seen["env"]["PWD"] == "/workspace"
    assert seen["env"]["PATH"] == "/workspace/bin:/workspace/skills"  # the cone's: no /shared/bin
    exported = json.loads(shell(page, "GREETING=hello args")["stdout"])
    assert exported["env"]["GREETING"] == "hello"


def test_exit_statuses(page):
    missing = shell(page, "nosuchscript")
    assert (missing["stderr"], missing["code"]) == ("sh: nosuchscript: command not found\n", 127)
    thrown = shell(page, "fail")
    assert (thrown["stdout"], thrown["code"]) == ("before\n", 1)
    assert thrown["stderr"].startswith("Error: broken here\n")
    exited = shell(page, "seven; echo status-kept")
    assert (exited["stdout"], exited["code"]) == ("out\nstatus-kept\n", 0)
    assert shell(page, "seven")["code"] == 7
    assert shell(page, "seven || echo failed")["stdout"] == "out\nfailed\n"


def test_fs_reads_and_writes_the_disk_as_the_script(page):
    result = js(page, WITHIN + """
      await vfs.writeFile("/workspace/in.txt", "abc");
      const run = await sh("copy /workspace/in.txt /workspace/out.txt");
      const [entry] = await vfs.journal({path: "/workspace/out.txt", limit: 1});
      return {run, out: await vfs.readFile("/workspace/out.txt", "utf8"), writer: entry.writer};
    """)
    assert (result["run"]["stderr"], result["run"]["code"]) == ("copied 3\n", 0)
    assert result["out"] == "cba"
    assert result["writer"] == "copy.jsh"  # outside a scoop, the script's name writes


def test_a_runaway_script_is_killed_by_the_signal_and_the_page_still_answers(page):
    result = js(page, WITHIN + """
      await vfs.rm("/workspace/spinning", {force: true});
      const controller = new AbortController();
      const running = vfs.shell("spin", {signal: controller.signal});
      // The marker the script writes before its endless loop.
      let spinning = false;
      for (let i = 0; i < 600 && !spinning; i++) {
        spinning = await vfs.readFile("/workspace/spinning", "utf8").then(() => true, () => false);
        if (!spinning) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (!spinning) throw new Error("the spinning script never wrote its marker");
      controller.abort();
      const stopped = await within(running.then((r) => ({resolved: r}),
        (e) => ({name: e.name, hint: e.hint})), 30000, "the aborted spin");
      const after = await sh("echo hi | upper");
      return {stopped, after};
    """)
    # The script's worker is terminated (a nested dedicated worker, started by the Python
    # worker): checked on Chromium 156.0.8078.79. The line's status is 130.
    assert result["stopped"]["resolved"]["code"] == 130
    assert (result["after"]["stdout"], result["after"]["code"]) == ("HI\n", 0)


def test_inside_a_scoop_fs_reaches_only_the_scoops_view(page):
    result = js(page, WITHIN + """
      await vfs.mkdir("/workspace", {recursive: true});
      await vfs.writeFile("/workspace/secret", "top secret");
      const entered = await sh("scoop scripted");
      const probe = await sh("probe");
      const left = await sh("exit");
      const planted = await vfs.exists("/workspace/planted");
      const mine = await vfs.readFile("/scoops/scripted/workspace/mine", "utf8");
      return {entered, probe, left, planted, mine};
    """)
    assert result["entered"]["code"] == 0, result["entered"]
    assert (result["probe"]["stderr"], result["probe"]["code"]) == ("", 0)
    # Reads outside the view find nothing, writes there are refused (docs/sandbox.md).
    assert result["probe"]["stdout"] == "read ENOENT\nwrite EACCES\nown ok\n"
    assert result["left"]["code"] == 0
    assert result["planted"] is False
    assert result["mine"] == "ok"
