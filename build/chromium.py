"""The Chromium that the tests, the bench and the browser check drive, and how it is launched.

Debian's `chromium` package (`sh build/setup.sh --test` installs it), or $CHROMIUM. Playwright
cannot download a browser here, so every launch passes `executable_path=CHROMIUM`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # Any host but 127.0.0.1 and localhost fails to resolve: nothing can leave the machine.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
]
VERSION_TIMEOUT_S = 60


def chromium_version(path: str | None = CHROMIUM) -> str:
    """'156.0.8078.79' from `chromium --version` (Debian's wrapper prints more around it).

    Raises RuntimeError, saying why, when there is no browser or it prints no version in time.
    """
    if not path:
        raise RuntimeError("chromium not found: `sh build/setup.sh --test` installs Debian's, "
                           "or set CHROMIUM=/path/to/chromium")
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True,
                             timeout=VERSION_TIMEOUT_S, check=False).stdout
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"`{path} --version` did not answer within {VERSION_TIMEOUT_S} s") \
            from None
    found = re.search(r"Chromium (\d+(?:\.\d+){3})", out)
    if not found:
        raise RuntimeError(f"`{path} --version` printed no Chromium version: {out.strip()!r}")
    return found.group(1)
