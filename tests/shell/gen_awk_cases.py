"""Generate the random awk cases of tests/shell/cases.py (the groups `awk-gen-expr` and
`awk-gen-printf`): expressions mixing numbers, strings, strnum fields, uninitialized variables
and every operator and common builtin; printf formats with random flags, widths, precisions
and conversions. The same seed gives the same lines.

    python tests/shell/gen_awk_cases.py > /tmp/groups.py   # then replace the groups in cases.py
    python tests/shell/generate.py awk-gen-expr-01 ...      # record what GNU awk prints

The lines read `words.txt` and `fruits.csv` of the conformance tree. Formats use integral values
for the integer conversions: what gawk prints for `%d` of 2.5 or `%c` of 300 comes from C's
printf on doubles and bytes, which we do not imitate (docs/shell.md, "awk").
"""

from __future__ import annotations

import random
import sys

SEED = 20261128
ATOMS = ["x", "y", "u", "$1", "$2", "$3", "NF", "NR", "1", "0", "2.5", "-3", '"10"', '"9"',
         '"abc"', '""', '" 12 "', "1e3", "0.1", "a[1]", 'a["k"]']
OPERATORS = ["+", "-", "*", "/", "%", "^", " ", "<", "<=", "==", "!=", ">", ">=", "&&", "||",
             "~", "!~"]
CALLS = ["length(%s)", "substr(%s, 2)", "substr(%s, 0, 2)", 'index(%s, "1")', "int(%s)",
         "toupper(%s)", 'sprintf("%%d|%%s|%%.2f", %s, %s, %s)', "(%s)", "-%s", "!%s",
         '%s ""', "%s + 0", '(%s ? "T" : "F")', "split(%s, arr)", "match(%s, /[0-9]+/)"]
VALUES = ["0", "1", "-1", "123456789", '"12abc"', '"42"', "254", "65", "-77", "1000"]


def expression(rng: random.Random, depth: int) -> str:
    """A random expression at most ``depth`` deep (divisors kept away from zero)."""
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    if rng.random() < 0.5:
        op = rng.choice(OPERATORS)
        right = "2" if op == "^" else expression(rng, depth - 1)
        if op in ("/", "%"):
            right = f"({right} + 7)"
        return f"({expression(rng, depth - 1)} {op} {right})"
    call = rng.choice(CALLS)
    holes = call.replace("%%", "").count("%s")
    return call % tuple(expression(rng, depth - 1) for _ in range(holes))


def expression_line(rng: random.Random) -> str:
    """An awk command line printing three random expressions per record."""
    printed = ", ".join(expression(rng, 3) for _ in range(3))
    program = f'{{ x = "3x"; y = 10; a[1] = "5"; print {printed} }}'
    if rng.random() < 0.5:
        return f"awk -F, '{program}' fruits.csv"
    return f"awk '{program}' words.txt"


def format_line(rng: random.Random) -> str:
    """An awk command line with one printf of three random conversions."""
    specs, args = [], []
    for _ in range(3):
        flags = "".join(rng.sample("-+ #0", rng.randint(0, 2)))
        width = rng.choice(["", "1", "5", "12", "*"])
        precision = rng.choice(["", ".0", ".2", ".5", ".*"])
        spec = "%" + flags + width + precision + rng.choice("dioxXuseEfgG")
        specs.append(spec)
        args += [str(rng.randint(0, 8)) for _ in range(spec.count("*"))]
        args.append(rng.choice(VALUES))
    return f"awk 'BEGIN {{ printf \"{'|'.join(specs)}|\\n\", {', '.join(args)} }}'"


def group(name: str, lines: list[str]) -> str:
    """The Python source of one ``_group`` call, each line cut into literals of at most
    about 80 characters (at spaces) so that cases.py stays within its line length."""
    out = [f'_group("{name}", "text", [\n']
    for line in lines:
        pieces, rest = [], line
        while len(rest) > 80:
            cut = rest.rfind(" ", 0, 80)
            cut = cut if cut > 0 else 80
            pieces.append(rest[:cut + 1])
            rest = rest[cut + 1:]
        pieces.append(rest)
        out.extend(f"    {piece!r}\n" for piece in pieces[:-1])
        out.append(f"    {pieces[-1]!r},\n")
    out.append("])\n")
    return "".join(out)


def main() -> int:
    """Print the two groups."""
    rng = random.Random(SEED)
    expressions = [expression_line(rng) for _ in range(30)]
    formats = [format_line(rng) for _ in range(30)]
    sys.stdout.write(group("awk-gen-expr", expressions) + "\n" + group("awk-gen-printf", formats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
