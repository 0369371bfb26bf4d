// `eventemitter3` (CommonJS) as an ES module for ZenFS and utilium.
import { loadCommonJS } from "./cjs.mjs";

const EventEmitter = await loadCommonJS("/node_modules/eventemitter3/index.js");

export { EventEmitter };
export default EventEmitter;
