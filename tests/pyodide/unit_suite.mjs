// tests/unit, the CPython pytest suite, run again inside the real Pyodide (Python 3.14 on
// Emscripten/wasm32, in Node), so that wasm or 3.14 differences show up as failures. The suite
// runs in SHARDS parts, tests/pyodide/unit_<k>.test.mjs, each in a process of its own, so that
// `node --test --test-concurrency` (tests/run.sh) runs them side by side: `unitShard(k)` defines
// part k's test, over the test files `shardFiles(k)` gives it (balanced by size).
//
// pytest, hypothesis and their dependencies are wheels from PyPI, pinned with hashes in
// tests/pyodide/requirements.txt and downloaded by `sh build/setup.sh --test` into
// .cache/pyodide-wheels/; loadPackage installs them from file:// URLs (nothing from a CDN).
// What differs from CPython, and how the suite copes (tests/unit/conftest.py):
//   - no event loop can block (no JSPI in Node 20): asyncio.run/Runner are replaced by a
//     synchronous driver that fails loudly if a coroutine suspends (tests/unit/aio.py);
//   - no time.tzset and $TZ is ignored: local time is Node's, so TZ=UTC is set here;
//   - no processes, and the "real" file system is MEMFS, not Linux: the tests that need them
//     skip themselves there (skipif sys.platform == "emscripten"). EXPECTED_SKIPS lists them,
//     and any other skip fails this test, as does any collected test that did not pass;
//   - no pytest-timeout (it needs threads or a timer signal): tests/pyodide/unit_plugin.py bounds
//     each test with the same pytest.ini `timeout`, through a watchdog thread started here that
//     raises SIGALRM in Python (Pyodide's interrupt buffer). A synchronous runPython cannot be
//     bounded by node:test's own timeout, which needs this thread's event loop.
// Extra pytest options: PYTEST_ADDOPTS (forwarded), e.g. PYTEST_ADDOPTS="-x -k tree"; with -k,
// -m, --lf or --deselect, expected skips left out are not missing, but skips are still checked.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { BOOT_MS, bootPyodide, root, within } from "./harness.mjs";

// Emscripten's localtime asks JS's Date, which follows Node's TZ even when set at runtime.
process.env.TZ = "UTC";

const WHEELS = join(root, ".cache", "pyodide-wheels");
const REQUIREMENTS = join(root, "tests", "pyodide", "requirements.txt");
const PYTEST_ARGS = ["-q", "-rs", "--color=no", "-p", "no:cacheprovider"];
export const SHARDS = 2;
// The whole run: far above its usual minute or two. Each test is bounded by the watchdog first.
const RUN_MS = 900_000;
// Once a test's alarm has fired, how long it may take to unwind before the process is ended.
const BACKSTOP_MS = 60_000;
const SIGALRM = 14;

