// The call sequences of the Node differential suite (tests/e2e/test_node_differential.py): the
// same sequences run against Node's real node:fs/promises on a temporary directory
// (node_fs_reference.mjs) and against py_vfs's JS API in Chromium, and every result and error
// is compared. A call is [method, ...args]; an argument {$p: "a/b"} is the path below the
// sequence's own directory, {$url: "a"} the same as a file: URL, {$buf: "a"} as UTF-8 bytes,
// {$bytes: [...]} a Uint8Array, {$c: "X_OK"} one of fs.constants. A call [{$h: i}, method,
// ...args] calls `method` on what call i of the sequence resolved to (a FileHandle, a Dir);
// an async iterable result (readLines) is compared as the array of its items, and the handles
// a sequence leaves open are closed after it. A call [{$unlessDir: i}, ...call] is skipped on
// both sides when its argument i names a directory. No imports: the page loads this file as it
// is.

export const SEQUENCES = [
  // writeFile/appendFile flags
  [["writeFile", { $p: "f" }, "one"], ["writeFile", { $p: "f" }, "two", { flag: "wx" }],
    ["writeFile", { $p: "g" }, "new", { flag: "wx" }], ["readFile", { $p: "g" }, "utf8"],
    ["writeFile", { $p: "f" }, "TW", { flag: "r+" }], ["readFile", { $p: "f" }, "utf8"],
    ["writeFile", { $p: "missing" }, "x", { flag: "r+" }], ["appendFile", { $p: "f" }, "+", { flag: "ax" }],
    ["appendFile", { $p: "h" }, "h", { flag: "ax" }], ["writeFile", { $p: "f" }, "!", { flag: "a" }],
    ["writeFile", { $p: "f" }, "?", { flag: "a+" }], ["readFile", { $p: "f" }, "utf8"],
    ["writeFile", { $p: "f" }, "x", { flag: "zz" }], ["readFile", { $p: "f" }, { flag: "r+" }],
    ["readFile", { $p: "new" }, { encoding: "utf8", flag: "a+" }], ["readFile", { $p: "new" }, "utf8"],
    ["appendFile", { $p: "m" }, "m", { mode: 0o600 }], ["stat", { $p: "m" }],
    ["writeFile", { $p: "f" }, "x", { flag: "r" }]],
  // encodings
  [["writeFile", { $p: "e" }, "68656c6c6fzz", "hex"], ["readFile", { $p: "e" }, "utf8"],
    ["readFile", { $p: "e" }, "base64"], ["readFile", { $p: "e" }, "base64url"],
    ["readFile", { $p: "e" }, "hex"], ["readFile", { $p: "e" }, { encoding: "utf16le" }],
    ["writeFile", { $p: "e" }, "aGk/Pz8-_w", "base64"], ["readFile", { $p: "e" }],
    ["writeFile", { $p: "e" }, "aGk_-w", "base64url"], ["readFile", { $p: "e" }],
    ["writeFile", { $p: "e" }, "héllo ☃", "latin1"], ["readFile", { $p: "e" }],
    ["writeFile", { $p: "e" }, "héllo ☃", "ascii"], ["readFile", { $p: "e" }, "ascii"],
    ["writeFile", { $p: "e" }, "hé☃", "ucs2"], ["readFile", { $p: "e" }], ["readFile", { $p: "e" }, "UTF-16LE"],
    ["writeFile", { $p: "e" }, { $bytes: [0xff, 0xc3, 0x28, 0x61, 0xe2, 0x82] }], ["readFile", { $p: "e" }, "utf8"],
    ["readFile", { $p: "e" }, "binary"], ["readFile", { $p: "e" }, "nope"], ["appendFile", { $p: "e" }, "00ff", "hex"],
    ["readFile", { $p: "e" }, "hex"]],
  // mkdir and readdir, recursive
  [["mkdir", { $p: "a/b/c" }, { recursive: true }], ["mkdir", { $p: "a/b" }, { recursive: true }],
    ["mkdir", { $p: "a/x" }], ["mkdir", { $p: "a/x" }], ["mkdir", { $p: "q/r" }],
    ["writeFile", { $p: "a/b/c/f" }, "1"], ["writeFile", { $p: "a/z" }, "2"], ["writeFile", { $p: "b" }, "3"],
    ["readdir", { $p: "" }, { recursive: true }], ["readdir", { $p: "a" }, { recursive: true, withFileTypes: true }],
    ["readdir", { $p: "a" }, { withFileTypes: true }], ["readdir", { $p: "b" }, { recursive: true }],
    ["readdir", { $p: "nope" }, { recursive: true }], ["mkdir", { $p: "b/c" }, { recursive: true }]],
  // Stats
  [["writeFile", { $p: "s" }, "x".repeat(5000)], ["stat", { $p: "s" }], ["mkdir", { $p: "d" }], ["stat", { $p: "d" }],
    ["symlink", "s", { $p: "l" }], ["lstat", { $p: "l" }], ["stat", { $p: "l" }], ["stat", { $p: "nope" }]],
  // paths as URL and bytes
  [["writeFile", { $url: "u" }, "url"], ["readFile", { $buf: "u" }, "utf8"], ["stat", { $url: "u" }],
    ["readFile", { $url: "nope" }], ["readFile", new URL("http://example.com/x")], ["readFile", 42],
    ["readdir", { $url: "" }], ["readFile", { $p: "a\u0000b" }]],
  // FileHandle: reads and writes at positions and at the handle's own, stat, truncate, then
  // every call on a closed handle
  [["writeFile", { $p: "f" }, "hello world"], ["open", { $p: "f" }, "r+"],
    [{ $h: 1 }, "read", { $bytes: [0, 0, 0, 0, 0] }, 0, 5, null], [{ $h: 1 }, "read", { $bytes: [0, 0, 0, 0, 0, 0, 0] }, 0, 7, null],
    [{ $h: 1 }, "read", { $bytes: [0, 0] }, 0, 2, null], [{ $h: 1 }, "write", "HE", 0],
    [{ $h: 1 }, "read", { $bytes: [0, 0, 0, 0, 0] }, 1, 4, 0], [{ $h: 1 }, "read", { buffer: { $bytes: [0, 0, 0] }, position: 6 }],
    [{ $h: 1 }, "write", "!"], [{ $h: 1 }, "write", { $bytes: [65, 66, 67, 68] }, 1, 2, 3], [{ $h: 1 }, "stat"],
    [{ $h: 1 }, "readFile", "utf8"], [{ $h: 1 }, "truncate", 4], [{ $h: 1 }, "stat"], [{ $h: 1 }, "read", { $bytes: [0, 0, 0, 0, 0, 0] }, 0, 6, 0],
    [{ $h: 1 }, "writev", [{ $bytes: [49] }, { $bytes: [50, 51] }], 2], [{ $h: 1 }, "sync"], ["readFile", { $p: "f" }, "utf8"],
    [{ $h: 1 }, "close"], ["readFile", { $p: "f" }, "utf8"],
    [{ $h: 1 }, "read", { $bytes: [0] }, 0, 1, 0], [{ $h: 1 }, "write", "x"], [{ $h: 1 }, "stat"],
    [{ $h: 1 }, "truncate", 1], [{ $h: 1 }, "sync"], [{ $h: 1 }, "close"]],
  // FileHandle: open flags, two handles on one file, readLines
  [["open", { $p: "nope" }, "r"], ["writeFile", { $p: "f" }, "abc"], ["open", { $p: "f" }, "wx"],
    ["open", { $p: "f" }, "r"], [{ $h: 3 }, "write", "x"], ["open", { $p: "f" }, "a"],
    [{ $h: 5 }, "write", "Z", 0], [{ $h: 3 }, "readFile", "utf8"], ["open", { $p: "g" }, "wx"],
    [{ $h: 8 }, "write", "new"], [{ $h: 8 }, "read", { $bytes: [0] }, 0, 1, 0], [{ $h: 8 }, "close"], ["readFile", { $p: "g" }, "utf8"],
    ["open", { $p: "f" }, "w+"], [{ $h: 13 }, "stat"], [{ $h: 13 }, "writeFile", "one\ntwo\r\nthree"],
    ["open", { $p: "f" }], [{ $h: 16 }, "readLines"], [{ $h: 16 }, "read", { $bytes: [0, 0] }, 0, 2, 1],
    ["open", { $p: "f" }, "zz"], ["open", { $p: "nope/x" }, "w"], ["open", { $p: "" }, "w"],
    ["open", { $p: "f" }, "a+"], [{ $h: 22 }, "read", { $bytes: [0, 0, 0] }, 0, 3, null],
    [{ $h: 22 }, "truncate", 2], [{ $h: 22 }, "appendFile", "!"], [{ $h: 22 }, "close"], ["readFile", { $p: "f" }, "utf8"],
    ["open", { $p: "f" }, "r"], [{ $h: 28 }, "truncate", 0]],
  // FileHandle: every open flag on an existing file and on a missing one (then a write at 1,
  // a read at 0, a read and a write at the handle's position, stat, close, the file after)
  ...["r", "rs", "r+", "rs+", "w", "wx", "w+", "wx+", "a", "ax", "a+", "ax+", "as", "as+", 66, 1090, 0].map((flag) =>
    [["writeFile", { $p: "f" }, "abcdef"], ["open", { $p: "f" }, flag], ["open", { $p: "new" }, flag],
      ...[1, 2].flatMap((h) => [[{ $h: h }, "write", "XY", 1], [{ $h: h }, "read", { $bytes: [0, 0, 0, 0] }, 0, 4, 0],
        [{ $h: h }, "read", { $bytes: [0, 0] }, 0, 2, null], [{ $h: h }, "write", "Z"], [{ $h: h }, "stat"], [{ $h: h }, "close"]]),
      ["readFile", { $p: "f" }, "utf8"], ["readFile", { $p: "new" }, "utf8"]]),
  // FileHandle text in every encoding: write(string, position, encoding), readFile, writeFile
  // and appendFile (an unknown name writes UTF-8 in write, and is refused by the others)
  [["open", { $p: "t" }, "w+"], [{ $h: 0 }, "write", "68656c6c6f", null, "hex"], [{ $h: 0 }, "write", "IQ==", null, "base64"],
    [{ $h: 0 }, "write", "hé", null, "latin1"], [{ $h: 0 }, "write", "hé☃", null, "utf16le"], [{ $h: 0 }, "write", "ab", null, "nope"],
    [{ $h: 0 }, "write", "686", null, "Hex"], [{ $h: 0 }, "write", "x", null, "UCS2"], [{ $h: 0 }, "sync"], ["readFile", { $p: "t" }],
    ["open", { $p: "t" }, "r"], [{ $h: 10 }, "readFile", "hex"], ["open", { $p: "t" }, "r"], [{ $h: 12 }, "readFile", { encoding: "base64url" }],
    ["open", { $p: "t" }, "r"], [{ $h: 14 }, "readFile", "latin1"], ["open", { $p: "t" }, "r"], [{ $h: 16 }, "readFile", "utf16le"],
    ["open", { $p: "t" }, "r"], [{ $h: 18 }, "readFile", "ascii"], [{ $h: 18 }, "readFile", "nope"],
    [{ $h: 0 }, "writeFile", "ff00f", "hex"], [{ $h: 0 }, "appendFile", "QQ", { encoding: "BASE64" }],
    [{ $h: 0 }, "writeFile", "x", { encoding: "nope" }], [{ $h: 0 }, "close"], ["readFile", { $p: "t" }, "hex"]],
  // copyFile's checks in Node's order (libuv's: the source, then the destination), a directory
  // as the source onto a name that is free (where Node removes what it made, as nothing here)
  [["mkdir", { $p: "d" }], ["writeFile", { $p: "f" }, "x"], ["copyFile", { $p: "nope" }, { $p: "f" }, 1],
    ["copyFile", { $p: "f" }, { $p: "f/x" }], ["copyFile", { $p: "f/x" }, { $p: "nope/x" }], ["copyFile", { $p: "d" }, { $p: "new" }],
    ["copyFile", { $p: "d" }, { $p: "new" }, 1], ["copyFile", { $p: "d" }, { $p: "nope/x" }], ["copyFile", { $p: "d" }, { $p: "f/x" }],
    ["copyFile", { $p: "d" }, { $p: "d" }], ["copyFile", { $p: "d" }, { $p: "f" }, 1], ["copyFile", { $p: "f" }, { $p: "d" }],
    ["copyFile", { $p: "f" }, { $p: "d" }, 1], ["copyFile", { $p: "f" }, { $p: "f" }], ["copyFile", { $p: "f" }, { $p: "f" }, 1],
    ["readdir", { $p: "" }], ["readFile", { $p: "f" }, "utf8"]],
  // opendir and Dir
  [["mkdir", { $p: "d" }], ["writeFile", { $p: "d/x" }, "1"], ["opendir", { $p: "d" }],
    [{ $h: 2 }, "read"], [{ $h: 2 }, "read"], [{ $h: 2 }, "close"], [{ $h: 2 }, "read"], [{ $h: 2 }, "close"],
    ["opendir", { $p: "nope" }], ["opendir", { $p: "d/x" }]],
  // access, constants, mkdtemp, chown, statfs, link, lutimes
  [["writeFile", { $p: "f" }, "x"], ["access", { $p: "f" }], ["access", { $p: "f" }, { $c: "R_OK" }],
    ["access", { $p: "f" }, { $c: "W_OK" }], ["access", { $p: "f" }, { $c: "X_OK" }], ["access", { $p: "nope" }],
    ["chmod", { $p: "f" }, 0o755], ["access", { $p: "f" }, { $c: "X_OK" }],
    ["mkdtemp", { $p: "tmp-" }], ["mkdtemp", { $p: "nope/tmp-" }],
    ["chown", { $p: "f" }, -1, -1], ["chown", { $p: "nope" }, -1, -1], ["lchown", { $p: "f" }, 1000, 1000],
    ["statfs", { $p: "" }], ["statfs", { $p: "nope" }],
    ["link", { $p: "nope" }, { $p: "g" }], ["link", { $p: "f" }, { $p: "f" }], ["link", { $p: "f" }, { $p: "no/g" }],
    ["lutimes", { $p: "f" }, 1000, 2000], ["stat", { $p: "f" }], ["lutimes", { $p: "nope" }, 1, 1]],
];

