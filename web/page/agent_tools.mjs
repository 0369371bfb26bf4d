// agentTools(vfs, {prefix, caps, workspace, writer}): the agent tool set of py_vfs/agent.py for
// an LLM's tool calling, in JS (docs/agent-tools.md). The tools themselves run in the worker,
// one `vfs.agentTool` call per use, so there is one implementation (tested on CPython too) and
// `vfs` may be anything with the JS API's `agentTool`: a VFS, `vfs.as(writer)`, or a
// restricted view, whose limits then hold for the tools. Each tool is
// {name, description, inputSchema, input_schema, execute(input, {signal})}; its definition for
// Anthropic's API is {name, description, input_schema}, for OpenAI's
// {type: "function", function: {name, description, parameters: inputSchema}}.

import { AGENT_TOOLS } from "../shared/protocol.mjs";
import { checkSignal, invalidArgType } from "./validate.mjs";

// `prefix` goes before every name (helix's are "workspace__<name>__"); `caps`: {maxToolResultBytes,
// maxDirEntries, maxGlobMatches, maxFileSizeMb} (helix's defaults: 256 KiB, 1000, 1000, none);
// `workspace` names the disk in read_file's untrusted wrapper (default: vfs.name); `writer`:
// the tools write as vfs.as(writer).
export function agentTools(vfs, { prefix = "", caps, workspace, writer } = {}) {
  if (typeof vfs?.agentTool !== "function") throw invalidArgType("vfs", "a py_vfs VFS (or a view of one)", vfs);
  if (typeof prefix !== "string") throw invalidArgType("options.prefix", "of type string", prefix);
  const target = writer === undefined ? vfs : vfs.as(writer);
  const options = { workspace: String(workspace ?? vfs.name ?? "workspace"), ...(caps === undefined ? {} : { caps }) };
  return Object.entries(AGENT_TOOLS).map(([name, { description, inputSchema }]) => ({
    name: prefix + name,
    description,
    inputSchema,
    input_schema: inputSchema,
    execute(input, { signal } = {}) {
      return target.agentTool(name, input, { ...options, signal: checkSignal(signal, "signal") });
    },
  }));
}
