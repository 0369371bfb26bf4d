// A line-editing terminal on top of xterm.js. There is no pty: this module is the "line
// discipline" (echo, editing, history, Ctrl-R, Tab) and hands whole lines to an async
// `run(line, {signal, onOutput, input, interactive, rows, cols})` callback (vfs.shell); the
// output streams in while the line runs, and Ctrl-C aborts it. A command that reads the
// keyboard gets lines (cooked, echoed) or, when it asks for raw input (`less`), the keys as
// typed, Ctrl-C included.

import { Terminal } from "./vendor/xterm.mjs";
import { FitAddon } from "./vendor/addon-fit.mjs";
import { clusters, KEYS, LineEditor, TOKEN, up } from "./line_editor.mjs";
import { columns, commonPrefix, searchBack } from "./line_tools.mjs";

const RED = "\x1b[31m";
const RESET = "\x1b[0m";
// Shown while the rest of an unfinished line (an open quote) is typed, as bash's PS2.
const CONTINUATION_PROMPT = "> ";
const INTERRUPTED = 130; // the status of a line stopped by Ctrl-C (128 + SIGINT)
// Shown instead of the prompt when a command asks for confirmation (`reset --defaults`).
const CONFIRM_PROMPT = "Proceed? [y/N] ";

export class TerminalSession extends LineEditor {
  constructor(container, { run, complete, prompt, cwd = "/", history = [], home = "/" }) {
    super();
    this.run = run;
    this.complete = complete; // (line, cursor) => {start, candidates, names}
    this.prompt = prompt;
    this.cwd = cwd;
    this.home = home;
    this.history = history; // the shell's list (~/.history and this session's lines)
    this.historyPos = history.length;
    this.draft = "";        // the unfinished line, kept while browsing history
    this.pending = "";      // input received while not at a prompt
    this.busy = true;       // no prompt until start(): input before that is buffered
    this.atLineStart = true;
    this.confirmLine = null; // while asking y/N: the line to run on "y" (the shell's `confirm`)
    this.continued = "";    // the lines of an unfinished command typed so far (an open quote)
    this.running = null;    // the AbortController of the line running
    this.waiting = false;   // a completion is being asked for: input waits
    this.tabs = 0;          // Tabs pressed in a row (the second lists the candidates)
    this.search = null;     // Ctrl-R: {query, index, failed, original}
    this.queued = [];       // streamed output not drawn yet: drawn once per animation frame
    this.status = 0;        // the last line's status
    this.inputWanted = null; // the running command reads the keyboard: resolves its next input
    this.inputLine = "";    // what is typed for it so far (cooked mode: sent on Enter)
    this.inputRaw = false;  // it asked for the keys as typed (raw mode: no echo, no editing)
    this.term = this.createTerminal(container);
  }

  createTerminal(container) {
    const term = new Terminal({
      cursorBlink: true,
      fontFamily: 'ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace',
      fontSize: 14,
      lineHeight: 1.15,
      scrollback: 5000,
      theme: {
        background: "#0f1115", foreground: "#d6dae1", cursor: "#d6dae1",
        selectionBackground: "#3a4356", red: "#ff6b6b", green: "#4ec27a",
        blue: "#5aa9ff", brightGreen: "#6fdc95", brightBlue: "#7fbcff",
      },
    });
    this.fitAddon = new FitAddon();
    term.loadAddon(this.fitAddon);
    term.open(container);
    term.attachCustomKeyEventHandler((event) => !this.isBrowserClipboardKey(event, term));
    term.onData((data) => this.feed(data));
    this.onResize = () => this.fit();
    window.addEventListener("resize", this.onResize);
    this.fitWhenLaidOut();
    return term;
  }

  // The terminal is gone (its tab closed): a line running is stopped, the keys stop coming.
  dispose() {
    this.running?.abort();
    this.giveInput(null);
    window.removeEventListener("resize", this.onResize);
    this.term.dispose();
  }

  // xterm would turn Ctrl-V into ^V and Ctrl-C into ^C; let the browser paste, and copy a
  // selection, instead (xterm's own paste/copy listeners then take over).
  isBrowserClipboardKey(event, term) {
    if (event.type !== "keydown" || !(event.ctrlKey || event.metaKey) || event.altKey) return false;
    const key = event.key.toLowerCase();
    return key === "v" || (key === "c" && term.hasSelection());
  }

