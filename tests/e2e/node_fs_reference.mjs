// The reference side of the Node differential suite: runs fs_differential.mjs's sequences
// against Node's own node:fs/promises in a new temporary directory and prints the outcomes as
// JSON. Usage: node node_fs_reference.mjs <seed> <count> <length>
import { constants } from "node:fs";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generated, runAll, SEQUENCES } from "./fs_differential.mjs";

const [seed, count, length] = process.argv.slice(2).map(Number);
const root = await fs.mkdtemp(join(tmpdir(), "pyvfs-diff-"));
process.umask(0o022);
try {
  const hand = await runAll(fs, `${root}/hand`, SEQUENCES, constants);
  const random = await runAll(fs, `${root}/random`, generated(seed, count, length), constants);
  process.stdout.write(JSON.stringify({ hand, random }));
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
