"""py_vfs: a durable, POSIX-like virtual file system with a Python core."""

from .agent import AgentTool, Caps, agent_tools
from .core.cancel import Signal
from .core.errors import FsError
from .core.node import DirEntry, Stat
from .vfs import VFS

__all__ = ["VFS", "AgentTool", "Caps", "DirEntry", "FsError", "Signal", "Stat", "agent_tools"]
__version__ = "0.1.0"
