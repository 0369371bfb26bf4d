"""A small sh-like shell over the VFS, for the browser terminal and the scripting API."""

from .interpreter import Shell, ShellResult

__all__ = ["Shell", "ShellResult"]