// The skips tests/unit has under Pyodide: node id (a module that skips itself: its path) -> the
// reason pytest reports. Any other skip, another reason, or a skip listed here that no longer
// happens, fails. Checked on Pyodide 314.0.7 (Python 3.14.2) in Node 20.
const NO_EVENT_LOOP = "writes in flight together need a real event loop"; // no JSPI in Node 20
const NO_PROCESSES = "Emscripten (Pyodide) has no processes";
const NO_RUNS = "WebAPI.call_many's Tasks need a real event loop";
const NO_LOOP_CANCEL = "WebAPI.call's Tasks need a real event loop; tests/e2e/test_abort.py covers the worker";
const NO_LOOP_RETRY = "WebAPI.call's Tasks need a real event loop; tests/pyodide/journal.test.mjs covers Pyodide, tests/e2e/test_shared_runtime.py the worker";
const NO_SOCKETS = "no sockets in Pyodide: no local HTTP server to test";
const NO_STAND_INS = "Pyodide's own js module shadows the stand-ins";
const NO_GZIP = "no gzip on this machine (or no processes: Pyodide)";
const EXPECTED_SKIPS = new Map([
  // curl and wget against a local HTTP server: no sockets here; tests/unit/test_shell_http_browser.py
  // covers the fetch transport.
  ["tests/unit/test_shell_http.py::test_curl_writes_the_body_to_stdout_and_to_files", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_curl_follows_redirects_only_with_L", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_curl_f_fails_with_22_on_an_http_error", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_curl_I_and_i_show_the_headers", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_curl_posts_data_and_sends_headers", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_curl_max_time_stops_a_slow_server_with_28", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_curl_connection_refused_is_7_and_bad_urls_fail", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_wget_names_files_from_the_url", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_wget_statuses", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_a_scoop_has_no_network_unless_allowed", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_a_scoop_view_made_with_network_lets_its_shell_reach_it", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_ctrl_c_stops_a_transfer_at_once", NO_SOCKETS],
  ["tests/unit/test_shell_http.py::test_a_body_over_the_limit_fails_cleanly", NO_SOCKETS],
  // The browser transport with stand-ins for js.fetch, which Pyodide's own js module shadows.
  ["tests/unit/test_shell_http_browser.py::test_fetch_carries_the_request_and_the_body_streams", NO_STAND_INS],
  ["tests/unit/test_shell_http_browser.py::test_a_type_error_from_fetch_is_the_browsers_refusal", NO_STAND_INS],
  ["tests/unit/test_shell_http_browser.py::test_an_opaque_redirect_and_an_http_error", NO_STAND_INS],
  ["tests/unit/test_shell_http_browser.py::test_the_deadline_aborts_the_fetch", NO_STAND_INS],
  // The shell's git against real git in processes, and against a local `git http-backend`.
  ["tests/unit/test_shell_git.py", "real git runs as a process, which Pyodide cannot start"],
  ["tests/unit/test_shell_git_http.py", "the local git server runs `git http-backend` as a " +
    "process and listens on a socket, which Pyodide cannot do"],
  // Our gzip against GNU gzip in a process.
  ["tests/unit/test_shell_coreutils.py::test_our_gzip_is_read_by_the_real_gunzip", NO_GZIP],
  ["tests/unit/test_shell_coreutils.py::test_the_real_gzip_is_read_by_our_gunzip", NO_GZIP],
  ["tests/unit/test_shell_coreutils.py::test_the_real_gzip_lists_what_our_header_stores", NO_GZIP],
  // It builds our wheel and installs it with pip into a new virtual environment.
  ["tests/unit/test_wheel_install.py", NO_PROCESSES],
  // pandas on the disk through fsspec URLs runs on CPython; Pyodide's own pandas build is not here.
  ["tests/unit/test_fsspec_pandas.py",
    "pandas has no wheel for Pyodide on PyPI or npm; build/requirements.txt pins it for CPython"],
  ["tests/unit/test_pyfile.py", "the disk's loop runs in a thread here, and Pyodide has no threads"],
  // Python's own file API on a disk: tests/e2e/test_python_api.py runs the same cases in the page.
  ["tests/unit/test_python_api.py", "the disk's loop runs in a thread here, and Pyodide has no threads"],
  // The oracle is the host kernel's file system; Pyodide's is MEMFS.
  ["tests/unit/test_differential.py", "differential tests need a real Linux file system"],
  // A pipeline's stages wait on each other's pipes; the e2e tier runs pipelines in the worker.
  ["tests/unit/test_group_commit.py::test_a_thousand_writes_in_flight_take_a_few_commits", NO_EVENT_LOOP],
  ["tests/unit/test_group_commit.py::test_a_failing_write_in_a_group_fails_alone", NO_EVENT_LOOP],
  ["tests/unit/test_group_commit.py::test_writers_never_share_a_commit", NO_EVENT_LOOP],
  ["tests/unit/test_web_history.py::test_each_call_is_made_by_the_writer_its_envelope_names_and_streams_and_steps_too",
    "WebAPI.call's Tasks need a real event loop; tests/pyodide/journal.test.mjs covers Pyodide"],
  ["tests/unit/test_web_history.py::test_a_bad_writer_is_refused_and_the_call_is_not_made",
    "WebAPI.call's Tasks need a real event loop; tests/pyodide/journal.test.mjs covers Pyodide"],
  ["tests/unit/test_web_history.py::test_snapshot_diff_and_restore_by_name_revision_and_path",
    "WebAPI.call's Tasks need a real event loop; tests/pyodide/journal.test.mjs covers Pyodide"],
  ["tests/unit/test_past.py::test_read_at_answers_each_call_as_the_page_shapes_it",
    "WebAPI.call's Tasks need a real event loop; tests/e2e/test_past.py covers the page"],
  ["tests/unit/test_past.py::test_read_at_through_a_view_is_refused",
    "WebAPI.call's Tasks need a real event loop; tests/e2e/test_past.py covers the page"],
  ["tests/unit/test_query.py::test_the_js_api_call_answers_columns_rows_and_truncated",
    "an async call of the JS API needs a real event loop (the e2e tier calls it from the page)"],
  ["tests/unit/test_group_commit.py::test_a_group_the_store_refuses_is_retried_one_by_one", NO_EVENT_LOOP],
  ["tests/unit/test_group_commit.py::test_writes_in_flight_wait_for_the_leading_writer_instead_of_each_taking_a_turn", NO_EVENT_LOOP],
  ["tests/unit/test_group_commit.py::test_followers_wake_once_each", NO_EVENT_LOOP],
  ["tests/unit/test_group_commit.py::test_a_cancelled_caller_strands_no_follower[0]", NO_EVENT_LOOP],
  ["tests/unit/test_group_commit.py::test_a_cancelled_caller_strands_no_follower[1]", NO_EVENT_LOOP],
  ["tests/unit/test_group_commit.py::test_a_cancelled_caller_strands_no_follower[5]", NO_EVENT_LOOP],
  ["tests/unit/test_group_commit.py::test_a_follower_cancelled_just_as_it_was_woken_to_lead_passes_the_lead_on", NO_EVENT_LOOP],
  // WebAPI.call's out: tests/pyodide/bridge.test.mjs covers dispatch_many, its user, in Pyodide.
  ["tests/unit/test_call_out.py::test_out_hears_a_value_an_error_and_a_bug_once_each", "WebAPI.call's Tasks need a real event loop"],
  ["tests/unit/test_call_out.py::test_without_out_a_bug_is_the_future_s_exception", "WebAPI.call's Tasks need a real event loop"],
  // WebAPI.call_many's runs of writes: bridge.test.mjs runs them through dispatch_many in Pyodide.
  ["tests/unit/test_write_runs.py::test_each_write_of_a_run_has_its_own_outcome_and_a_failure_changes_nothing", NO_RUNS],
  ["tests/unit/test_write_runs.py::test_the_changes_of_a_message_take_effect_in_the_order_of_its_calls", NO_RUNS],
  ["tests/unit/test_write_runs.py::test_a_run_keeps_each_call_s_writer_and_request_id", NO_RUNS],
  ["tests/unit/test_write_runs.py::test_a_full_store_frees_room_for_a_run_and_refuses_only_what_cannot_fit", NO_RUNS],
  ["tests/unit/test_write_runs.py::test_the_writes_of_one_commit_carry_one_time_and_their_folder_is_stored_once", NO_RUNS],
  ["tests/unit/test_write_runs.py::test_a_read_made_again_in_a_message_is_answered_once_unless_a_change_came_between", NO_RUNS],
  // Node ids drawn by threads and by a forked process: neither exists in Pyodide.
  ["tests/unit/test_node_ids.py::test_threads_never_get_the_same_id", "Pyodide has no threads"],
  ["tests/unit/test_node_ids.py::test_a_forked_process_does_not_make_its_parent_s_ids", NO_PROCESSES],
  ["tests/unit/test_cancel_calls.py::test_a_cancelled_grep_stops_at_its_first_safe_point", NO_LOOP_CANCEL],
  ["tests/unit/test_cancel_calls.py::test_a_cancelled_recursive_copy_or_removal_changes_nothing[cp-args0]", NO_LOOP_CANCEL],
  ["tests/unit/test_cancel_calls.py::test_a_cancelled_recursive_copy_or_removal_changes_nothing[rm-args1]", NO_LOOP_CANCEL],
  ["tests/unit/test_cancel_calls.py::test_a_call_without_an_id_cannot_be_cancelled_and_unknown_ids_are_ignored", NO_LOOP_CANCEL],
  // tests/pyodide/bridge.test.mjs makes the same calls through dispatch in Pyodide.
  ["tests/unit/test_cancel_calls.py::test_a_read_starts_at_once_and_a_later_call_never_overtakes_one_waiting_to_start", NO_LOOP_CANCEL],
  ["tests/unit/test_request_ids.py::test_a_commit_records_the_request_ids_of_the_calls_it_carries", NO_LOOP_RETRY],
  ["tests/unit/test_request_ids.py::test_a_group_commit_lists_every_member_that_succeeded_and_not_the_one_that_failed", NO_LOOP_RETRY],
  ["tests/unit/test_request_ids.py::test_find_request_answers_the_revision_none_found_or_cannot_tell", NO_LOOP_RETRY],
  ["tests/unit/test_request_ids.py::test_a_trimmed_journal_cannot_tell", NO_LOOP_RETRY],
  ["tests/unit/test_request_ids.py::test_a_retried_write_the_old_host_committed_is_answered_as_applied_and_not_run_again", NO_LOOP_RETRY],
  ["tests/unit/test_request_ids.py::test_a_retried_write_the_old_host_did_not_commit_runs", NO_LOOP_RETRY],
  ["tests/unit/test_request_ids.py::test_the_pages_later_calls_wait_for_a_retried_one", NO_LOOP_RETRY],
  ["tests/unit/test_request_ids.py::test_only_a_retryable_call_with_a_request_id_is_sent_again", NO_LOOP_RETRY],
  ["tests/unit/test_cancel_sleep.py::test_an_abort_from_another_thread_wakes_the_sleep",
    "Pyodide has no threads (and the test driver's loop cannot be woken by one); tests/pyodide/cancel.test.mjs aborts from JS"],
  ["tests/unit/test_agent_tools.py::test_every_schema_is_valid_json_schema_and_agrees_with_the_tools_own_checks",
    "jsonschema needs rpds-py, which has no wheel for Pyodide here"],
  // Two installs in flight at once; the one that runs second is tested alone (it runs here) and
  // two real tabs race in the e2e tier (tests/e2e/test_defaults.py).
  ["tests/unit/test_defaults.py::test_two_tabs_installing_at_once_install_once",
    "needs a real event loop (two tabs at once)"],
  ["tests/unit/test_defaults.py::test_command_line_shell_installs_a_folder_once_and_asks_before_reset",
    NO_PROCESSES],
  ["tests/unit/test_group_commit.py::test_order_of_calls_is_the_order_of_effects", NO_EVENT_LOOP],
  ["tests/unit/test_shell_scripts.py::test_the_calls_signal_interrupts_a_script_at_its_awaits",
    "a script awaiting a sleep needs a real event loop; tests/e2e/test_scripts.py interrupts one in the page"],
  ["tests/unit/test_quoting.py::test_the_same_as_the_real_gnu_ls",
    "needs GNU ls in a process (not in Pyodide)"],
  ["tests/unit/test_archive.py::test_info_zip_unzips_the_export_and_its_zip_imports_back",
    "needs Info-ZIP's unzip and zip in a process (not in Pyodide)"],
  ["tests/unit/test_sqlite_store.py::test_command_line_shell", NO_PROCESSES],
  ["tests/unit/test_shell_terminal.py::test_the_command_line_shell_keeps_history_and_expands_events", NO_PROCESSES],
  ["tests/unit/test_shell_names_shown.py::test_the_cpython_prompt_shows_the_cwd_visibly", NO_PROCESSES],
  ["tests/unit/test_sqlite_views.py::test_the_issue_statements_in_the_stock_sqlite3_tool_answer_as_query",
    NO_PROCESSES],
  ["tests/unit/test_sqlite_views.py::test_two_processes_opening_old_files_at_once_both_succeed",
    NO_PROCESSES],
  ["tests/unit/test_image.py::test_the_image_opens_in_the_command_line_shell_and_in_sqlite3",
    NO_PROCESSES],
  ["tests/unit/test_steps_watch_tabs.py::test_calling_the_outer_vfs_inside_a_step_is_edeadlk",
    "needs a real event loop (the current task)"],
  ["tests/unit/test_steps_watch_tabs.py::test_two_processes_writing_one_sqlite_file_concurrently_lose_nothing",
    NO_PROCESSES],
  ["tests/unit/test_steps_watch_tabs.py::test_concurrent_tasks_on_two_tabs_with_a_slow_store_converge",
    "needs a real event loop"],
  ["tests/unit/test_streams.py::test_200_mib_stream_through_a_disk_file_holds_a_few_chunks",
    "Pyodide's files live in memory (MEMFS): the 200 MiB disk itself would fill wasm memory; " +
    "the browser measures it in the e2e tier"],
]);

/** file:// URLs of the pinned wheels, checked against Pyodide's platform tag. */
function wheelUrls() {
  const lock = JSON.parse(readFileSync(join(root, "node_modules/pyodide/pyodide-lock.json")));
  const platform = `pyemscripten_${lock.info.abi_version}_wasm32`;
  const present = existsSync(WHEELS) ? readdirSync(WHEELS) : [];
  const pins = readFileSync(REQUIREMENTS, "utf8")
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter(Boolean)
    .map((line) => line.split(/\s+/)[0]);
  return pins.map((pin) => {
    const [name, version] = pin.split("==");
    const prefix = `${name.toLowerCase().replace(/[-_.]+/g, "_")}-${version}-`;
    const file = present.find((f) => f.toLowerCase().startsWith(prefix) && f.endsWith(".whl"));
    if (!file) {
      throw new Error(`${pin}: no wheel in .cache/pyodide-wheels/: run \`sh build/setup.sh --test\``);
    }
    const tag = file.slice(0, -".whl".length).split("-").at(-1);
    if (tag !== "any" && tag !== platform) {
      throw new Error(`${file} is not for this Pyodide (${platform}): fix tests/pyodide/requirements.txt`);
    }
    return pathToFileURL(join(WHEELS, file)).href;
  });
}


// A worker thread that raises SIGALRM in Python `ms` after each arm(ms) (arm(0) disarms), and
// ends this process with a message if the test is still running BACKSTOP_MS later (Python
// stuck where it never checks for signals, or a test that swallowed the failure).
function startWatchdog(pyodide) {
  const interrupt = new Uint8Array(new SharedArrayBuffer(1));
  pyodide.setInterruptBuffer(interrupt);
  const worker = new Worker(`
    const { writeSync } = require("node:fs");
    const { parentPort, workerData: { interrupt, signal, backstop } } = require("node:worker_threads");
    let alarm, kill;
    parentPort.on("message", ({ ms, what }) => {
      clearTimeout(alarm);
      clearTimeout(kill);
      if (ms <= 0) return;
      alarm = setTimeout(() => {
        interrupt[0] = signal;
        kill = setTimeout(() => {
          // writeSync: a worker's process.stderr goes through the main thread, which is stuck.
          writeSync(2, \`\${what}: still running \${backstop} ms after its timeout: ending the process\\n\`);
          process.kill(process.pid, "SIGKILL");
        }, backstop);
      }, ms);
    });`, { eval: true, workerData: { interrupt, signal: SIGALRM, backstop: BACKSTOP_MS } });
  worker.unref();
  return {
    arm: (ms, what = "the pytest run") => worker.postMessage({ ms, what }),
    stop: () => worker.terminate(),
  };
}

// The test files of part `shard` (1 to SHARDS) of tests/unit: every file pytest collects there
// (its default python_files, test_*.py and *_test.py, in any folder below: pytest.ini changes
// neither), each going, largest first, to the part with the fewest bytes so far (a file's size
// stands for its time).
export function shardFiles(shard) {
  const files = readdirSync(join(root, "tests", "unit"), { recursive: true })
    .filter((name) => /(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(name))
    .map((name) => ({ name, size: statSync(join(root, "tests", "unit", name)).size }))
    .sort((a, b) => b.size - a.size || (a.name < b.name ? -1 : 1));
  const parts = Array.from({ length: SHARDS }, () => ({ size: 0, names: [] }));
  for (const file of files) {
    const lightest = parts.reduce((best, part) => (part.size < best.size ? part : best));
    lightest.size += file.size;
    lightest.names.push(`tests/unit/${file.name}`);
  }
  return parts[shard - 1].names.sort();
}

export function unitShard(shard) {
  const files = shardFiles(shard);
  const everywhere = Array.from({ length: SHARDS }, (_, k) => shardFiles(k + 1)).flat();
  // A listed skip of a file no part has (gone, renamed) is part 1's: it fails there as stale.
  const ours = (file) => files.includes(file) || (shard === 1 && !everywhere.includes(file));
  const expected = new Map([...EXPECTED_SKIPS].filter(([id]) => ours(id.split("::")[0])));
  const name = `tests/unit passes inside Pyodide (Python 3.14, Emscripten), part ${shard} of ${SHARDS}`;
  test(name, { timeout: RUN_MS }, (t) => runPart(t, files, expected));
}

async function runPart(t, files, expectedSkips) {
  const urls = wheelUrls();
  const output = [];
  const pyodide = await bootPyodide({
    stdout: (line) => output.push(line),
    stderr: (line) => output.push(line),
  });
  await within(BOOT_MS, "loadPackage(pytest, hypothesis and their dependencies)", pyodide.loadPackage(urls, {
    messageCallback: () => {},
    errorCallback: (message) => output.push(message),
  }));
  const watchdog = startWatchdog(pyodide);
  const scope = pyodide.toPy({ args: [...PYTEST_ARGS, ...files], addopts: process.env.PYTEST_ADDOPTS ?? "" });
  scope.set("arm", (ms, what) => watchdog.arm(ms, what));
  watchdog.arm(RUN_MS, "collecting tests/unit in Pyodide"); // until the first test arms its own
  let result;
  try {
    result = pyodide.runPython(
      `
import os, sys
import pytest

sys.dont_write_bytecode = True  # /src is the repository itself (NODEFS)
sys.path.insert(0, "/src/tests/pyodide")
import unit_plugin

if addopts:
    os.environ["PYTEST_ADDOPTS"] = addopts
outcomes = unit_plugin.Outcomes()
watchdog = unit_plugin.Watchdog(lambda ms: arm(ms, watchdog.running[0] if watchdog.running else ""))
home = os.getcwd()
os.chdir("/src")  # node ids print as tests/unit/..., as on CPython
try:
    code = int(pytest.main(list(args), plugins=[watchdog, outcomes]))
finally:
    os.chdir(home)
{"code": code, **outcomes.report()}
`,
      { globals: scope },
    ).toJs({ dict_converter: Object.fromEntries });
  } finally {
    scope.destroy();
    watchdog.stop();
  }
  const text = output.join("\n");
  assert.equal(result.code, 0, `pytest in Pyodide exited with ${result.code}:\n${text}`);
  // A strict xfail that ran and failed as declared (the shell conformance suite's
  // KNOWN_FAILURES) is in result.xfailed, not a skip; any other xfail (non-strict, run=False,
  // pytest.xfail() in a test) is reported as a skip "xfail: ..." and must be listed like one.
  const unexpected = Object.entries(result.skipped)
    .filter(([id, why]) => expectedSkips.get(id) !== why);
  assert.deepEqual(unexpected, [], `tests/unit skipped in Pyodide, not as EXPECTED_SKIPS says:\n${text}`);
  const filtered = /(^|\s)(-k|-m|--lf|--deselect)\b/.test(process.env.PYTEST_ADDOPTS ?? "");
  if (!filtered) {
    const stale = [...expectedSkips.keys()].filter((id) => !(id in result.skipped));
    assert.deepEqual(stale, [], "listed in EXPECTED_SKIPS but not skipped (ran or gone): update the list");
  }
  const skippedItems = result.collected.filter((id) => id in result.skipped).length;
  const xfailed = result.xfailed.length;
  assert.equal(result.passed.length, result.collected.length - skippedItems - xfailed,
    `collected ${result.collected.length}, skipped ${skippedItems}, xfailed ${xfailed}, but only ${result.passed.length} passed:\n${text}`);
  for (const line of output) {
    if (/^SKIPPED|^\d+ passed|^=+ .*(passed|skipped)/.test(line)) t.diagnostic(line);
  }
}