// A seeded generator of call sequences over a few names (mulberry32).
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ["a", "b", "d", "d/x", "d/e", "d/e/y", "nope/z"];
const FLAGS = ["w", "wx", "a", "ax", "r+", "a+", "w+"];
const OPEN_FLAGS = ["r", "r+", "w", "wx", "w+", "a", "ax", "a+"];
const ENCODINGS = ["utf8", "hex", "base64", "latin1", "utf16le", "ascii"];

// The generated sequences mix path calls and FileHandle calls, but stay away from the
// deliberate differences (docs/api.md, "Differences from Node") that would make the two sides'
// files differ from there on: a handle's writes reach the path's readers at sync()/close() (so
// a handle with writes pending is synced before any path call), a handle follows its path (so
// nothing removes or moves a name while a handle is open: no rm, rmdir, unlink or rename then),
// and a copyFile that fails on a directory leaves the destination as it was (so no copyFile
// from a directory is made: each side skips it when its source is one).
export function generated(seed, count, length) {
  const next = random(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const maybe = (value) => (next() < 0.5 ? [value] : []);
  const p = () => ({ $p: pick(NAMES) });
  const text = () => ["hi", "héllo", "68656c6c6f", "aGk=", ""][Math.floor(next() * 5)];
  const size = () => Math.floor(next() * 8);
  const at = () => pick([null, 0, 1, 3, 20]);
  const zeros = (n) => ({ $bytes: new Array(n).fill(0) });
  const makers = [
    () => ["writeFile", p(), text(), ...maybe({ flag: pick(FLAGS), encoding: pick(ENCODINGS) })],
    () => ["appendFile", p(), text(), ...maybe({ flag: pick(["a", "ax", "a+"]) })],
    () => ["readFile", p(), ...maybe(pick(ENCODINGS))],
    () => ["mkdir", p(), ...maybe({ recursive: next() < 0.5 })],
    () => [{ $unlessDir: 0 }, "copyFile", p(), p(), ...maybe(1)],
    () => ["stat", p()],
    () => ["readdir", p(), ...maybe({ recursive: next() < 0.5, withFileTypes: next() < 0.5 })],
    () => ["access", p(), ...maybe(pick([0, 2, 4]))],
    () => ["truncate", p(), Math.floor(next() * 4)],
    () => ["open", p(), pick(OPEN_FLAGS), ...maybe(pick([0o600, 0o644]))],
  ];
  const moves = [
    () => ["rm", p(), ...maybe({ recursive: next() < 0.5, force: next() < 0.5 })],
    () => ["rmdir", p()],
    () => ["unlink", p()],
    () => ["rename", p(), p()],
  ];
  // A call on the handle `h`, and whether it leaves writes pending.
  const handleCalls = [
    (h) => [[h, "read", zeros(4), 0, 4, at()], false],
    (h) => { const n = size(); return [[h, "read", zeros(n), 0, n, at()], false]; },
    (h) => [[h, "read", { buffer: zeros(3), position: at() }], false],
    (h) => [[h, "write", text(), ...maybe(at())], true],
    (h) => [[h, "write", { $bytes: [65, 66, 67, 68] }, 1, 2, at()], true],
    (h) => [[h, "writev", [{ $bytes: [49] }, { $bytes: [50, 51] }], at()], true],
    (h) => [[h, "readv", [zeros(1), zeros(2)], at()], false],
    (h) => [[h, "readFile", ...maybe("utf8")], false],
    (h) => [[h, "writeFile", text()], true],
    (h) => [[h, "appendFile", text()], true],
    (h) => [[h, "truncate", Math.floor(next() * 6)], false],
    (h) => [[h, "stat"], false],
    (h) => [[h, "chmod", pick([0o600, 0o755])], false],
    (h) => [[h, pick(["sync", "datasync"])], false],
    (h) => [[h, "close"], false],
  ];
  return Array.from({ length: count }, () => {
    const calls = [];
    const open = new Set(); // the calls that opened a handle (if they did)
    const pending = new Set(); // those with writes not synced
    const add = (call) => { calls.push(call); return calls.length - 1; };
    while (calls.length < length) {
      if (open.size > 0 && next() < 0.5) {
        const i = pick([...open]);
        const [call, writes] = pick(handleCalls)({ $h: i });
        add(call);
        if (call[1] === "close") { open.delete(i); pending.delete(i); }
        else if (writes) pending.add(i);
        else if (["sync", "datasync", "truncate"].includes(call[1])) pending.delete(i);
        continue;
      }
      for (const i of pending) add([{ $h: i }, "sync"]);
      pending.clear();
      const call = open.size === 0 && next() < 0.3 ? pick(moves)() : pick(makers)();
      const i = add(call);
      if (call[0] === "open") open.add(i);
    }
    return calls;
  });
}

// `value` with the sequence's directory written as <root> and mkdtemp's six letters as XXXXXX.
function plain(value, root) {
  if (value === undefined) return { $undefined: true };
  if (value === null) return null;
  const kind = value.constructor?.name;
  if (kind === "FileHandle") return { fileHandle: typeof value.fd };
  if (kind === "Dir") return { dir: plain(value.path, root) };
  if (typeof value === "string") return value.split(root).join("<root>").replace(/tmp-[A-Za-z0-9]{6}/g, "tmp-XXXXXX");
  if (value instanceof Uint8Array) return { $bytes: Array.from(value) };
  if (Array.isArray(value)) return value.map((item) => plain(item, root));
  if (value && typeof value.isFile === "function") {
    const kind = ["isFile", "isDirectory", "isSymbolicLink", "isBlockDevice", "isCharacterDevice", "isFIFO", "isSocket"]
      .filter((name) => value[name]()).join(",");
    if ("name" in value && "parentPath" in value) {
      return { dirent: kind, name: value.name, parentPath: plain(value.parentPath, root), path: plain(value.path, root) };
    }
    return { stats: kind, size: value.isDirectory() ? "dir" : value.size, perm: value.mode & 0o7777,
      type: value.mode & 0o170000, nlink: value.isDirectory() ? "dir" : value.nlink, blksize: value.blksize, rdev: value.rdev,
      blocks: value.isFile() ? value.blocks : "-", ino: typeof value.ino, mtimeMs: value.mtimeMs < 1e7 ? value.mtimeMs : "now",
      dates: [value.atime, value.mtime, value.ctime, value.birthtime].every((d) => d instanceof Date) };
  }
  if (value && typeof value === "object" && "bsize" in value) {
    return { statfs: Object.keys(value).sort(), numbers: Object.values(value).every(Number.isInteger) };
  }
  if (value && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item, root)]));
  }
  return value;
}

