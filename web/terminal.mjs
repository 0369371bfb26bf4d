// A line-editing terminal on top of xterm.js. There is no pty: this module is the "line
// discipline" (echo, editing, history) and hands whole lines to an async `run` callback.

import { Terminal } from "./vendor/xterm.mjs";
import { FitAddon } from "./vendor/addon-fit.mjs";

const RED = "\x1b[31m";
const RESET = "\x1b[0m";
const HISTORY_LIMIT = 1000;

// One input token: an escape sequence, a single control character, or a run of printable text
// (a run, so that a paste is inserted and echoed once rather than per character).
const TOKEN = /^(?:\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1bO[\s\S]|\x1b[\s\S]?|\r\n|[\x00-\x1f\x7f]|[^\x00-\x1f\x7f]+)/;

// xterm sends different sequences for the same key depending on modes and platform.
const KEYS = {
  "\r": "enter", "\n": "enter", "\r\n": "enter",
  "\x7f": "backspace", "\b": "backspace",
  "\x1b[3~": "deleteForward", "\x04": "deleteForward",
  "\x1b[D": "left", "\x1bOD": "left", "\x02": "left",
  "\x1b[C": "right", "\x1bOC": "right", "\x06": "right",
  "\x1b[1;5D": "wordLeft", "\x1b[1;3D": "wordLeft", "\x1bb": "wordLeft",
  "\x1b[1;5C": "wordRight", "\x1b[1;3C": "wordRight", "\x1bf": "wordRight",
  "\x1b[A": "historyUp", "\x1bOA": "historyUp",
  "\x1b[B": "historyDown", "\x1bOB": "historyDown",
  "\x1b[H": "home", "\x1bOH": "home", "\x1b[1~": "home", "\x1b[7~": "home", "\x01": "home",
  "\x1b[F": "end", "\x1bOF": "end", "\x1b[4~": "end", "\x1b[8~": "end", "\x05": "end",
  "\x15": "killLine", "\x0b": "killToEnd",
  "\x03": "interrupt", "\x0c": "clearScreen",
};

// Cell widths as xterm's default (Unicode 6) tables count them; emoji are 1 cell there.
const WIDE = [
  [0x1100, 0x115f], [0x2329, 0x232a], [0x2e80, 0x303e], [0x3040, 0xa4cf], [0xac00, 0xd7a3],
  [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f], [0xff00, 0xff60], [0xffe0, 0xffe6],
  [0x20000, 0x2fffd], [0x30000, 0x3fffd],
];
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u1160-\u11ff\u200b-\u200f\u2060-\u2063\ufeff]/u;
const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

function charWidth(ch) {
  if (ZERO_WIDTH.test(ch)) return 0;
  const cp = ch.codePointAt(0);
  return WIDE.some(([lo, hi]) => cp >= lo && cp <= hi) ? 2 : 1;
}

// Combining marks stay with their base character so the cursor never lands between them.
function clusters(text) {
  const out = [];
  for (const ch of text) {
    if (out.length && charWidth(ch) === 0) out[out.length - 1] += ch;
    else out.push(ch);
  }
  return out;
}

const up = (n) => (n > 0 ? `\x1b[${n}A` : "");
const right = (n) => (n > 0 ? `\x1b[${n}C` : "");
const isSpace = (ch) => /\s/.test(ch);

export class TerminalSession {
  constructor(container, { run, prompt, cwd = "/" }) {
    this.run = run;
    this.prompt = prompt;
    this.cwd = cwd;
    this.chars = [];        // the line being edited, one entry per cursor stop
    this.cursor = 0;        // index into chars
    this.shown = 0;         // cell offset of the on-screen cursor from the prompt's first cell
    this.history = [];
    this.historyPos = 0;
    this.draft = "";        // the unfinished line, kept while browsing history
    this.pending = "";      // input received while not at a prompt
    this.busy = true;       // no prompt until start(): input before that is buffered
    this.atLineStart = true;
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
    window.addEventListener("resize", () => this.fit());
    this.fitWhenLaidOut();
    return term;
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
    // A lone Tab is a completion request (unsupported); a Tab inside a paste is whitespace.
    if (data.length > 1) data = data.replace(/\t/g, " ");
    this.pending += data;
    if (this.busy) this.keepAfterInterrupt();
    this.drain();
  }

  // Ctrl-C while a command runs cannot stop it, but it does cancel what was typed ahead
  // (including the rest of a multi-line paste), as a terminal flushes its input on SIGINT.
  keepAfterInterrupt() {
    const at = this.pending.lastIndexOf("\x03");
    if (at > 0) this.pending = this.pending.slice(at);
  }

  drain() {
    while (!this.busy && this.pending) {
      const token = this.pending.match(TOKEN)[0];
      this.pending = this.pending.slice(token.length);
      this.handle(token);
    }
  }

  handle(token) {
    const action = KEYS[token];
    if (action) this[action]();
    else if (!/^[\x00-\x1f\x7f]/.test(token)) this.insert(token);
    // Anything else (unbound control keys, F-keys, a lone Tab) is ignored.
  }

