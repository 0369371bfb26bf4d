"""Mounted folders: a live bridge from a VFS path to a folder outside the disk.

- ``backend``: the primitives a folder offers (``Backend``, ``Entry``, ``BackendError``);
- ``local``: a host directory through ``os`` (CPython, and the unit tests);
- ``fsa``: a browser folder through the File System Access API (``web/fsa.mjs``, via JSPI);
- ``table``: the mount table and the virtual nodes of a folder's entries;
- ``checks``: the questions a mounted operation asks its backend before changing anything;
- ``ops``: the VFS's mutations under mounts, and the ``routed`` decorator that sends them there;
- ``copies``, ``streams``: copies by content and streaming reads and writes of mounted files;
- ``api``: ``VFS.mount``/``unmount``/``mounts``/``reconnect``.

Path resolution across mount points is ``py_vfs/resolver.py``. This package's face exports the
backend side only, so that importing a low module of it (``table``, ``backend``) does not pull in
the operations, which sit above the resolver. docs/mounts.md describes the design.
"""

from .backend import Backend, BackendError, Entry
from .local import LocalBackend

__all__ = ["Backend", "BackendError", "Entry", "LocalBackend"]
