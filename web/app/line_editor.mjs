// The line editing and drawing of the terminal (web/app/terminal.mjs) on xterm.js: the line as
// cursor stops, the keys that edit it, and the redraw of prompt and line that keeps the cursor
// right across wrapped rows and wide characters. A subclass sets `term` and `promptText()`.

// One input token: an escape sequence, a single control character, or a run of printable text
// (a run, so that a paste is inserted and echoed once rather than per character).
export const TOKEN = /^(?:\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1bO[\s\S]|\x1b[\s\S]?|\r\n|[\x00-\x1f\x7f]|[^\x00-\x1f\x7f]+)/;

// xterm sends different sequences for the same key depending on modes and platform.
export const KEYS = {
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
  "\t": "tab", "\x12": "reverseSearch",
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
export function clusters(text) {
  const out = [];
  for (const ch of text) {
    if (out.length && charWidth(ch) === 0) out[out.length - 1] += ch;
    else out.push(ch);
  }
  return out;
}

export const up = (n) => (n > 0 ? `\x1b[${n}A` : "");
const right = (n) => (n > 0 ? `\x1b[${n}C` : "");
const isSpace = (ch) => /\s/.test(ch);

export class LineEditor {
  constructor() {
    this.chars = [];        // the line being edited, one entry per cursor stop
    this.cursor = 0;        // index into chars
    this.shown = 0;         // cell offset of the on-screen cursor from the prompt's first cell
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

  clearScreen() {
    this.term.write("\x1b[H\x1b[2J");
    this.shown = 0;
    this.render();
  }

  // --- drawing -----------------------------------------------------------------------------

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
