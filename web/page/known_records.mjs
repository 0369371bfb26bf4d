// What the early reader (web/page/early_reader.mjs) learned from earlier answers: node records,
// directory entries and whole listings, all of one revision of the disk (`meta/rev`). Every
// change to the nodes or the entries is a logged commit, which moves the revision, so while the
// revision is the same these records are the disk's. Each answer reads the revision in its own
// transaction, beside the records it asks for: the known records save it the requests, and an
// answer that used any is computed again from its transaction alone when the revision moved.
// Once the page is a peer of the disk (web/page/early_peer.mjs) it hears of every commit before
// that commit resolves, and forgets: an answer found wholly in the known records then needs no
// transaction at all.

// Records kept at most (a node record is a few hundred bytes); past it, all are dropped.
const LIMIT = 20_000;

export class KnownRecords {
  rev = null; // the revision these records are of
  epoch = 0; // moves at each forget(): what an answer begun before it read is not kept
  nodes = new Map(); // id -> record (null: none)
  names = new Map(); // "<directory id>/<name>" -> node id (null: no such entry)
  listed = new Map(); // directory id -> the ids of all its entries

  get size() { return this.nodes.size + this.names.size + this.listed.size; }

  // What one answer read at revision `rev` (a Found) in a transaction begun at `epoch`: kept
  // when it is of the revision known, or of a later one (then the older records go), and no
  // forget() came since the transaction began.
  learn(rev, found, epoch) {
    if (epoch !== this.epoch || (this.rev !== null && rev < this.rev)) return;
    if (rev !== this.rev || this.size + found.size > LIMIT) this.#reset(rev);
    for (const [id, record] of found.nodes) this.nodes.set(id, record);
    for (const [key, id] of found.names) this.names.set(key, id);
    for (const [directory, ids] of found.listed) this.listed.set(directory, ids);
  }

  // The entry `name` of directory `directoryId`: its id, null (none), or undefined (unknown).
  entry(directoryId, name) {
    const id = this.names.get(`${directoryId}/${name}`);
    if (id !== undefined) return id;
    return this.listed.has(directoryId) ? null : undefined;
  }

  // Another context committed (web/page/early_peer.mjs): nothing known stays.
  forget() {
    this.epoch++;
    this.#reset(null);
  }

  #reset(rev) {
    this.rev = rev;
    this.nodes.clear();
    this.names.clear();
    this.listed.clear();
  }
}

// What one answer read from its transaction (not from what was known).
export class Found {
  nodes = new Map();
  names = new Map();
  listed = new Map();

  get size() { return this.nodes.size + this.names.size + this.listed.size; }
}
