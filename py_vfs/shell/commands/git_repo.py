"""The repository `git` works on: found from the shell's cwd, its configuration read from the
VFS only (the repository's ``config`` and the shell's ``$HOME/.gitconfig``, never the host's),
and who commits when (``user.name``/``user.email`` or ``GIT_AUTHOR_*``/``GIT_COMMITTER_*``
of the shell's env, with git's date formats)."""

from __future__ import annotations

import calendar
import email.utils
import os
import posixpath
import re
import time
from collections.abc import Mapping
from typing import Any

from dulwich.config import ConfigFile, StackedConfig
from dulwich.repo import Repo


class GitError(Exception):
    """A failure git reports as ``fatal: message`` (``prefix`` "" for a message of its own
    shape), with its exit status (128 as git's ``die``)."""

    def __init__(self, message: str, status: int = 128, prefix: str = "fatal: ") -> None:
        super().__init__(message)
        self.status = status
        self.prefix = prefix


class VfsRepo(Repo):
    """A dulwich repository whose configuration stack is the repository's own file and the
    shell's global one (``global_path``), not the process's ``~/.gitconfig``."""

    global_path: str | None = None

    def get_config_stack(self) -> StackedConfig:
        """The repository's config over the global one."""
        local = self.get_config()
        backends: list[ConfigFile] = [local]
        if self.global_path is not None:
            backends.append(read_config(self.global_path))
        return StackedConfig(backends, writable=local)


def read_config(path: str) -> ConfigFile:
    """The config file at ``path`` (empty when there is none)."""
    try:
        return ConfigFile.from_path(path)
    except FileNotFoundError:
        config = ConfigFile()
        config.path = path
        return config


def global_config_path(env: Mapping[str, str]) -> str:
    """``GIT_CONFIG_GLOBAL``, else ``$HOME/.gitconfig`` of the shell's env (``/`` without HOME)."""
    if env.get("GIT_CONFIG_GLOBAL"):
        return env["GIT_CONFIG_GLOBAL"]
    return posixpath.join(env.get("HOME") or "/", ".gitconfig")


def find_repo(cwd: str, env: Mapping[str, str]) -> VfsRepo:
    """The repository holding ``cwd`` (it or a parent has ``.git``); git's fatal error
    otherwise."""
    here = cwd
    while True:
        if os.path.isdir(posixpath.join(here, ".git")):
            return open_repo(here, env)
        if here == "/":
            raise GitError("not a git repository (or any of the parent directories): .git")
        here = posixpath.dirname(here)


def open_repo(path: str, env: Mapping[str, str]) -> VfsRepo:
    """The repository whose work tree is ``path``."""
    repo = VfsRepo(path)
    repo.global_path = global_config_path(env)
    return repo


def worktree_path(repo: Repo, cwd: str, operand: str) -> bytes:
    """``operand`` (relative to the cwd) as a path inside the work tree (``b""`` for its root);
    git's fatal error for a path outside it."""
    full = posixpath.normpath(posixpath.join(cwd, operand))
    root = repo.path.rstrip("/") or "/"
    if full == root:
        return b""
    if not full.startswith(root.rstrip("/") + "/"):
        raise GitError(f"{operand}: '{operand}' is outside repository at '{root}'")
    return full[len(root.rstrip("/")) + 1:].encode("utf-8", "surrogateescape")


# ----------------------------------------------------------------------------- identity


_TZ = re.compile(r"([+-])(\d\d):?(\d\d)$")


def _zone(text: str) -> int:
    match = _TZ.search(text.strip())
    if not match:
        return 0
    seconds = int(match.group(2)) * 3600 + int(match.group(3)) * 60
    return -seconds if match.group(1) == "-" else seconds


def parse_date(text: str) -> tuple[int, int]:
    """A date as git reads ``GIT_AUTHOR_DATE``: ``@SECONDS [ZONE]``, ``SECONDS ZONE``, ISO 8601
    (``2005-04-07T22:13:13+0200``) or RFC 2822; (seconds since the epoch, zone offset in
    seconds). ``GitError`` for what it cannot read."""
    text = text.strip()
    raw = re.fullmatch(r"@?(\d+)(?:\s+([+-]\d{4}))?", text)
    if raw:
        return int(raw.group(1)), _zone(raw.group(2) or "+0000")
    iso = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d))?"
                       r"(?:\.\d+)?\s*(Z|[+-]\d\d:?\d\d)?", text)
    if iso:
        fields = [int(part or 0) for part in iso.groups()[:6]]
        zone = 0 if iso.group(7) in (None, "Z") else _zone(iso.group(7))
        return calendar.timegm((*tuple(fields), 0, 0, 0)) - zone, zone
    try:
        parsed = email.utils.parsedate_tz(text)
    except (TypeError, ValueError):
        parsed = None
    if parsed is None:
        raise GitError(f"invalid date format: {text}")
    zone = parsed[9] or 0
    return calendar.timegm((*parsed[:6], 0, 0, 0)) - zone, zone


def local_zone() -> int:
    """This machine's offset from UTC now, in seconds."""
    return -(time.altzone if time.localtime().tm_isdst > 0 else time.timezone)


def _config_value(config: Any, section: str, name: str) -> str | None:
    try:
        value = config.get((section.encode(),), name.encode())
    except KeyError:
        return None
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


_WHO_UNKNOWN = """Author identity unknown

*** Please tell me who you are.

Run

  git config --global user.email "you@example.com"
  git config --global user.name "Your Name"

to set your account's default identity.
Omit --global to set the identity only in this repository.

"""


def identity(config: Any, env: Mapping[str, str], kind: str) -> tuple[bytes, int, int]:
    """Who and when for ``kind`` ("AUTHOR" or "COMMITTER"): ``Name <email>``, seconds and
    zone, from ``GIT_<KIND>_NAME``/``EMAIL``/``DATE`` of the shell's env, else ``user.name``
    and ``user.email`` (and ``EMAIL``), else git's fatal error; the date is now without one."""
    name = env.get(f"GIT_{kind}_NAME") or _config_value(config, "user", "name")
    mail = env.get(f"GIT_{kind}_EMAIL") or _config_value(config, "user", "email") \
        or env.get("EMAIL")
    if not name or mail is None:
        who = "Author" if kind == "AUTHOR" else "Committer"
        raise GitError("unable to auto-detect email address", prefix=_WHO_UNKNOWN.replace(
            "Author", who) + "fatal: ")
    date = env.get(f"GIT_{kind}_DATE")
    when, zone = parse_date(date) if date else (int(time.time()), local_zone())
    return f"{name} <{mail}>".encode("utf-8", "surrogateescape"), when, zone


def head_commit(repo: VfsRepo) -> Any:
    """HEAD's commit, or None in a repository with no commit yet."""
    try:
        return repo[repo.refs[b"HEAD"]]
    except KeyError:
        return None


def branch_label(repo: VfsRepo) -> str:
    """The current branch's name, or "detached HEAD"."""
    target = repo.refs.read_ref(b"HEAD") or b""
    if target.startswith(b"ref: refs/heads/"):
        return target[len(b"ref: refs/heads/"):].decode("utf-8", "surrogateescape")
    return "detached HEAD"