  // The cell size is only right once the container is laid out and the web font has loaded.
  fitWhenLaidOut() {
    this.fit();
    requestAnimationFrame(() => this.fit());
    document.fonts?.ready.then(() => this.fit());
  }

  fit() {
    try {
      this.fitAddon.fit();
    } catch {
      // A container without a size (hidden) cannot be measured; the next resize fits it.
    }
  }

  focus() {
    this.term.focus();
  }

  // Show the first prompt and start accepting input.
  start(cwd = this.cwd) {
    this.cwd = cwd;
    this.busy = false;
    this.showPrompt();
    this.drain();
  }

  // Print text for the user; while a prompt is up, the text goes above it.
  write(text) {
    if (this.busy) return this.output(text);
    this.term.write(up(this.rowOf(this.shown)) + "\r\x1b[J");
    this.shown = 0;
    this.output(text);
    this.endLine();
    this.render();
  }

  // The shell's cwd can change outside the terminal (window.pyvfs.shell); keep the prompt true.
  setCwd(cwd) {
    if (!cwd || cwd === this.cwd) return;
    this.cwd = cwd;
    if (!this.busy) this.render();
  }

  // --- input -------------------------------------------------------------------------------

  feed(data) {
    // A lone Tab is a completion request; a Tab inside a paste is whitespace.
    if (data.length > 1) data = data.replace(/\t/g, " ");
    this.pending += data;
    if (this.busy) this.keepAfterInterrupt();
    this.drain();
  }

  // Ctrl-C while a command runs stops it (its call is aborted) and cancels what was typed
  // ahead (including the rest of a multi-line paste), as a terminal flushes its input on SIGINT.
  keepAfterInterrupt() {
    const at = this.pending.lastIndexOf("\x03");
    if (at < 0 || (this.inputWanted && this.inputRaw)) return; // raw: Ctrl-C is a key for it
    this.pending = "";
    if (this.running && !this.running.signal.aborted) {
      this.flushOutput();
      this.running.abort();
    }
    if (this.inputWanted) this.giveInput(null);
  }

  // At the prompt, keys edit the line; while a command runs, typed text waits for the next
  // prompt, unless the command reads the keyboard: then it is its input (cooked, as a tty).
  drain() {
    while (this.pending && (this.busy ? this.inputWanted : !this.waiting)) {
      if (this.busy && this.inputRaw) {
        const keys = this.pending;
        this.pending = "";
        this.giveInput(keys);
        continue;
      }
      const token = this.pending.match(TOKEN)[0];
      this.pending = this.pending.slice(token.length);
      if (this.busy) this.cooked(token);
      else this.handle(token);
    }
  }

  // --- the running command's input ---------------------------------------------------------

  // The command asks for what the user types (vfs.shell's `input`): the next line on Enter,
  // what is typed so far on Ctrl-D, or the end (null) on Ctrl-D at the start of a line; with
  // `raw`, whatever keys are typed next, as they are (escape sequences whole, nothing echoed).
  readInput({ raw = false } = {}) {
    return new Promise((resolve) => {
      this.inputWanted = resolve;
      this.inputRaw = raw === true;
      this.drain();
    });
  }

  cooked(token) {
    const action = KEYS[token];
    if (token === "\x04") this.giveInput(this.inputLine || null);
    else if (action === "enter") {
      this.term.write("\r\n");
      this.atLineStart = true;
      this.giveInput(`${this.inputLine}\n`);
    } else if (action === "backspace" && this.inputLine) {
      this.inputLine = clusters(this.inputLine).slice(0, -1).join("");
      this.term.write("\b \b");
    } else if (!/^[\x00-\x1f\x7f]/.test(token)) {
      this.inputLine += token;
      this.output(token);
    }
  }

  giveInput(data) {
    const resolve = this.inputWanted;
    this.inputWanted = null;
    this.inputRaw = false;
    this.inputLine = "";
    resolve?.(data);
  }

  handle(token) {
    if (this.search) return this.searchKey(token);
    if (KEYS[token] !== "tab") this.tabs = 0;
    const action = KEYS[token];
    if (action) this[action]();
    else if (!/^[\x00-\x1f\x7f]/.test(token)) this.insert(token);
    // Anything else (unbound control keys, F-keys, a lone Tab) is ignored.
  }

  interrupt() {
    this.end();
    this.term.write("^C\r\n");
    this.confirmLine = null;
    this.continued = "";
    this.status = INTERRUPTED;
    this.resetLine();
    this.showPrompt();
  }

