"""py_vfs: a durable, POSIX-like virtual file system with a Python core."""

from .errors import FsError
from .node import DirEntry, Stat
from .vfs import VFS

__all__ = ["VFS", "DirEntry", "FsError", "Stat"]
__version__ = "0.1.0"
