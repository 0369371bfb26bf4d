"""jq's strings: the `@` formats (`@csv @tsv @json @text @html @uri @sh @base64 @base64d`)
and the regular-expression builtins (`test match capture scan split splits sub gsub`).

jq's regexes are Oniguruma's (Perl-like); here they are Python's ``re``, which reads the same
everyday syntax (named groups `(?<name>...)` are rewritten to Python's `(?P<name>...)`). A
pattern is at most ``MAX_PATTERN`` characters; Python's matcher backtracks, so a hostile
pattern on a long string is slow (Ctrl-C stops the command between inputs).
"""

from __future__ import annotations

import base64
import re
import urllib.parse
from collections.abc import Callable
from typing import Any

from .jq_values import JqError, charge, dump, tostring, type_name

MAX_PATTERN = 4096  # characters of one regex
FLAGS = {"g": 0, "n": 0, "i": re.IGNORECASE, "x": re.VERBOSE, "s": re.DOTALL,
         "l": 0, "p": re.DOTALL | re.MULTILINE}
_cache: dict[tuple[str, int], re.Pattern[str]] = {}


def apply_format(name: str, value: Any) -> str:
    """`@name` applied to ``value``."""
    if name == "text":
        return tostring(value)
    if name == "json":
        return dump(value, True)
    if name in ("csv", "tsv"):
        if not isinstance(value, list):
            raise JqError(f"{type_name(value)} ({dump(value, True)}) cannot be "
                          f"{name}-formatted, only an array can be")
        return ("," if name == "csv" else "\t").join(_cell(name, item) for item in value)
    if name == "sh":
        items = value if isinstance(value, list) else [value]
        return " ".join(_shell_word(item) for item in items)
    text = tostring(value)
    if name == "html":
        for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("'", "&#39;"),
                             ('"', "&quot;")):
            text = text.replace(char, entity)
        return text
    if name == "uri":
        return urllib.parse.quote(text, safe="-_.~" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                  "abcdefghijklmnopqrstuvwxyz0123456789")
    if name == "base64":
        return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")
    if name == "base64d":
        data = text.encode("ascii", "replace").rstrip(b"=")
        data += b"=" * (-len(data) % 4)
        try:
            decoded = base64.b64decode(data, validate=False)
        except ValueError:
            raise JqError(f"{type_name(value)} ({dump(value, True)}) is not valid base64 "
                          "data") from None
        return decoded.decode("utf-8", "replace")
    raise JqError(f"{name} is not a valid format", 3)


def _cell(kind: str, item: Any) -> str:
    if isinstance(item, str):
        if kind == "csv":
            return '"' + item.replace('"', '""') + '"'
        return item.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n") \
            .replace("\r", "\\r")
    if isinstance(item, list | dict):
        raise JqError(f"{type_name(item)} ({dump(item, True)}) is not valid in a csv row")
    return "" if item is None else dump(item, True)


def _shell_word(item: Any) -> str:
    if isinstance(item, list | dict):
        raise JqError(f"{type_name(item)} ({dump(item, True)}) can not be escaped for shell")
    if isinstance(item, str):
        return "'" + item.replace("'", "'\\''") + "'"
    return dump(item, True)


def compile_regex(pattern: Any, flags: Any) -> tuple[re.Pattern[str], bool, bool]:
    """The regex, whether it is global (`g`), and whether empty matches are dropped (`n`)."""
    if not isinstance(pattern, str):
        raise JqError(f"{type_name(pattern)} ({dump(pattern, True)}) cannot be matched, as "
                      "it is not a string")
    if flags is not None and not isinstance(flags, str):
        raise JqError(f"{type_name(flags)} ({dump(flags, True)}) is not a string")
    if len(pattern) > MAX_PATTERN:
        raise JqError(f"limit exceeded (a regex longer than {MAX_PATTERN} characters)")
    bits = 0
    for flag in flags or "":
        if flag not in FLAGS:
            raise JqError(f"{flags} is not a valid modifier string")
        bits |= FLAGS[flag]
    key = (pattern, bits)
    if key not in _cache:
        try:
            _cache[key] = re.compile(re.sub(r"\(\?<([A-Za-z_]\w*)>", r"(?P<\1>", pattern),
                                     bits)
        except re.error as exc:
            raise JqError(f"{pattern} (at offset {exc.pos or 0}) is not a valid regex: "
                          f"{exc.msg}") from None
        if len(_cache) > 256:
            _cache.pop(next(iter(_cache)))
    return _cache[key], "g" in (flags or ""), "n" in (flags or "")


def matches(value: Any, pattern: Any, flags: Any, test: bool = False) -> list[dict[str, Any]]:
    """jq's match objects of ``pattern`` in ``value`` (all with `g`, else the first)."""
    if not isinstance(value, str):
        raise JqError(f"{type_name(value)} ({dump(value, True)}) cannot be matched, as it "
                      "is not a string")
    regex, every, skip_empty = compile_regex(pattern, flags)
    if test:
        return [{}] if regex.search(value) else []
    found = []
    names = {number: name for name, number in regex.groupindex.items()}
    for match in regex.finditer(value):
        if skip_empty and match.end() == match.start():
            continue
        charge(1)
        captures = []
        for number in range(1, regex.groups + 1):
            if match.start(number) < 0:
                captures.append({"offset": -1, "string": None, "length": 0,
                                 "name": names.get(number)})
            else:
                captures.append({"offset": match.start(number),
                                 "length": match.end(number) - match.start(number),
                                 "string": match[number], "name": names.get(number)})
        found.append({"offset": match.start(), "length": match.end() - match.start(),
                      "string": match[0], "captures": captures})
        if not every:
            break
    return found


def capture_object(match: dict[str, Any]) -> dict[str, Any]:
    """`capture`: the named groups of one match."""
    return {c["name"]: c["string"] for c in match["captures"] if c["name"] is not None}


def split_regex(value: Any, pattern: Any, flags: Any) -> list[str]:
    """`split(re; flags)`: the pieces between the matches."""
    pieces, at = [], 0
    for match in matches(value, pattern, (flags or "") + "g"):
        pieces.append(value[at:match["offset"]])
        at = match["offset"] + match["length"]
    pieces.append(value[at:])
    return pieces


def implode(value: Any) -> str:
    """`implode`: the string of an array of code points."""
    if not isinstance(value, list):
        raise JqError("implode input must be an array")
    return "".join(chr(int(code)) for code in value)


def split(value: Any, separator: Any) -> list[str]:
    """`split(s)`: the pieces of a string between the separators."""
    if not isinstance(value, str) or not isinstance(separator, str):
        raise JqError("split input and separator must be strings")
    if value == "":
        return []
    return value.split(separator) if separator else list(value)


def trim(kind: str) -> Callable[[Any, Any], Any]:
    """`ltrimstr` (kind "l") and `rtrimstr` ("r")."""
    def trim(value: Any, affix: Any) -> Any:
        if not isinstance(value, str) or not isinstance(affix, str):
            return value
        if kind == "l" and value.startswith(affix):
            return value[len(affix):]
        if kind == "r" and affix and value.endswith(affix):
            return value[:-len(affix)]
        return value
    return trim


def starts(kind: str) -> Callable[[Any, Any], bool]:
    """`startswith` and `endswith`."""
    def check(value: Any, affix: Any) -> bool:
        if not isinstance(value, str) or not isinstance(affix, str):
            raise JqError(f"{kind}() requires string inputs")
        return value.startswith(affix) if kind == "startswith" else value.endswith(affix)
    return check
