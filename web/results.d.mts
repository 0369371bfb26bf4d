// Types of what the JS API's calls resolve to and reject with (docs/api.md): result shapes and
// errors. The API object itself is typed in api.d.mts, the module's exports in pyvfs.d.mts.

/** A POSIX code of a file system error (docs/api.md, "Errors"). */
export type ErrorCode =
  | "ENOENT" | "EEXIST" | "ENOTDIR" | "EISDIR" | "ENOTEMPTY" | "EINVAL" | "ELOOP" | "EPERM"
  | "EACCES" | "EROFS" | "EXDEV" | "EBUSY" | "ENOSPC" | "ENAMETOOLONG" | "EIO" | "EAGAIN"
  | "EDEADLK" | "EFBIG" | "EBADF" | "ENOTSUP" | "ECANCELED" | "ETIMEDOUT";

/** A file system error, as Node's: `ENOENT: no such file or directory, open '/x'`. */
export interface FsError extends Error {
  code: ErrorCode;
  /** Node's number for `code` on Linux (-2 for ENOENT). */
  errno?: number;
  /** The operation: `open`, `mkdir`, `rename`, `copyfile`... */
  syscall?: string;
  path?: string;
  /** The second path of a two-path call (rename, copyFile, symlink...). */
  dest?: string;
  /** What the user can do about it, when known. */
  hint?: string;
}

/** An argument error, raised in the page before anything reaches the worker. */
export interface ArgumentError extends TypeError {
  code: "ERR_INVALID_ARG_TYPE" | "ERR_INVALID_ARG_VALUE" | "ERR_OUT_OF_RANGE" | "ERR_FS_INVALID_SYMLINK_TYPE";
}

/** The kind of a node. */
export type NodeKind = "file" | "directory" | "symlink";

/** A change `watch` reports. */
export interface WatchEvent {
  type: "create" | "modify" | "delete" | "rename";
  path: string;
  /** The path before a rename. */
  oldPath?: string;
  kind: NodeKind;
}

/** What `watch` returns: call it to stop watching. */
export interface Unsubscribe {
  (): Promise<void>;
  /** Resolves once the worker listens. */
  readonly ready: Promise<void>;
}

export interface FindEntry {
  path: string;
  type: NodeKind;
}

export interface GrepMatch {
  path: string;
  /** The line's number, from 1. */
  line: number;
  text: string;
}

export interface GrepResult {
  matches: GrepMatch[];
  skipped_paths: string[];
  skipped_binary_paths: string[];
}

export interface QueryResult {
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
}

export interface JournalEntry {
  revision: number;
  time: string;
  timeMs: number;
  writer: string;
  operation: string;
  operations: unknown[];
  paths: string[];
}

export interface SnapshotRecord {
  name: string;
  time: string;
  timeMs: number;
  revision: number;
  writer: string;
  nodes: number;
}

/** A state of the disk: a snapshot name, a revision number, `{revision}` or `{before}`. */
export type DiskState = string | number | { revision: number } | { before: Date | number | string };

export interface DiffEntry {
  change: "added" | "removed" | "modified" | "renamed";
  path: string;
  oldPath?: string;
  kind: NodeKind;
  size: number;
  oldSize?: number;
}

export interface RestoreResult {
  revision: number;
  restored: number;
}

export interface ImportResult {
  files: number;
  directories: number;
  symlinks: number;
  bytes: number;
}

export interface CheckProblem {
  kind: string;
  where: string;
  message: string;
}

export interface CheckReport {
  ok: boolean;
  problems: CheckProblem[];
  nodes: number;
  chunks: number;
  chunkBytes: number;
  inlineFiles: number;
  inlineBytes: number;
  reclaimableChunks: number;
  reclaimableBytes: number;
  historyChunks: number;
  historyBytes: number;
  [more: string]: unknown;
}

export interface Usage {
  files: number;
  directories: number;
  symlinks: number;
  contentBytes: number;
  storedBytes: number;
  chunks: number;
  inlineFiles: number;
  storeBytes: number;
  quotaBytes: number | null;
  availableBytes: number | null;
  persisted: boolean | null;
  historyChunks: number;
  historyBytes: number;
  historySince: number | null;
  historyTrimmed: { revisions: [number, number]; time: string; reason: "retention" | "quota" } | null;
  [more: string]: unknown;
}

export interface ResetResult {
  version: string;
  written: string[];
  kept: string[];
}

export interface MountInfo {
  path: string;
  name: string;
  readOnly: boolean;
  state: "active" | "waiting";
  [more: string]: unknown;
}

export interface MemoryUsage {
  wasmBytes: number;
  jsHeapBytes: number | null;
  tmpBytes: number;
  scratchBytes: number;
}

export interface Diagnostics {
  reads: { nodes: number; chunks: number; meta: number };
  boot: { from: "snapshot" | "packages"; [more: string]: unknown };
  durability: { asked: string; lastCommit: string | null };
  /** How often the worker emptied the origin's IndexedDB log for the browser's next start. */
  logCheckpoints: number;
  calls: number;
  /** `shared`: reads that shared the answer of the same read on its way to the worker. */
  statCache: { hits: number; entries: number; shared: number };
  earlyReads: number;
  earlyReadsFromMemory: number;
  streams: number;
  pinnedChunks: number;
  runtime: { role: "own" | "host" | "guest"; guests: number; failovers: number };
  /** The browser's last report that it discarded this origin's IndexedDB (`at`: ms since the epoch). */
  dataLoss: { message: string; at: number } | null;
  [more: string]: unknown;
}

export interface ShellResult {
  stdout: string;
  stderr: string;
  /** The exit status (130 when the signal aborted the line). */
  code: number;
  cwd: string;
  /** Preview URLs the line asked to open (`open`, `serve`). */
  open: string[];
  /** The line to run once the user agreed, when a command asks first; else null. */
  confirm: string | null;
  /** `interactive` only: the line ended inside a quote and was not run. */
  more?: boolean;
  /** `interactive` only: the expanded line of a `!` history reference. */
  echo?: string | null;
  /** `interactive` only: the session's history, oldest first. */
  history?: string[];
  /** `interactive` only: HOME, for the prompt. */
  home?: string;
  [more: string]: unknown;
}

export interface RunPythonResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface Completion {
  start: number;
  candidates: string[];
  names: string[];
}

/** What an agent tool resolves to (docs/agent-tools.md, per tool). */
export type AgentToolResult = Record<string, unknown>;

/** The caps of the agent tools (docs/agent-tools.md, "Caps"). */
export interface AgentCaps {
  maxToolResultBytes?: number;
  maxDirEntries?: number;
  maxGlobMatches?: number;
  maxFileSizeMb?: number | null;
}
