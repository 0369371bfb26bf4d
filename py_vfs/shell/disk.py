"""What the shell needs of the file system: the declared API's methods it calls, as a Protocol.

The shell is typed against ``Disk`` instead of the ``VFS`` class, so it never imports
``py_vfs.vfs`` and uses nothing of it but these methods (no private member). ``Disk`` is made
from the declaration (``fs/surface.py``), which ``VFS`` implements, so their signatures and
docstrings are one; ``tests/unit/test_shell_structure.py`` checks that every ``vfs.<method>``
the shell calls is here.
"""

from __future__ import annotations

from ..fs.forwarding import protocol

Disk = protocol("Disk", (
    # reading the tree
    "stat", "lstat", "open_read", "watch", "stream_writer", "exists", "readdir", "readlink",
    "realpath", "read_file",
    # changing it
    "write_file", "append_file", "mkdir", "rm", "rmdir", "unlink", "touch", "symlink", "chmod",
    "utimes", "rename", "copy_file", "cp", "truncate",
    # the disk as a whole, and as data
    "check", "usage", "mounts", "query", "scoop", "as_writer", "journal", "snapshot",
    "snapshots", "diff", "restore",
), """The file-system calls of the shell; paths are absolute, failures raise ``OSError``
(``FsError``) with ``errno`` and ``strerror`` set.""", __name__)
