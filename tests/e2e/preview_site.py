"""The small multi-file site the preview tests write through the JS API: relative and
root-relative CSS, a module importing a module, a PNG, a WOFF2 font, a hand-assembled wasm
module, a name with spaces and non-ASCII letters; and the script that checks it rendered."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from .conftest import ROOT

FONT = ROOT / "node_modules/@fontsource/press-start-2p/files/press-start-2p-latin-400-normal.woff2"

# A module exporting add(i32, i32) -> i32, assembled by hand: header, then the type, function,
# export and code sections.
ADD_WASM = bytes([
    0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x07, 0x01, 0x60, 0x02, 0x7F, 0x7F, 0x01, 0x7F,
    0x03, 0x02, 0x01, 0x00,
    0x07, 0x07, 0x01, 0x03, 0x61, 0x64, 0x64, 0x00, 0x00,
    0x0A, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6A, 0x0B,
])

INDEX_HTML = """<!doctype html>
<meta charset="utf-8">
<title>preview site</title>
<link rel="stylesheet" href="css/relative.css">
<link rel="stylesheet" href="/root.css">
<h1 id="relative">relative css</h1>
<p id="root">root-relative css</p>
<p id="font">Pixel font</p>
<img id="img" src="img/dot.png" alt="dot">
<a id="odd" href="dir%20with%20space/%C3%BCn%C3%AF%20c%C3%B6d%C3%A9.txt">odd name</a>
<script type="module" src="js/main.mjs"></script>
"""
RELATIVE_CSS = """#relative { color: rgb(1, 2, 3) }
@font-face { font-family: Pixel; src: url("../fonts/pixel.woff2") format("woff2") }
#font { font-family: Pixel, monospace; font-size: 16px }
"""
ROOT_CSS = "#root { color: rgb(4, 5, 6) }\n"
MAIN_MJS = """import { greeting } from "./lib/greet.mjs";
document.body.dataset.module = greeting("module");
const { instance } = await WebAssembly.instantiateStreaming(
  fetch(new URL("../wasm/add.wasm", import.meta.url)));
document.body.dataset.wasm = String(instance.exports.add(40, 2));
"""
GREET_MJS = 'export const greeting = (who) => `imported by ${who}`;\n'
ODD_TEXT = "ünï cödé ✓\n"


def png(width: int, height: int) -> bytes:
    """A valid RGB PNG of one colour, built with zlib (no image library needed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xff\x80\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def site_files() -> dict[str, bytes]:
    if not FONT.is_file():
        pytest.fail(f"{FONT.relative_to(ROOT)} is missing: run `npm ci` (a devDependency)")
    return {
        "/site/index.html": INDEX_HTML.encode(),
        "/site/css/relative.css": RELATIVE_CSS.encode(),
        "/site/root.css": ROOT_CSS.encode(),
        "/site/js/main.mjs": MAIN_MJS.encode(),
        "/site/js/lib/greet.mjs": GREET_MJS.encode(),
        "/site/img/dot.png": png(3, 2),
        "/site/fonts/pixel.woff2": Path(FONT).read_bytes(),
        "/site/wasm/add.wasm": ADD_WASM,
        "/site/dir with space/ünï cödé.txt": ODD_TEXT.encode(),
    }


WRITE_JS = """async (files) => {
  const vfs = await window.pyvfs.ready;
  for (const [path, b64] of Object.entries(files)) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    await vfs.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await vfs.writeFile(path, bytes);
  }
}"""


RENDERED_JS = """async () => {
  const until = async (test, what, ms = 60000) => {
    const deadline = Date.now() + ms;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const img = document.getElementById("img");
  await until(() => img.complete && document.body.dataset.wasm,
              "the image to load and the page's wasm to run");
  await document.fonts.load("16px Pixel");
  await document.fonts.ready;
  const color = (id) => getComputedStyle(document.getElementById(id)).color;
  const pixel = [...document.fonts].find((face) => face.family.replace(/"/g, "") === "Pixel");
  return {
    relative: color("relative"), root: color("root"),
    module: document.body.dataset.module ?? null, wasm: document.body.dataset.wasm ?? null,
    image: [img.naturalWidth, img.naturalHeight],
    fontStatus: pixel?.status ?? null, fontCheck: document.fonts.check("16px Pixel"),
    controlled: Boolean(navigator.serviceWorker.controller),
  };
}"""
