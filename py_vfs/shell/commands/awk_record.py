"""The current record ($0) and its fields: split lazily under the FS that was in effect when
the record was read, rebuilt with OFS when a field or NF is assigned.

FS " " (the default): fields are runs of anything but blanks and newlines; one other character:
that character; "": each character a field (gawk); longer: an ERE. In paragraph mode (RS "")
a newline also separates fields.
"""

from __future__ import annotations

from ..limits import check_value
from .awk_regex import compile_ere
from .awk_values import AwkError, StrNum

MAX_FIELD = 1 << 20  # the highest field number a program may assign


def split_text(text: str, fs: str, paragraph: bool = False) -> list[str]:
    """``text`` cut into fields by the separator ``fs`` (awk's rules above)."""
    if fs == " ":
        return text.split()
    if text == "":
        return []
    if fs == "":
        return list(text)
    if len(fs) == 1 and fs != "\\":
        if paragraph and fs != "\n":
            return text.replace("\n", fs).split(fs)
        return text.split(fs)
    regex = compile_ere(f"({fs})|\n" if paragraph else fs)
    fields: list[str] = []
    at = 0
    begin = 0
    while begin <= len(text):
        found = regex.find(text, begin)
        if found is None:
            break
        start, end = found
        if start == end:  # an empty match separates nothing
            begin = start + 1
            continue
        fields.append(text[at:start])
        at = begin = end
    fields.append(text[at:])
    return fields


class Record:
    """$0, its fields and NF."""

    def __init__(self) -> None:
        self.text = ""
        self.fields: list[str] | None = []
        self.fs = " "
        self.paragraph = False

    def set(self, text: str, fs: str, paragraph: bool) -> None:
        """A new $0 (read, or assigned): fields are split when first needed."""
        self.text = text
        self.fields = None
        self.fs, self.paragraph = fs, paragraph

    def split(self) -> list[str]:
        """The fields (split now if not yet)."""
        if self.fields is None:
            self.fields = split_text(self.text, self.fs, self.paragraph)
        return self.fields

    def nf(self) -> int:
        """NF."""
        return len(self.split())

    def get(self, index: int) -> StrNum:
        """$index (a strnum; "" past NF)."""
        if index == 0:
            return StrNum(self.text)
        if index < 0:
            raise AwkError(f"fatal: attempt to access field {index}")
        fields = self.split()
        return StrNum(fields[index - 1]) if index <= len(fields) else StrNum("")

    def assign(self, index: int, value: str, ofs: str) -> None:
        """$index = value: $0 is rebuilt with OFS (index 0: $0 itself, split again)."""
        if index == 0:
            self.set(value, self.fs, self.paragraph)
            return
        if index < 0 or index > MAX_FIELD:
            raise AwkError(f"fatal: attempt to access field {index}")
        fields = self.split()
        if index > len(fields):
            fields.extend([""] * (index - len(fields)))
        fields[index - 1] = value
        self.rebuild(ofs)

    def set_nf(self, count: int, ofs: str) -> None:
        """NF = count: fields cut off or added empty, $0 rebuilt."""
        if count < 0 or count > MAX_FIELD:
            raise AwkError(f"fatal: NF set to {count}")
        fields = self.split()
        del fields[count:]
        fields.extend([""] * (count - len(fields)))
        self.rebuild(ofs)

    def rebuild(self, ofs: str) -> None:
        """$0 from the fields joined by OFS."""
        fields = self.split()
        check_value("awk record", sum(map(len, fields)) + len(ofs) * len(fields))
        self.text = ofs.join(fields)
