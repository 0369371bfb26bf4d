// `buffer` (CommonJS, with its two CommonJS dependencies) as an ES module for ZenFS.
import { loadCommonJS } from "./cjs.mjs";

const base = "/node_modules/";
const deps = {
  "base64-js": await loadCommonJS(`${base}base64-js/index.js`),
  ieee754: await loadCommonJS(`${base}ieee754/index.js`),
};
const buffer = await loadCommonJS(`${base}buffer/index.js`, deps);

export const { Buffer, SlowBuffer, INSPECT_MAX_BYTES, kMaxLength } = buffer;
export default buffer;
