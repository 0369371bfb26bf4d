// Helpers of the terminal's line discipline (web/app/terminal.mjs) that need no terminal: the
// common prefix of completions, bash's column layout of a completion listing, and the reverse
// incremental search through the history (Ctrl-R).

// The longest text every candidate starts with.
export function commonPrefix(candidates) {
  if (!candidates.length) return "";
  let prefix = candidates[0];
  for (const candidate of candidates.slice(1)) {
    let i = 0;
    while (i < prefix.length && i < candidate.length && prefix[i] === candidate[i]) i++;
    prefix = prefix.slice(0, i);
  }
  return prefix;
}

// The names in columns as bash lists completions (and ls -C lays out): sorted down the columns,
// each column as wide as the longest name plus two spaces, as many columns as fit in `width`.
export function columns(names, width) {
  const cell = Math.max(...names.map((name) => [...name].length)) + 2;
  const perRow = Math.max(1, Math.floor(width / cell));
  const rows = Math.ceil(names.length / perRow);
  const lines = [];
  for (let row = 0; row < rows; row++) {
    let line = "";
    for (let col = 0; col * rows + row < names.length; col++) {
      const name = names[col * rows + row];
      const last = (col + 1) * rows + row >= names.length;
      line += last ? name : name + " ".repeat(cell - [...name].length);
    }
    lines.push(line);
  }
  return lines.join("\n") + "\n";
}

// Ctrl-R: the newest history line at or before `from` that contains `query`, as {index, line},
// or null.
export function searchBack(history, query, from) {
  for (let i = Math.min(from, history.length - 1); i >= 0; i--) {
    if (history[i].includes(query)) return { index: i, line: history[i] };
  }
  return null;
}

// A name (the prompt's cwd) as the shell shows names (py_vfs/shell/format.py, shown_name): as
// it is, unless it holds a character the terminal would interpret (Python's "not printable":
// control and format characters, separators but the space); then single-quoted as GNU ls
// quotes it, such characters written $'\033' ($'\n' for the ones C names by a letter).
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;
const LETTERS = { "\x07": "a", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t", "\v": "v" };

export function shownName(name) {
  if (!UNPRINTABLE.test(name)) return name;
  let out = "'";
  let escaping = false; // inside a $'...' section
  for (const ch of name) {
    if (ch === "'") {
      out += "'\\''";
      escaping = false;
    } else if (LETTERS[ch] || UNPRINTABLE.test(ch)) {
      if (!escaping) out += "'$'";
      escaping = true;
      const bytes = [...new TextEncoder().encode(ch)];
      out += LETTERS[ch] ? `\\${LETTERS[ch]}` : bytes.map((b) => `\\${b.toString(8).padStart(3, "0")}`).join("");
    } else {
      if (escaping) out += "''";
      escaping = false;
      out += ch;
    }
  }
  return `${out}'`;
}
