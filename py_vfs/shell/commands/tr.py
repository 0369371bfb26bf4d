"""tr: translate, squeeze or delete bytes (the C locale: classes are ASCII)."""

from __future__ import annotations

import re

from ..context import Context
from ..format import quote_arg
from .gnu import getopts
from .registry import GNU, UsageError, command

_CLASSES = {
    "alnum": b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "alpha": b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "digit": b"0123456789",
    "lower": b"abcdefghijklmnopqrstuvwxyz",
    "upper": b"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "space": b" \t\n\r\v\f",
    "blank": b" \t",
    "punct": bytes(c for c in range(33, 127) if not chr(c).isalnum()),
    "print": bytes(range(32, 127)),
    "graph": bytes(range(33, 127)),
    "cntrl": bytes([*range(32), 127]),
    "xdigit": b"0123456789ABCDEFabcdef",
}
_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}


def _atoms(text: bytes) -> list[int | str]:
    """The set's characters (ints) and classes ("upper"), escapes resolved."""
    atoms: list[int | str] = []
    i = 0
    while i < len(text):
        match = re.match(rb"\[:([a-z]+):\]", text[i:])
        if match:
            name = match[1].decode()
            if name not in _CLASSES:
                raise UsageError(f"invalid character class {quote_arg(name)}")
            atoms.append(name)
            i += match.end()
            continue
        if text[i] == 0x5C and i + 1 < len(text):  # backslash
            octal = re.match(rb"[0-7]{1,3}", text[i + 1:])
            if octal:
                atoms.append(int(octal[0], 8) & 0xFF)
                i += 1 + octal.end()
                continue
            atoms.append(_ESCAPES.get(chr(text[i + 1]), text[i + 1]))
            i += 2
            continue
        atoms.append(text[i])
        i += 1
    return atoms


def expand(text: str) -> tuple[bytes, list[str]]:
    """A SET as bytes (ranges and classes expanded) and the classes it names in order."""
    atoms = _atoms(text.encode("utf-8", "surrogateescape"))
    out = bytearray()
    classes = []
    i = 0
    while i < len(atoms):
        atom = atoms[i]
        if isinstance(atom, str):
            out += _CLASSES[atom]
            classes.append(atom)
            i += 1
        elif i + 2 < len(atoms) and atoms[i + 1] == 0x2D and isinstance(atoms[i + 2], int):
            end = atoms[i + 2]
            assert isinstance(end, int)
            if end < atom:
                raise UsageError(f"range-endpoints of '{chr(atom)}-{chr(end)}' are in reverse "
                              "collating sequence order")
            out += bytes(range(atom, end + 1))
            i += 3
        else:
            out.append(atom)
            i += 1
    return bytes(out), classes


@command("tr [-c] [-d] [-s] SET1 [SET2]", "translate, squeeze or delete characters", errors=GNU)
async def tr(ctx: Context, args: list[str]) -> int:
    """Copy standard input to standard output, replacing the bytes of SET1 by those of SET2 at
    the same place (SET2's last repeated if shorter); -d delete SET1's bytes; -s squeeze a run
    of one byte of the last SET into one; -c use the complement of SET1. Sets take ranges
    (a-z), escapes (\\n \\t \\\\ \\NNN) and classes ([:lower:] [:upper:] [:digit:] [:alpha:]
    [:alnum:] [:space:] [:blank:] [:punct:] [:print:] [:graph:] [:cntrl:] [:xdigit:])."""
    options, operands = getopts(args, "cCds", ("complement", "delete", "squeeze-repeats"))
    names = {"--complement": "c", "--delete": "d", "--squeeze-repeats": "s", "-C": "c"}
    flags = {names.get(flag, flag[1:]) for flag, _ in options}
    fewest = 1 + (("d" in flags) == ("s" in flags))
    most = 1 + ("d" not in flags or "s" in flags)
    if not operands:
        raise UsageError("missing operand")
    if len(operands) < fewest:
        raise UsageError(f"missing operand after {quote_arg(operands[-1])}", detail=(
            "Two strings must be given when both deleting and squeezing repeats."
            if "s" in flags else "Two strings must be given when translating."))
    if len(operands) > most:
        raise UsageError(f"extra operand {quote_arg(operands[most])}", detail=(
            "Only one string may be given when deleting without squeezing repeats."
            if len(operands) == 2 else ""))
    set1, classes1 = expand(operands[0])
    if "c" in flags:
        set1 = bytes(b for b in range(256) if b not in set1)
    set2, classes2 = expand(operands[1]) if len(operands) > 1 else (b"", [])
    table = bytes(range(256))
    if len(operands) == 2 and "d" not in flags:
        if not set2:
            raise UsageError("when not truncating set1, string2 must be non-empty")
        if (classes1 == ["lower"] and classes2 == ["upper"]) or \
           (classes1 == ["upper"] and classes2 == ["lower"]):
            set2 = _CLASSES[classes2[0]]
        padded = set2 + set2[-1:] * max(0, len(set1) - len(set2))
        mapping = bytearray(range(256))
        for source, target in zip(set1, padded, strict=False):
            mapping[source] = target
        table = bytes(mapping)
    delete = set1 if "d" in flags else b""
    squeeze = set((set2 if len(operands) == 2 else set1) if "s" in flags else b"")
    last = -1
    async for piece in ctx.stdin.chunks():
        data = piece.translate(table, delete)
        if squeeze:
            out = bytearray()
            for byte in data:
                if byte == last and byte in squeeze:
                    continue
                out.append(byte)
                last = byte
            data = bytes(out)
        await ctx.write(data)
    return 0
