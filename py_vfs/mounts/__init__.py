"""Mounted folders: a live bridge from a VFS path to a folder outside the disk.

- ``backend``: the primitives a folder offers (``Backend``, ``Entry``, ``BackendError``);
- ``local``: a host directory through ``os`` (CPython, and the unit tests);
- ``fsa``: a browser folder through the File System Access API (``web/worker/fsa.mjs``, via JSPI);
- ``table``: the mount table and the virtual nodes of a folder's entries;
- ``host``: where the shell's folders come from;
- ``checks``: the questions a mounted operation asks its backend before changing anything;
- ``streams``: streaming reads and writes of mounted files;
- ``side``: a folder as a side of the rules (the one change each asks, on its backend).

This package is the folders' side, below the resolver (``py_vfs/fs/resolver.py``, which walks
paths across mount points) and the rules (``py_vfs/fs/rules.py``, ``files.py``, ``metadata.py``,
applied to the side of their place by ``py_vfs/fs/sides.py``); ``py_vfs/fs/mount_copies.py``
copies by content and ``py_vfs/fs/mounting.py`` mounts. docs/mounts.md describes the design.
"""

from .backend import Backend, BackendError, Entry
from .local import LocalBackend

__all__ = ["Backend", "BackendError", "Entry", "LocalBackend"]
