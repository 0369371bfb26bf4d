"""dulwich's smart-HTTP client over the shell's own HTTP transport (``http_transport.send``,
as `curl` uses: urllib on CPython, the browser's ``fetch`` in the page), so `git clone`,
`fetch`, `pull` and `push` reach what curl may reach, and a scoop without network is refused
with curl's reason. Only http(s) URLs: ssh and git:// cannot be reached from a browser."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

from dulwich.client import AbstractHttpGitClient
from dulwich.errors import GitProtocolError, HangupException, NotGitRepository

from .git_repo import GitError
from .git_runner import Bound
from .http_transport import TooLarge, copy_body, network_refusal, send
from .http_types import Deadline, NetworkError, Request

TIMEOUT = 300.0  # seconds one request may take


class _Headers:
    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.pairs = pairs

    def get(self, name: str, default: Any = None) -> Any:
        lowered = name.lower()
        return next((value for key, value in self.pairs if key.lower() == lowered), default)


class _Response:
    """What dulwich reads of a response: status, headers, content type, redirect."""

    def __init__(self, status: int, headers: list[tuple[str, str]], url: str,
                 asked: str) -> None:
        self.status = status
        self.headers = _Headers(headers)
        self.content_type = self.headers.get("Content-Type")
        self.redirect_location = url if url != asked else ""

    def close(self) -> None:
        """Nothing is left open: the body was read whole."""


class ShellHttpClient(AbstractHttpGitClient):
    """A dulwich HTTP client whose requests go through ``bound`` to the shell's transport."""

    def __init__(self, base_url: str, bound: Bound, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self.bound = bound

    def _http_request(self, url: str, headers: dict[str, str] | None = None,
                      data: bytes | Iterator[bytes] | None = None,
                      raise_for_status: bool = True) -> tuple[Any, Callable[[int], bytes]]:
        """One request (POST when there is ``data``), its body read whole (at most the
        shell's ``limits.MAX_DOWNLOAD``)."""
        body = data if data is None or isinstance(data, bytes) else b"".join(data)
        pairs = [("Pragma", "no-cache"), *((headers or {}).items())]
        request = Request("GET" if body is None else "POST", url, pairs, body)
        try:
            status, answer, got = self.bound.call(_fetch(request))
        except NetworkError as exc:
            detail = f"Failed to connect to {exc.where}: {exc}" if exc.where else str(exc)
            raise GitError(f"unable to access '{self._base_url}': {detail}") from None
        except TooLarge as exc:
            raise GitError(f"unable to access '{self._base_url}': more than {exc}") from None
        response = _Response(status, answer, got[0], url)
        if raise_for_status:
            if status == 404:
                raise NotGitRepository()
            if status != 200:
                raise GitProtocolError(f"unexpected http resp {status} for {url}")
        return response, io.BytesIO(got[1]).read


async def _fetch(request: Request) -> tuple[int, list[tuple[str, str]], tuple[str, bytes]]:
    deadline = Deadline(TIMEOUT)
    response = await send(request, deadline, follow=True, max_redirects=10, syscall="git")
    chunks: list[bytes] = []

    async def keep(chunk: bytes) -> None:
        chunks.append(chunk)

    await copy_body(response, keep, deadline, "git")
    return response.status, response.headers, (response.url, b"".join(chunks))


def client_for(bound: Bound, url: str) -> tuple[ShellHttpClient, str]:
    """The client for ``url`` and the path to give it; git's fatal error for a URL it cannot
    reach (not http(s), or a scoop without network)."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in ("http", "https"):
        raise GitError(f"'{url}': only http:// and https:// remotes can be reached here "
                       "(no ssh, git:// or local paths)")
    refusal = network_refusal(bound.ctx.vfs)
    if refusal is not None:
        raise GitError(f"unable to access '{url}': Failed to connect: {refusal}")
    return ShellHttpClient(url, bound, quiet=True), ""


def remote_failure(exc: BaseException, url: str) -> GitError:
    """A dulwich failure while talking to ``url`` as git words it."""
    if isinstance(exc, NotGitRepository):
        return GitError(f"repository '{url}' not found")
    if isinstance(exc, HangupException | GitProtocolError):
        return GitError(f"unable to access '{url}': {exc}")
    return GitError(f"{url}: {exc}")

