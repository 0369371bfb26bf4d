// G1's client: isomorphic-git (its UMD build, window.git) and its browser HTTP client
// (`isomorphic-git/http/web`), both from node_modules/, loaded on first use so that no other
// workload's page carries them. isomorphic-git needs a global Buffer in browsers (its docs say
// so): the bench's `buffer` shim provides it.

const GIT_SCRIPT = "/node_modules/isomorphic-git/index.umd.min.js";
const HTTP_MODULE = "/node_modules/isomorphic-git/http/web/index.js";
let loading = null;

function loadGit() {
  loading ??= (async () => {
    globalThis.Buffer ??= (await import("buffer")).Buffer;
    const http = (await import(HTTP_MODULE)).default;
    await new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = GIT_SCRIPT;
      script.onload = resolve;
      script.onerror = () => reject(new Error(`could not load ${GIT_SCRIPT}`));
      document.head.append(script);
    });
    return { git: globalThis.git, http };
  })();
  return loading;
}

// The untimed part: isomorphic-git loaded, and the adapter has a file system it can use.
export async function prepareClone(fs) {
  if (!fs.gitFs) throw new Error("this adapter is no file system isomorphic-git can use");
  await loadGit();
}

// `git clone --depth 1 --single-branch URL DIR` on the adapter's file system.
export async function clone(fs, dir, url) {
  const { git, http } = await loadGit();
  await git.clone({ fs: fs.gitFs, http, dir, url, singleBranch: true, depth: 1 });
}

async function sha256(data) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

// Every file under `dir` but .git, by path relative to it.
async function listFiles(fs, dir, prefix = "", into = []) {
  for (const name of await fs.readdir(dir)) {
    if (!prefix && name === ".git") continue;
    const path = `${dir}/${name}`;
    if ((await fs.stat(path)).isDirectory) await listFiles(fs, path, `${prefix}${name}/`, into);
    else into.push(`${prefix}${name}`);
  }
  return into;
}

// Throws unless the checkout under `dir` holds exactly the manifest's files, byte for byte.
export async function verifyCheckout(fs, dir, manifest) {
  const files = await listFiles(fs, dir);
  const extra = files.filter((path) => !(path in manifest));
  const present = new Set(files);
  const missing = Object.keys(manifest).filter((path) => !present.has(path));
  if (extra.length || missing.length) {
    throw new Error(`checkout of ${files.length} files, manifest of ${Object.keys(manifest).length}: ` +
                    `extra ${extra.slice(0, 5)}, missing ${missing.slice(0, 5)}`);
  }
  for (const path of files) {
    const got = await sha256(await fs.readFile(`${dir}/${path}`));
    if (got !== manifest[path]) throw new Error(`${dir}/${path}: content differs from the repository's`);
  }
}
