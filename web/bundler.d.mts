// Types of bundler.mjs, the npm package's entry: the runtime's exports, re-exported.
export * from "./pyvfs.mjs";