  // --- completion (Tab) ------------------------------------------------------------------------

  async tab() {
    this.tabs++;
    const line = this.chars.join("");
    const cursorAt = this.chars.slice(0, this.cursor).join("").length;
    this.waiting = true;
    let found;
    try {
      found = await this.complete(line, cursorAt);
    } catch {
      found = null;
    }
    this.waiting = false;
    if (found?.candidates?.length) this.useCompletion(line, cursorAt, found);
    this.drain();
  }

  // One candidate: it replaces the word; several: their common prefix does, and the second Tab
  // in a row lists them under the line, in columns, as bash does.
  useCompletion(line, cursorAt, { start, candidates, names }) {
    const word = line.slice(start, cursorAt);
    const text = candidates.length === 1 ? candidates[0] : commonPrefix(candidates);
    if (text.length > word.length) {
      this.replaceBeforeCursor(line, start, cursorAt, text);
      return;
    }
    if (candidates.length > 1 && this.tabs >= 2) {
      this.end();
      this.term.write("\r\n");
      this.output(columns(names, this.term.cols));
      this.shown = 0;
      this.render();
    }
  }

  replaceBeforeCursor(line, start, cursorAt, text) {
    const after = line.slice(cursorAt);
    this.chars = clusters(line.slice(0, start) + text + after);
    this.cursor = this.chars.length - clusters(after).length;
    this.render();
  }

  // --- reverse incremental search (Ctrl-R) ------------------------------------------------------

  reverseSearch() {
    this.search = { query: "", index: this.history.length, failed: false, original: this.chars.join("") };
    this.render();
  }

  searchKey(token) {
    const search = this.search;
    const action = KEYS[token];
    if (action === "reverseSearch") return this.searchFrom(search.query, search.index - 1);
    if (action === "backspace") return this.searchFrom(search.query.slice(0, -1), this.history.length - 1);
    if (action === "interrupt" || token === "\x07") {
      this.search = null;
      return this.setLine(search.original);
    }
    if (!action && !/^[\x00-\x1f\x7f]/.test(token)) return this.searchFrom(search.query + token, search.index);
    // Any other key takes the line found and does what it does (Enter runs it).
    this.search = null;
    this.historyPos = Math.min(search.index, this.history.length);
    this.setLine(this.chars.join(""));
    if (action && action !== "interrupt") this[action]();
  }

  searchFrom(query, from) {
    const found = searchBack(this.history, query, from);
    this.search.query = query;
    this.search.failed = !found && query !== "";
    if (found) {
      this.search.index = found.index;
      this.chars = clusters(found.line);
      this.cursor = clusters(found.line.slice(0, found.line.lastIndexOf(query))).length;
    }
    this.render();
  }

  // --- history -----------------------------------------------------------------------------

  historyUp() {
    if (this.historyPos === 0) return;
    if (this.historyPos === this.history.length) this.draft = this.chars.join("");
    this.setLine(this.history[--this.historyPos]);
  }

  historyDown() {
    if (this.historyPos === this.history.length) return;
    this.historyPos++;
    const atDraft = this.historyPos === this.history.length;
    this.setLine(atDraft ? this.draft : this.history[this.historyPos]);
  }

  resetLine() {
    this.chars = [];
    this.cursor = 0;
    this.shown = 0;
    this.historyPos = this.history.length;
    this.draft = "";
    this.search = null;
  }

  // --- running -----------------------------------------------------------------------------

  enter() {
    const line = this.chars.join("");
    this.end();
    this.term.write("\r\n");
    if (this.confirmLine) return this.answer(line);
    this.resetLine();
    if (line.trim() || this.continued) this.execute(line, { interactive: true });
    else this.showPrompt();
  }

  // The answer to CONFIRM_PROMPT (kept out of the history): "y" or "yes" runs the line the
  // shell gave to confirm, anything else cancels.
  answer(line) {
    const confirmed = this.confirmLine;
    this.confirmLine = null;
    this.resetLine();
    if (/^\s*y(es)?\s*$/i.test(line)) return this.execute(confirmed, { interactive: false });
    this.output("cancelled\n");
    this.showPrompt();
  }