function argument(value, root, constants) {
  if (value && typeof value === "object" && !(value instanceof URL)) {
    if ("$p" in value) return value.$p ? `${root}/${value.$p}` : root;
    if ("$url" in value) return new URL(`file://${root}/${value.$url}`);
    if ("$buf" in value) return new TextEncoder().encode(`${root}/${value.$buf}`);
    if ("$bytes" in value) return new Uint8Array(value.$bytes);
    if ("$c" in value) return constants[value.$c];
    if (Array.isArray(value)) return value.map((item) => argument(item, root, constants));
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, argument(item, root, constants)]));
  }
  return value;
}

async function collect(iterable) {
  const items = [];
  for await (const item of iterable) items.push(item);
  return items;
}

// Runs every sequence against `fs` (node:fs/promises, or the JS API), each in its own
// directory below `root`; resolves to the outcomes, one list per sequence.
export async function runAll(fs, root, sequences, constants) {
  const out = [];
  for (const [n, sequence] of sequences.entries()) {
    const dir = `${root}/s${n}`;
    await fs.rm(dir, { recursive: true, force: true });
    await fs.mkdir(dir, { recursive: true });
    const outcomes = [];
    const results = [];
    for (const whole of sequence) {
      const guard = whole[0]?.$unlessDir;
      const call = guard === undefined ? whole : whole.slice(1);
      const [target, method, ...args] = call[0]?.$h === undefined ? [fs, ...call] : [results[call[0].$h], ...call.slice(1)];
      results.push(undefined);
      if (target === undefined) { // the open it names failed (both sides say how already)
        outcomes.push({ noHandle: true });
        continue;
      }
      if (guard !== undefined && await fs.stat(argument(args[guard], dir, constants)).then((s) => s.isDirectory(), () => false)) {
        outcomes.push({ skipped: "a directory" });
        continue;
      }
      try {
        let value = await target[method](...args.map((arg) => argument(arg, dir, constants)));
        results[results.length - 1] = value;
        if (method === "readLines") value = await collect(value);
        outcomes.push({ value: plain(value, dir) });
      } catch (error) {
        outcomes.push({ error: { name: error.name, code: plain(error.code, dir), syscall: plain(error.syscall, dir),
          message: plain(error.message, dir), path: plain(error.path, dir), dest: plain(error.dest, dir) } });
      }
    }
    for (const value of results) {
      if (value?.constructor?.name === "FileHandle") await value.close();
    }
    out.push(outcomes);
  }
  return out;
}
