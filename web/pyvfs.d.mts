// Types of pyvfs.mjs, the module a page imports (docs/api.md, "Exports of pyvfs.mjs"). The API
// object: api.d.mts; result shapes and errors: results.d.mts.

import type { Abortable, VFS } from "./api.mjs";
import type { AgentCaps, AgentToolResult } from "./results.mjs";

export * from "./api.mjs";

export interface Progress {
  stage: "download" | "compile" | "python" | "install" | "disk" | "ready";
  message: string;
  loaded?: number;
  total?: number;
}

export interface OpenOptions {
  /** The disk's name (default "default"): the IndexedDB database `pyvfs:<name>`. */
  name?: string;
  onProgress?: (progress: Progress) => void;
  /** The bound of the worker's cache of file chunks (default 32 MiB). */
  cacheBytes?: number;
  /** "auto" boots from a Python memory snapshot; "off" from the packages (docs/boot.md). */
  snapshot?: "auto" | "off";
  /** The origin previews are served from (default: pyvfs-config.json's). */
  previewOrigin?: string;
  /** "strict": a resolved write survives an OS crash (docs/storage.md). */
  durability?: "default" | "strict" | "relaxed";
  /** Who the returned object's changes are made by (default "user"). */
  writer?: string;
  /** How long the journal keeps history (default 30 days or 100,000 entries). */
  retention?: { days?: number; entries?: number };
  /** Install the default content the build ships (default true; docs/defaults.md). */
  defaults?: boolean;
  /** Budgets of a restricted view's realm (docs/sandbox.md); 0: none. */
  realm?: { timeoutMs?: number; memoryBytes?: number; idleMs?: number };
  /**
   * "shared" (the default): the pages of this origin share one Python for the disk (its own
   * where SharedWorker or Web Locks are missing); "own": this page runs its own.
   */
  runtime?: "own" | "shared";
  /** Sync this disk with a dock in the background (docs/dock.md); none by default. */
  dock?: { url: string; token: string };
}

/** The VFS named `options.name`: the same object for every call with that name in this page. */
export function openVFS(options?: OpenOptions): Promise<VFS>;

/** The error a cancelled call rejects with: Node's AbortError. */
export class AbortError extends Error {
  constructor(message?: string, options?: ErrorOptions);
  name: "AbortError";
  code: "ABORT_ERR";
  /** e.g. "stopped after 37 of 5000 files" (grep). */
  hint?: string;
}

/** One agent tool (docs/agent-tools.md). */
export interface AgentTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The same schema, under Anthropic's name. */
  input_schema: Record<string, unknown>;
  execute(input: Record<string, unknown>, options?: Abortable): Promise<AgentToolResult>;
}

export interface AgentToolsOptions {
  /** Put before every tool name (helix's are "workspace__<name>__"). */
  prefix?: string;
  caps?: AgentCaps;
  /** The workspace attribute of read_file's wrapper (default: vfs.name). */
  workspace?: string;
  /** The tools write as vfs.as(writer). */
  writer?: string;
}

/** The agent tool set over `vfs` (a VFS, vfs.as(writer), or a view). */
export function agentTools(vfs: VFS, options?: AgentToolsOptions): AgentTool[];

/** Asks the user for a folder; ENOTSUP without the File System Access API. */
export function pickDirectory(options?: { readOnly?: boolean }): Promise<FileSystemDirectoryHandle>;
