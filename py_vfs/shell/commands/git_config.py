"""`git config` (the repository's file, or ``--global``: the shell's ``$HOME/.gitconfig`` on
the disk) and `git remote` (``add``, ``remove``, ``-v``)."""

from __future__ import annotations

import contextlib
import posixpath
from typing import Any

from dulwich.config import ConfigFile

from .git_base import Git, Usage, options, subcommand
from .git_repo import GitError, global_config_path, read_config


def split_key(key: str) -> tuple[tuple[bytes, ...], bytes]:
    """``section.sub.name`` as dulwich's (section tuple, name); git's error for a bad key."""
    if "." not in key or key.startswith(".") or key.endswith("."):
        raise GitError(f"key does not contain a section: {key}", status=2, prefix="error: ")
    section, _, name = key.rpartition(".")
    head, dot, sub = section.partition(".")
    parts = (head.lower().encode(), sub.encode()) if dot else (head.lower().encode(),)
    return parts, name.lower().encode()


def _entries(config: ConfigFile) -> list[str]:
    lines = []
    for section in config.sections():
        prefix = ".".join(part.decode("utf-8", "surrogateescape") for part in section)
        for name, value in config.items(section):
            lines.append(f"{prefix}.{name.decode('utf-8', 'surrogateescape').lower()}="
                         f"{value.decode('utf-8', 'surrogateescape')}\n")
    return lines


def _file(git: Git, found: dict[str, Any]) -> ConfigFile:
    if "global" in found:
        return read_config(global_config_path(git.env))
    return git.repo.get_config()


@subcommand("config")
def config(git: Git, args: list[str]) -> int:
    """`git config [--global|--local] [--get|--unset|-l] NAME [VALUE]`."""
    found, operands = options(args, {"--global": "global", "--local": "local",
                                     "--list": "list", "-l": "list", "--get": "get",
                                     "--unset": "unset", "--add": "add"}, {})
    if "list" in found:
        if "global" in found or "local" in found:
            git.out("".join(_entries(_file(git, found))))
            return 0
        lines = _entries(read_config(global_config_path(git.env)))
        with contextlib.suppress(GitError):
            lines += _entries(git.repo.get_config())
        git.out("".join(lines))
        return 0
    if not operands or len(operands) > 2:
        raise Usage("usage: git config [<options>] <name> [<value>]")
    section, name = split_key(operands[0])
    if len(operands) == 2 and "get" not in found:
        target = _file(git, found)
        target.set(section, name, operands[1].encode("utf-8", "surrogateescape"))
        _write(target)
        return 0
    if "unset" in found:
        target = _file(git, found)
        try:
            del target[section][name]
        except KeyError:
            return 5
        _write(target)
        return 0
    sources = [_file(git, found)] if {"global", "local"} & set(found) else \
        _stack(git)
    for source in sources:
        try:
            value = source.get(section, name)
        except KeyError:
            continue
        git.out(value.decode("utf-8", "surrogateescape") + "\n")
        return 0
    return 1


def _stack(git: Git) -> list[ConfigFile]:
    """Where a value is looked up: the repository's file first (outside one, only the global)."""
    try:
        local = [git.repo.get_config()]
    except GitError:
        local = []
    return [*local, read_config(global_config_path(git.env))]


def _write(config: ConfigFile) -> None:
    if config.path:
        directory = posixpath.dirname(str(config.path))
        if directory:
            import os
            os.makedirs(directory, exist_ok=True)
    config.write_to_path()


@subcommand("remote")
def remote(git: Git, args: list[str]) -> int:
    """`git remote [-v]`, `git remote add NAME URL`, `git remote remove NAME`."""
    found, operands = options(args, {"-v": "verbose", "--verbose": "verbose"}, {})
    settings = git.repo.get_config()
    names = [section[1].decode("utf-8", "surrogateescape") for section in settings.sections()
             if len(section) == 2 and section[0] == b"remote"]
    if not operands:
        for name in names:
            if "verbose" in found:
                url = settings.get((b"remote", name.encode()), b"url").decode()
                git.out(f"{name}\t{url} (fetch)\n{name}\t{url} (push)\n")
            else:
                git.out(f"{name}\n")
        return 0
    action, rest = operands[0], operands[1:]
    if action == "add" and len(rest) == 2:
        name, url = rest
        if name in names:
            raise GitError(f"remote {name} already exists.", status=3, prefix="error: ")
        section = (b"remote", name.encode())
        settings.set(section, b"url", url.encode())
        settings.set(section, b"fetch", f"+refs/heads/*:refs/remotes/{name}/*".encode())
        settings.write_to_path()
        return 0
    if action in ("remove", "rm") and len(rest) == 1:
        name = rest[0]
        if name not in names:
            raise GitError(f"No such remote: '{name}'", status=2, prefix="error: ")
        del settings[(b"remote", name.encode())]
        for section in list(settings.sections()):
            if len(section) == 2 and section[0] == b"branch" and \
                    settings.get(section, b"remote") == name.encode() if \
                    b"remote" in settings[section] else False:
                del settings[section]
        settings.write_to_path()
        for ref in list(git.repo.refs.keys(base=f"refs/remotes/{name}".encode())):
            del git.repo.refs[f"refs/remotes/{name}/".encode() + ref]
        return 0
    if action == "get-url" and len(rest) == 1:
        try:
            git.out(settings.get((b"remote", rest[0].encode()), b"url").decode() + "\n")
        except KeyError:
            raise GitError(f"No such remote '{rest[0]}'", status=2, prefix="error: ") from None
        return 0
    raise Usage("usage: git remote [-v] | add <name> <url> | remove <name>")
