// A minimal CommonJS loader for the bench page: `buffer` and `eventemitter3` ship CommonJS only,
// and the bench runs the peers unbundled. Each module's source is fetched (top-level await) and
// run with its own `module`/`exports`; `require` resolves only the names given in `deps`.

export async function loadCommonJS(url, deps = {}) {
  const source = await (await fetch(url)).text();
  const module = { exports: {} };
  const require = (name) => {
    if (!(name in deps)) throw new Error(`cjs shim: ${url} requires unknown module ${name}`);
    return deps[name];
  };
  new Function("module", "exports", "require", source)(module, module.exports, require);
  return module.exports;
}
