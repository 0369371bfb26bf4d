// Node's Buffer encodings in the page, for a FileHandle's text (py_vfs/web/encodings.py does the
// same in the worker for the path calls, readFile and writeFile): text to bytes as
// `Buffer.from(text, encoding)`, bytes to text as `buffer.toString(encoding)`, lenient where
// Node is (hex stops at the first pair that is not hex; base64 ignores characters outside its
// alphabet and needs no padding; ascii keeps the low 7 bits of each byte when reading and the
// low 8 bits of each code unit when writing; utf16le decodes an odd last byte as nothing).
// `encoding` is one of Node's names, lower case (validate.mjs `checkEncoding`).

const ALIASES = { "utf-8": "utf8", binary: "latin1", ucs2: "utf16le", "ucs-2": "utf16le", "utf-16le": "utf16le" };
const canonical = (encoding) => ALIASES[encoding] ?? encoding;

export function textToBytes(text, encoding = "utf8") {
  switch (canonical(encoding)) {
    case "utf8":
      return new TextEncoder().encode(text);
    case "latin1":
    case "ascii":
      return Uint8Array.from({ length: text.length }, (_, i) => text.charCodeAt(i) & 0xff);
    case "utf16le": {
      const bytes = new Uint8Array(text.length * 2);
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        bytes[2 * i] = unit & 0xff;
        bytes[2 * i + 1] = unit >> 8;
      }
      return bytes;
    }
    case "hex": {
      const pairs = /^(?:[0-9a-fA-F]{2})*/.exec(text)[0];
      return Uint8Array.from({ length: pairs.length / 2 }, (_, i) => parseInt(pairs.slice(2 * i, 2 * i + 2), 16));
    }
    case "base64":
    case "base64url": {
      let cleaned = text.split("=", 1)[0].replace(/[^A-Za-z0-9+/\-_]/g, "").replace(/-/g, "+").replace(/_/g, "/");
      if (cleaned.length % 4 === 1) cleaned = cleaned.slice(0, -1);
      const binary = atob(cleaned + "=".repeat((4 - (cleaned.length % 4)) % 4));
      return Uint8Array.from(binary, (char) => char.charCodeAt(0));
    }
    default:
      throw new TypeError(`unknown encoding ${encoding}`);
  }
}

export function bytesToText(bytes, encoding = "utf8") {
  switch (canonical(encoding)) {
    case "utf8":
      return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    case "latin1":
      return codeUnits(bytes, (byte) => byte);
    case "ascii":
      return codeUnits(bytes, (byte) => byte & 0x7f);
    case "utf16le": {
      const units = new Uint16Array(bytes.length >> 1);
      for (let i = 0; i < units.length; i++) units[i] = bytes[2 * i] | (bytes[2 * i + 1] << 8);
      return codeUnits(units, (unit) => unit);
    }
    case "hex":
      return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
    case "base64":
      return btoa(codeUnits(bytes, (byte) => byte));
    case "base64url":
      return btoa(codeUnits(bytes, (byte) => byte)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    default:
      throw new TypeError(`unknown encoding ${encoding}`);
  }
}

// The string of `values` (bytes or UTF-16 code units) mapped by `unit`, 8192 at a time.
function codeUnits(values, unit) {
  let text = "";
  for (let at = 0; at < values.length; at += 8192) {
    text += String.fromCharCode(...Array.from(values.subarray(at, at + 8192), unit));
  }
  return text;
}
