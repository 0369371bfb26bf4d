// The early reader's records kept for the next visit (docs/boot.md, "Records kept for the next
// visit"). After a browser restart every IndexedDB request of a page is slow while the worker
// starts beside it, and the first read walks its path one keyed request after another (a
// directory entry, then a node record, per segment). The records the early reader read are kept
// in this origin's localStorage, under `pyvfs-early:<disk>`, with the revision they are of and
// the root's record; the next visit's reader takes them as known only when its first
// transaction finds the disk at that same revision with that same root record (a disk deleted
// and made again has a root of another time). From there the rules of web/page/known_records.mjs
// hold as for any record an earlier answer read: each answer reads the revision in its own
// transaction and computes again from it alone when the revision moved, and once the page is a
// peer of the disk they stay known only if the disk is still at their revision.
//
// Kept: at most KEEP_RECORDS records and KEEP_CHARS characters of JSON (the records of a few
// dozen paths); a disk whose known records outgrow it keeps nothing. Where localStorage is
// missing or full, nothing is kept and every read walks as before.

import { Found } from "./known_records.mjs";

const PREFIX = "pyvfs-early:";
const VERSION = 1;
const KEEP_RECORDS = 512;
const KEEP_CHARS = 64 * 1024;

function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // a sandboxed document: reading the property throws
  }
}

// What the last visit kept for the disk `name`, unchecked, or null. Read while the database
// opens: after a browser restart the first read of an origin's localStorage waits for the
// browser to load it, and the page's thread is idle then anyway.
export function keptEntry(name) {
  try {
    const kept = JSON.parse(storage()?.getItem(PREFIX + name) ?? "null");
    return kept?.v === VERSION ? kept : null;
  } catch {
    return null;
  }
}

function forgetKept(name) {
  try {
    storage()?.removeItem(PREFIX + name);
  } catch {
    // nothing to do: nothing was kept
  }
}

// The records of `kept` (a keptEntry of the disk `name`), as a Found, when the disk is at `rev`
// with the root record `root` (its stored text); else null, and a kept entry of another revision
// or disk is removed (the revision only moves on: it cannot match again).
export function keptRecords(kept, name, root, rev) {
  if (kept === null) return null;
  if (kept.root !== root || kept.rev !== rev) {
    forgetKept(name);
    return null;
  }
  const found = new Found();
  try {
    for (const [id, record] of kept.nodes) found.nodes.set(id, record);
    for (const [key, id] of kept.names) found.names.set(key, id);
    for (const [directory, ids] of kept.listed) found.listed.set(directory, ids);
  } catch {
    forgetKept(name);
    return null;
  }
  return found;
}

// Keeps what `known` (web/page/known_records.mjs) holds, with what was kept before at the same
// revision of the same disk (records of one revision agree), for the next visit. False when
// they are too many to keep: then nothing is, and more of them would not fit either.
export function keepRecords(name, root, known) {
  if (known.rev === null || !known.size) return true;
  if (known.size > KEEP_RECORDS) {
    forgetKept(name);
    return false;
  }
  const kept = keptEntry(name);
  const same = kept !== null && kept.root === root && kept.rev === known.rev;
  let nodes, names, listed;
  try {
    nodes = new Map(same ? kept.nodes : []);
    names = new Map(same ? kept.names : []);
    listed = new Map(same ? kept.listed : []);
  } catch {
    nodes = new Map();
    names = new Map();
    listed = new Map();
  }
  for (const [id, record] of known.nodes) nodes.set(id, record);
  for (const [key, id] of known.names) names.set(key, id);
  for (const [directory, ids] of known.listed) listed.set(directory, ids);
  if (nodes.size + names.size + listed.size > KEEP_RECORDS) {
    forgetKept(name);
    return false;
  }
  const text = JSON.stringify({ v: VERSION, root, rev: known.rev, nodes: [...nodes], names: [...names], listed: [...listed] });
  if (text.length > KEEP_CHARS) {
    forgetKept(name);
    return false;
  }
  try {
    storage()?.setItem(PREFIX + name, text);
  } catch {
    forgetKept(name); // full: an older entry must not stay behind as if it were this one
  }
  return true;
}