  // Runs a line (with the lines before it, when it continues an unfinished one); its output is
  // drawn as it streams in. `interactive`: the shell records and expands it (history, `!!`).
  async execute(line, { interactive }) {
    this.busy = true;
    const text = this.continued ? `${this.continued}\n${line}` : line;
    this.continued = "";
    const controller = (this.running = new AbortController());
    const onOutput = (stream, piece) => this.queueOutput(stream, piece);
    const input = (wanted) => this.readInput(wanted);
    const { rows, cols } = this.term;
    try {
      const result = await this.run(text, { signal: controller.signal, onOutput, input, interactive, rows, cols });
      this.flushOutput();
      await this.leaveAlternateScreen();
      if (result?.more) this.continued = text;
      else {
        // Stopped by Ctrl-C: the shell answers 130 (py_vfs/web/shell.py).
        if (controller.signal.aborted && result?.code === INTERRUPTED) this.interrupted(text);
        this.printResult(result);
      }
    } catch (error) {
      this.flushOutput();
      await this.leaveAlternateScreen();
      if (error?.name === "AbortError") this.interrupted(text);
      else this.printError(error);
    }
    this.running = null;
    this.inputWanted = null;
    this.inputRaw = false;
    this.inputLine = "";
    this.busy = false;
    this.showPrompt();
    this.drain();
  }

  // A pager stopped before it could leave the alternate screen (Ctrl-C between two keys, an
  // error): back to the normal screen and a visible cursor, as a shell's prompt needs.
  // (xterm parses what is written later: wait for it before asking which screen is up.)
  async leaveAlternateScreen() {
    await new Promise((resolve) => this.term.write("", resolve));
    const { active, alternate } = this.term.buffer;
    if (active !== alternate) return;
    this.term.write("\x1b[?1049l\x1b[?25h");
    this.atLineStart = true;
  }

  // A line stopped by Ctrl-C: bash prints ^C where the output stopped and the status is 130.
  // The shell recorded the line before it ran: so does the list here.
  interrupted(line) {
    if (line.trim() && line !== this.history.at(-1)) this.history = [...this.history, line];
    this.historyPos = this.history.length;
    this.term.write("^C");
    this.atLineStart = false;
    this.status = INTERRUPTED;
  }

  // Streamed output is drawn once per animation frame, however many pieces came in between.
  queueOutput(stream, text) {
    this.queued.push([stream, text]);
    if (this.queued.length === 1) requestAnimationFrame(() => this.flushOutput());
  }

  flushOutput() {
    const queued = this.queued;
    this.queued = [];
    for (const [stream, text] of queued) this.output(text, stream === "stderr" ? RED : "");
  }

  printResult({ stdout = "", stderr = "", code, cwd, scoop = null, confirm, history, home } = {}) {
    if (cwd) this.cwd = cwd;
    // The shell's list replaces ours, and Up starts again from its end (resetLine set the
    // position before the line ran, when the list was one line shorter).
    if (history) {
      this.history = history;
      this.historyPos = history.length;
    }
    if (home) this.home = home;
    if (code !== undefined) this.status = code;
    this.scoop = scoop; // the scoop the shell is in (`scoop NAME`), shown in the prompt
    this.output(stdout);
    // A command that asks first: its "not done" note is for scripts; the terminal asks instead.
    if (confirm) {
      this.confirmLine = confirm;
      return;
    }
    if (stderr) this.endLine();
    this.output(stderr, RED);
  }

  printError(error) {
    this.endLine();
    this.output(`${error?.message ?? error}\n`, RED);
  }

  output(text, color = "") {
    if (!text) return;
    const body = String(text).replace(/\r?\n/g, "\r\n");
    this.term.write(color ? color + body + RESET : body);
    // A pager that quits leaves the cursor at the start of a line (where the alternate screen
    // was entered, or on its cleared status line: `less -X`).
    this.atLineStart = /(?:\n|\r\x1b\[K|\x1b\[\?1049l)$/.test(body);
  }

  endLine() {
    if (!this.atLineStart) this.term.write("\r\n");
    this.atLineStart = true;
  }

  showPrompt() {
    this.endLine();
    this.shown = 0;
    this.render();
  }

  // What is drawn before the line (LineEditor.render).
  promptText() {
    if (this.search) {
      const { failed, query } = this.search;
      return `(${failed ? "failed " : ""}reverse-i-search)\`${query}': `;
    }
    if (this.confirmLine) return CONFIRM_PROMPT;
    if (this.continued) return CONTINUATION_PROMPT;
    return this.prompt(this.cwd, this.scoop, this.home);
  }
}
