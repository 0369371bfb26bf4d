// A small line diff for the timeline's "diff against now": the longest common subsequence of
// the lines between the common head and tail, bounded so that a diff never costs more than
// MAX_CELLS steps of work; past that the middle is shown as removed then added, and said so.

const MAX_CELLS = 4_000_000;

// [{op: " " | "-" | "+", text}] from `before` to `after` (strings), and whether the middle was
// too large to align line by line (`rough`).
export function lineDiff(before, after) {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head &&
         a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const oldMiddle = a.slice(head, a.length - tail);
  const newMiddle = b.slice(head, b.length - tail);
  const rough = oldMiddle.length * newMiddle.length > MAX_CELLS;
  const middle = rough
    ? [...oldMiddle.map((text) => ({ op: "-", text })), ...newMiddle.map((text) => ({ op: "+", text }))]
    : aligned(oldMiddle, newMiddle);
  const same = (text) => ({ op: " ", text });
  return { lines: [...a.slice(0, head).map(same), ...middle, ...a.slice(a.length - tail).map(same)], rough };
}

function splitLines(text) {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

// The classic table of LCS lengths (suffixes), then one walk from the top left. Within the
// bound the shorter side has at most 2,000 lines, so the lengths fit in 16 bits.
function aligned(a, b) {
  const width = b.length + 1;
  const table = new Uint16Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j]
        ? table[(i + 1) * width + j + 1] + 1
        : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: " ", text: a[i] });
      i++;
      j++;
    } else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) {
      out.push({ op: "-", text: a[i++] });
    } else {
      out.push({ op: "+", text: b[j++] });
    }
  }
  while (i < a.length) out.push({ op: "-", text: a[i++] });
  while (j < b.length) out.push({ op: "+", text: b[j++] });
  return out;
}

// The diff's lines with long runs of unchanged lines folded to `context` lines around each
// change: [{op, text}] and {op: "…", count} for a fold.
export function folded(lines, context = 3) {
  const near = new Uint8Array(lines.length);
  lines.forEach((line, index) => {
    if (line.op === " ") return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) near[k] = 1;
  });
  const out = [];
  for (let index = 0; index < lines.length;) {
    if (near[index]) {
      out.push(lines[index++]);
      continue;
    }
    let end = index;
    while (end < lines.length && !near[end]) end++;
    out.push({ op: "…", count: end - index });
    index = end;
  }
  return out;
}