  // --- editing -----------------------------------------------------------------------------

  insert(text) {
    const atEnd = this.cursor === this.chars.length;
    const parts = clusters(text);
    this.chars.splice(this.cursor, 0, ...parts);
    this.cursor += parts.length;
    if (atEnd) this.echoAppended(text);
    else this.render();
  }

  // Appending needs no redraw; it also keeps a line taller than the screen (a long paste)
  // intact, since a redraw cannot move the cursor above the top of the viewport.
  echoAppended(text) {
    const { end } = this.layout();
    this.term.write(text + this.wrapFix(end));
    this.shown = end;
  }

  backspace() {
    if (this.cursor === 0) return;
    this.chars.splice(--this.cursor, 1);
    this.render();
  }

  deleteForward() {
    if (this.cursor === this.chars.length) return;
    this.chars.splice(this.cursor, 1);
    this.render();
  }

  left() {
    this.moveTo(this.cursor - 1);
  }

  right() {
    this.moveTo(this.cursor + 1);
  }

  home() {
    this.moveTo(0);
  }

  end() {
    this.moveTo(this.chars.length);
  }

  wordLeft() {
    let i = this.cursor;
    while (i > 0 && isSpace(this.chars[i - 1])) i--;
    while (i > 0 && !isSpace(this.chars[i - 1])) i--;
    this.moveTo(i);
  }

  wordRight() {
    let i = this.cursor;
    while (i < this.chars.length && isSpace(this.chars[i])) i++;
    while (i < this.chars.length && !isSpace(this.chars[i])) i++;
    this.moveTo(i);
  }

  moveTo(index) {
    const clamped = Math.max(0, Math.min(index, this.chars.length));
    if (clamped === this.cursor) return;
    this.cursor = clamped;
    this.render();
  }

  killLine() {
    this.setLine("");
  }

  killToEnd() {
    this.chars.length = this.cursor;
    this.render();
  }

  setLine(text) {
    this.chars = clusters(text);
    this.cursor = this.chars.length;
    this.render();
  }

  interrupt() {
    this.end();
    this.term.write("^C\r\n");
    this.resetLine();
    this.showPrompt();
  }

  clearScreen() {
    this.term.write("\x1b[H\x1b[2J");
    this.shown = 0;
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

  remember(line) {
    if (line.trim() && line !== this.history.at(-1)) this.history.push(line);
    if (this.history.length > HISTORY_LIMIT) this.history.shift();
  }

  resetLine() {
    this.chars = [];
    this.cursor = 0;
    this.shown = 0;
    this.historyPos = this.history.length;
    this.draft = "";
  }

  // --- running -----------------------------------------------------------------------------

  enter() {
    const line = this.chars.join("");
    this.end();
    this.term.write("\r\n");
    this.remember(line);
    this.resetLine();
    if (line.trim()) this.execute(line);
    else this.showPrompt();
  }

  async execute(line) {
    this.busy = true;
    try {
      this.printResult(await this.run(line));
    } catch (error) {
      this.printError(error);
    }
    this.busy = false;
    this.showPrompt();
    this.drain();
  }

  printResult({ stdout = "", stderr = "", cwd, scoop = null } = {}) {
    if (cwd) this.cwd = cwd;
    this.scoop = scoop; // the scoop the shell is in (`scoop NAME`), shown in the prompt
    this.output(stdout);
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
    this.atLineStart = body.endsWith("\n");
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

  // --- drawing -----------------------------------------------------------------------------

  promptText() {
    return this.prompt(this.cwd, this.scoop);
  }

  // Cell offsets (from the prompt's first cell) of the cursor and of the end of the line.
  // A wide character that would straddle the right edge is pushed to the next row, as xterm does.
  layout() {
    const cols = this.term.cols;
    let pos = 0;
    let cursor = 0;
    const place = (ch) => {
      const width = charWidth(ch);
      if (width === 2 && pos % cols === cols - 1) pos++;
      pos += width;
    };
    for (const ch of this.promptText().replace(ANSI, "")) place(ch);
    this.chars.forEach((ch, i) => {
      if (i === this.cursor) cursor = pos;
      place(ch);
    });
    if (this.cursor === this.chars.length) cursor = pos;
    return { cursor, end: pos };
  }

  rowOf(offset) {
    return Math.floor(offset / this.term.cols);
  }

  // After writing up to the right edge xterm leaves the cursor on that row until the next
  // character; writing a space and backing over it makes the position match the layout math.
  wrapFix(end) {
    return end > 0 && end % this.term.cols === 0 ? " \b" : "";
  }

  // Redraw prompt and line from the prompt's first cell, then put the cursor in place.
  render() {
    const { cursor, end } = this.layout();
    const toStart = up(this.rowOf(this.shown)) + "\r";
    const line = this.promptText() + this.chars.join("") + this.wrapFix(end) + "\x1b[J";
    const toCursor = up(this.rowOf(end) - this.rowOf(cursor)) + "\r" + right(cursor % this.term.cols);
    this.term.write(toStart + line + toCursor);
    this.shown = cursor;
  }
}
