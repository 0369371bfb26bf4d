"""Mounted folders: a live bridge from a VFS path to a folder outside the disk.

- ``backend``: the primitives a folder offers (``Backend``, ``Entry``, ``BackendError``);
- ``local``: a host directory through ``os`` (CPython, and the unit tests);
- ``fsa``: a browser folder through the File System Access API (``web/fsa.mjs``, via JSPI);
- ``table``: the mount table and path lookup inside a mount (virtual nodes);
- ``ops``: the VFS's mutations under mounts, and the ``routed`` decorator that sends them there;
- ``copies``, ``streams``: copies by content and streaming reads and writes of mounted files;
- ``api``: ``VFS.mount``/``unmount``/``mounts``/``reconnect`` and the read hooks.

docs/mounts.md describes the design.
"""

from .api import MountsMixin
from .backend import Backend, BackendError, Entry
from .local import LocalBackend
from .ops import MountOps, routed
from .table import MountTable

__all__ = ["Backend", "BackendError", "Entry", "LocalBackend", "MountOps", "MountTable",
           "MountsMixin", "routed"]
