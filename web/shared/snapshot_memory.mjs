// Restoring a Pyodide memory snapshot (docs/boot.md): shared by the VFS worker
// (web/worker/python_boot.mjs) and a scoop's realm (web/realm/realm_python.mjs).

// Pyodide 314 copies a snapshot into the wasm memory as the module instantiates it (30 MiB) and
// does not grow that memory first, so a snapshot of a heap that grew past 30 MiB fails with
// "offset is out of bounds". While a snapshot is restored, the instance's memory is grown to
// the snapshot's size as soon as it is instantiated; returns what undoes the wrapping. `size`
// is the byte count, or a function giving it (read at instantiation: Pyodide awaits the
// snapshot's bytes before it instantiates, so they may still be on their way here).
export function growingInstantiation(size) {
  const { instantiate, instantiateStreaming } = WebAssembly;
  const grown = (result) => {
    const memory = result?.instance?.exports?.memory;
    const wanted = typeof size === "function" ? size() : size;
    const missing = memory ? wanted - memory.buffer.byteLength : 0;
    if (missing > 0) memory.grow(Math.ceil(missing / 65536));
    return result;
  };
  WebAssembly.instantiate = (...args) => instantiate(...args).then(grown);
  WebAssembly.instantiateStreaming = (...args) => instantiateStreaming(...args).then(grown);
  return () => Object.assign(WebAssembly, { instantiate, instantiateStreaming });
}

// The time zone of the machine that made the snapshot is in its memory: Emscripten sets the C
// library's (timezone, daylight, tzname) once per process from the JS clock, and Python's `time`
// module copies them when imported (time.timezone, altzone, daylight, tzname; strftime's %Z).
// Local times are right anyway (Emscripten's localtime asks the JS clock each time), the zone's
// offset and names are not: a snapshot the build made in UTC, restored in New York, said
// "UTC-0000". Sets both to this machine's zone, as Emscripten's _tzset_js computes it.
export function refreshTimeZone(pyodide) {
  const module = pyodide._module;
  const year = new Date().getFullYear();
  const winter = new Date(year, 0, 1).getTimezoneOffset();
  const summer = new Date(year, 6, 1).getTimezoneOffset();
  const name = (offset) => {
    const minutes = Math.abs(offset);
    const hhmm = `${String(Math.floor(minutes / 60)).padStart(2, "0")}${String(minutes % 60).padStart(2, "0")}`;
    return `UTC${offset >= 0 ? "-" : "+"}${hhmm}`;
  };
  const [std, dst] = summer < winter ? [name(winter), name(summer)] : [name(summer), name(winter)];
  const timezone = Math.max(winter, summer) * 60;
  const daylight = Number(winter !== summer);
  module.HEAPU32[module._timezone >>> 2] = timezone;
  module.HEAP32[module._daylight >>> 2] = daylight;
  for (const [index, text] of [std, dst].entries()) {
    const pointer = module.HEAPU32[(module._tzname >>> 2) + index];
    module.HEAPU8.set([...new TextEncoder().encode(text), 0], pointer);
  }
  const names = `(${JSON.stringify(std)}, ${JSON.stringify(dst)})`;
  pyodide.runPython(`__import__("time").__dict__.update(timezone=${timezone}, altzone=${daylight ? timezone - 3600 : timezone}, daylight=${daylight}, tzname=${names})`);
}
