// GENERATED from py_vfs/protocol.py by `python -m py_vfs.protocol`: do not edit.
// The JS<->Python protocol: operations and shared constants (see that module).

export const CHUNK_SIZE = 524288;
export const FORMAT_VERSION = 3;
export const LOG_KEEP = 1000;
export const PREVIEW_PROTOCOL = 3;
export const TRANSFER_MIN = 65536;
export const COPYFILE_EXCL = 1;
export const COPYFILE_FICLONE = 2;
export const COPYFILE_FICLONE_FORCE = 4;
export const ENCODINGS = Object.freeze(["utf8", "utf-8", "latin1", "binary"]);
export const ERRNO = Object.freeze({"EPERM": -1, "ENOENT": -2, "EIO": -5, "EBADF": -9, "EAGAIN": -11, "EACCES": -13, "EBUSY": -16, "EEXIST": -17, "EXDEV": -18, "ENOTDIR": -20, "EISDIR": -21, "EINVAL": -22, "EFBIG": -27, "ENOSPC": -28, "EROFS": -30, "EDEADLK": -35, "ENAMETOOLONG": -36, "ENOSYS": -38, "ENOTEMPTY": -39, "ELOOP": -40, "ENOTSUP": -95, "ECANCELED": -125});
export const ERROR_FIELDS = Object.freeze(["code", "errno", "syscall", "path", "dest", "message", "hint"]);
export const OPS = Object.freeze({
  readFile: {"args": [["path", "path", false], ["options", "options", true]], "mutating": false, "cached": false, "inStep": true, "options": {"encoding": "encoding", "flag": "flag"}, "content": -1, "home": "python"},
  writeFile: {"args": [["path", "path", false], ["data", "content", false], ["options", "options", true]], "mutating": true, "cached": false, "inStep": true, "options": {"encoding": "utf8", "mode": "mode", "flag": "flag"}, "content": 1, "home": "python"},
  appendFile: {"args": [["path", "path", false], ["data", "content", false], ["options", "options", true]], "mutating": true, "cached": false, "inStep": true, "options": {"encoding": "utf8", "flag": "flag"}, "content": 1, "home": "python"},
  truncate: {"args": [["path", "path", false], ["len", "number", true]], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  mkdir: {"args": [["path", "path", false], ["options", "options", true]], "mutating": true, "cached": false, "inStep": true, "options": {"recursive": "bool", "mode": "mode"}, "content": -1, "home": "python"},
  rm: {"args": [["path", "path", false], ["options", "options", true]], "mutating": true, "cached": false, "inStep": true, "options": {"recursive": "bool", "force": "bool", "maxRetries": "number", "retryDelay": "number"}, "content": -1, "home": "python"},
  rmdir: {"args": [["path", "path", false], ["options", "options", true]], "mutating": true, "cached": false, "inStep": true, "options": {"recursive": "false", "maxRetries": "number", "retryDelay": "number"}, "content": -1, "home": "python"},
  unlink: {"args": [["path", "path", false]], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  rename: {"args": [["oldPath", "path", false], ["newPath", "path", false]], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  copyFile: {"args": [["src", "path", false], ["dest", "path", false], ["mode", "copymode", true]], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  cp: {"args": [["src", "path", false], ["dest", "path", false], ["options", "options", true]], "mutating": true, "cached": false, "inStep": true, "options": {"recursive": "bool"}, "content": -1, "home": "python"},
  symlink: {"args": [["target", "path", false], ["path", "path", false], ["type", "linktype", true]], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  readlink: {"args": [["path", "path", false], ["options", "options", true]], "mutating": false, "cached": false, "inStep": true, "options": {"encoding": "utf8"}, "content": -1, "home": "python"},
  realpath: {"args": [["path", "path", false], ["options", "options", true]], "mutating": false, "cached": false, "inStep": true, "options": {"encoding": "utf8"}, "content": -1, "home": "python"},
  stat: {"args": [["path", "path", false], ["options", "options", true]], "mutating": false, "cached": true, "inStep": true, "options": {"bigint": "false"}, "content": -1, "home": "python"},
  lstat: {"args": [["path", "path", false], ["options", "options", true]], "mutating": false, "cached": true, "inStep": true, "options": {"bigint": "false"}, "content": -1, "home": "python"},
  exists: {"args": [["path", "path", false]], "mutating": false, "cached": true, "inStep": true, "options": {}, "content": -1, "home": "python"},
  readdir: {"args": [["path", "path", false], ["options", "options", true]], "mutating": false, "cached": true, "inStep": true, "options": {"withFileTypes": "truthy", "encoding": "utf8", "recursive": "false"}, "content": -1, "home": "python"},
  readdirStats: {"args": [["path", "path", false]], "mutating": false, "cached": true, "inStep": true, "options": {}, "content": -1, "home": "python"},
  chmod: {"args": [["path", "path", false], ["mode", "mode", false]], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  utimes: {"args": [["path", "path", false], ["atime", "time", false], ["mtime", "time", false]], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  walk: {"args": [["path", "path", true]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  du: {"args": [["path", "path", true]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  ls: {"args": [["prefix", "path", true]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  find: {"args": [["directory", "path", true], ["pattern", "string", true]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  glob: {"args": [["pattern", "string", false]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  grep: {"args": [["pattern", "string", false], ["path", "path", true], ["options", "options", true]], "mutating": false, "cached": false, "inStep": true, "options": {"regex": "bool", "ignoreCase": "bool", "include": "any", "maxResults": "number", "maxFileSize": "number"}, "content": -1, "home": "python"},
  shell: {"args": [["line", "string", false]], "mutating": true, "cached": false, "inStep": false, "options": {}, "content": -1, "home": "python"},
  preview: {"args": [["request", "any", false]], "mutating": false, "cached": false, "inStep": false, "options": {}, "content": -1, "home": "python"},
  openRead: {"args": [["path", "path", false], ["start", "number", true], ["end", "number", true]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  readChunk: {"args": [["stream", "number", false]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  openWrite: {"args": [["path", "path", false], ["options", "options", true]], "mutating": true, "cached": false, "inStep": false, "options": {"encoding": "utf8", "mode": "mode", "flag": "flag"}, "content": -1, "home": "python"},
  writeChunk: {"args": [["stream", "number", false], ["data", "content", false]], "mutating": true, "cached": false, "inStep": false, "options": {}, "content": 1, "home": "python"},
  finishWrite: {"args": [["stream", "number", false]], "mutating": true, "cached": false, "inStep": false, "options": {}, "content": -1, "home": "python"},
  closeStream: {"args": [["stream", "number", false]], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  check: {"args": [["options", "options", true]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  usage: {"args": [["options", "options", true]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  gc: {"args": [["options", "options", true]], "mutating": true, "cached": false, "inStep": true, "options": {"graceMs": "number"}, "content": -1, "home": "python"},
  mount: {"args": [["path", "path", false], ["handle", "any", false], ["options", "options", true]], "mutating": true, "cached": false, "inStep": false, "options": {"readOnly": "bool"}, "content": -1, "home": "python"},
  unmount: {"args": [["path", "path", false]], "mutating": true, "cached": false, "inStep": false, "options": {}, "content": -1, "home": "python"},
  reconnect: {"args": [["path", "path", false], ["handle", "any", true], ["options", "options", true]], "mutating": true, "cached": false, "inStep": false, "options": {"readOnly": "bool"}, "content": -1, "home": "python"},
  mounts: {"args": [], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  mountInfo: {"args": [["path", "path", false]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  stepBegin: {"args": [], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  stepOp: {"args": [["step", "number", false], ["op", "string", false], ["args", "any", false]], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  stepEnd: {"args": [["step", "number", false], ["commit", "bool", false]], "mutating": true, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  watch: {"args": [["watch", "number", false], ["path", "path", false], ["options", "options", true]], "mutating": false, "cached": false, "inStep": true, "options": {"recursive": "bool"}, "content": -1, "home": "python"},
  unwatch: {"args": [["watch", "number", false]], "mutating": false, "cached": false, "inStep": true, "options": {}, "content": -1, "home": "python"},
  sync: {"args": [], "mutating": true, "cached": false, "inStep": false, "options": {}, "content": -1, "home": "python"},
  memoryUsage: {"args": [], "mutating": false, "cached": false, "inStep": false, "options": {}, "content": -1, "home": "worker"},
  diagnostics: {"args": [], "mutating": false, "cached": false, "inStep": false, "options": {}, "content": -1, "home": "worker"},
  fsaCounters: {"args": [], "mutating": false, "cached": false, "inStep": false, "options": {}, "content": -1, "home": "worker"},
});
// Operations that change nothing the page's stat cache holds.
export const READ_ONLY = new Set(
  Object.keys(OPS).filter((op) => !OPS[op].mutating));
