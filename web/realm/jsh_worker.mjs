// The realm a .jsh script runs in (docs/scripts.md): a dedicated Web Worker per run, started by
// the Python worker (web/worker/jsh_host.mjs) for the whole disk's shell, or inside a scoop's realm
// frame (web/realm/frame.js, web/worker/realm_pool.mjs) for a scoop's: then its messages go over the
// port the frame hands it, not the worker's own. The script's text is the body of an async function, so
// top-level await works, called with `process`, `fs` and `console`:
//   process.argv ["jsh", path, ...args] (node's shape, "jsh" standing for node), process.env,
//   process.cwd(), process.exit(n), process.exitCode, process.stdin (read(), async iteration,
//   text()), process.stdout.write / process.stderr.write (a Promise that resolves once the shell
//   took the bytes), console.log/info/debug (stdout) and console.error/warn (stderr);
//   fs: the node:fs/promises-style VFS (web/api.mjs) over a MessagePort bound to the shell's
//   own view (a scoop's, inside one), so it reaches exactly what the shell reaches.
// The status: process.exit(n)'s n, 1 for an uncaught throw (its stack on stderr), else
// process.exitCode (0) once the function's promise settles.

import { viewOf } from "../api.mjs";
import { RUN } from "../shared/protocol.mjs";
import { takePort } from "./realm_port.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const acks = new Map();
let nextWrite = 1;
let exited = false;
let reading = Promise.resolve();
let giveInput = null;
let endpoint = null; // where the script's messages go: the worker itself, or the realm's port

// Thrown by process.exit() to stop the script's code where it is.
class Exit extends Error {}

function bytesOf(chunk) {
  if (typeof chunk === "string") return encoder.encode(chunk);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk.slice(0));
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength));
  return encoder.encode(String(chunk));
}

// One write to the shell's stdout ("out") or stderr ("err"); resolves when the shell took it.
function write(type, chunk) {
  if (exited) return Promise.resolve();
  const data = bytesOf(chunk);
  const id = nextWrite++;
  return new Promise((resolve) => {
    acks.set(id, resolve);
    endpoint.postMessage({ type, id, data }, [data.buffer]);
  });
}

function exit(code) {
  if (exited) return;
  exited = true;
  endpoint.postMessage({ type: RUN.exit, code: (Number(code) || 0) & 0xff });
}

function show(value) {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.stack || String(value);
  if (value && typeof value === "object") {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

const line = (args) => `${args.map(show).join(" ")}\n`;

// One read of standard input: a Uint8Array, or null at its end; reads are served in order.
function readInput() {
  const next = reading.then(() => new Promise((resolve) => {
    giveInput = resolve;
    endpoint.postMessage({ type: RUN.read });
  }));
  reading = next.catch(() => {});
  return next;
}

function makeProcess({ argv, env, cwd }) {
  const process = {
    argv: [...argv],
    env: { ...env },
    exitCode: undefined,
    platform: "browser",
    cwd: () => cwd,
    exit(code = process.exitCode) {
      exit(code);
      throw new Exit(`process.exit(${code})`);
    },
    stdout: { write: (chunk) => write(RUN.out, chunk), isTTY: false },
    stderr: { write: (chunk) => write(RUN.err, chunk), isTTY: false },
    stdin: {
      read: readInput,
      async text() {
        let text = "";
        for await (const chunk of this) text += decoder.decode(chunk, { stream: true });
        return text + decoder.decode();
      },
      async *[Symbol.asyncIterator]() {
        for (let chunk = await readInput(); chunk !== null; chunk = await readInput()) yield chunk;
      },
    },
  };
  return process;
}

function makeConsole() {
  const out = (...args) => { write(RUN.out, line(args)); };
  const err = (...args) => { write(RUN.err, line(args)); };
  return { ...console, log: out, info: out, debug: out, error: err, warn: err, trace: err };
}

async function fail(error) {
  if (error instanceof Exit || exited) return;
  await write(RUN.err, `${show(error)}\n`);
  exit(1);
}

async function start({ source, argv, env, cwd, fs: port }) {
  const process = makeProcess({ argv, env, cwd });
  const scriptConsole = makeConsole();
  Object.assign(globalThis, { process, console: scriptConsole, fs: viewOf(port) });
  // A #! line is a comment for node; the function body would not parse it (line numbers kept).
  const body = source.startsWith("#!") ? `//${source}` : source;
  try {
    const AsyncFunction = (async () => {}).constructor;
    await new AsyncFunction("process", "fs", "console", body)(process, globalThis.fs, scriptConsole);
    exit(process.exitCode);
  } catch (error) {
    await fail(error);
  }
}

self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  fail(event.reason);
});
self.addEventListener("error", (event) => {
  event.preventDefault();
  fail(event.error ?? event.message);
});

function receive({ data }) {
  if (data.type === RUN.start) start(data);
  else if (data.type === RUN.ack) {
    acks.get(data.id)?.();
    acks.delete(data.id);
  } else if (data.type === RUN.stdin) {
    const resolve = giveInput;
    giveInput = null;
    resolve?.(data.data ? new Uint8Array(data.data) : null);
  }
}

// In a realm: the frame's bootstrap hands over the messages that came while this module
// loaded; the first is the run's port.
export function serve(scope, queued) {
  takePort(scope, queued, (port) => {
    endpoint = port;
    endpoint.onmessage = receive;
  });
}

// Started by web/worker/jsh_host.mjs: this module is the worker's own script.
if (self.location?.href === import.meta.url) {
  endpoint = self;
  self.onmessage = receive;
}
