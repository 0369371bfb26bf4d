"""Linear-time matching for globs and grep patterns: a Thompson NFA run as a lazy DFA.

A backtracking matcher (Python's ``re``) can take exponential time on a hostile pattern
(``(a+)+$``, ``**/**/**/...``), and patterns come from users and agents. Here a pattern is
compiled to a nondeterministic automaton whose states are visited as a *set*: each character of
the subject moves the whole set at once, so matching costs at most (subject length) x (number of
states), whatever the pattern, as in RE2 and ripgrep's regex crate. The sets met so far are
cached with their transitions (a DFA built lazily), so in practice each character costs one
dictionary lookup; the cache is bounded and simply starts over when full.

States have at most one consuming edge (a predicate on one character) and any number of empty
edges; an empty edge may require a *context* (start or end of the subject, a word boundary or
not), which is how grep's anchors work.
"""

from __future__ import annotations

from collections.abc import Callable

Predicate = Callable[[str], bool]

AT_START = 1
AT_END = 2
BOUNDARY = 4
NOT_BOUNDARY = 8

CACHE_ENTRIES = 2048  # sets of states kept per automaton before the cache starts over


class TooComplex(ValueError):
    """The pattern would need more states than ``Builder.max_states``."""


class Builder:
    """Grows an NFA: ``state()`` makes a state, ``empty`` and ``edge`` connect them."""

    def __init__(self, max_states: int) -> None:
        self.max_states = max_states
        self.empties: list[list[tuple[int, int]]] = []  # (target, required context or 0)
        self.edges: list[tuple[Predicate, int] | None] = []
        self.conditional = False  # any empty edge requires a context

    def state(self) -> int:
        """A new state; its number."""
        if len(self.edges) >= self.max_states:
            raise TooComplex(f"more than {self.max_states} states")
        self.empties.append([])
        self.edges.append(None)
        return len(self.edges) - 1

    def empty(self, source: int, target: int, context: int = 0) -> None:
        """An epsilon transition from ``source`` to ``target``."""
        self.empties[source].append((target, context))
        self.conditional = self.conditional or bool(context)

    def edge(self, source: int, predicate: Predicate, target: int) -> None:
        """One character satisfying ``predicate`` leads from ``source`` to ``target``."""
        assert self.edges[source] is None, "one consuming edge per state"
        self.edges[source] = (predicate, target)


class Automaton:
    """Match a whole subject (``search=False``, globs) or find a match anywhere in it
    (``search=True``, grep). ``word`` tells word characters apart, for word boundaries."""

    def __init__(self, builder: Builder, start: int, accept: int, *, search: bool,
                 word: Predicate | None = None) -> None:
        self._empties = builder.empties
        self._edges = builder.edges
        self._conditional = builder.conditional
        self._start = start
        self._accept = accept
        self._search = search
        self._word = word or (lambda char: char.isalnum() or char == "_")
        # The lazy DFA: sets of NFA states met so far, numbered, with their transitions.
        self._sets: list[frozenset[int]] = []
        self._numbers: dict[frozenset[int], int] = {}
        self._accepting: list[bool] = []
        self._moves: list[dict[tuple[str, int], int]] = []
        self.work = 0  # NFA states visited so far: what matching costs, for tests to bound

    def match(self, subject: str) -> bool:
        """Whether the whole of ``text`` is accepted (linear time, no backtracking)."""
        state = self._number(self._close({self._start}, self._context(subject, 0)))
        accepting, moves, search = self._accepting, self._moves, self._search
        if search and accepting[state]:
            return True
        conditional = self._conditional
        for index, char in enumerate(subject, 1):
            context = self._context(subject, index) if conditional else 0
            following = moves[state].get((char, context))
            if following is None:
                current = self._sets[state]
                if len(self._sets) >= CACHE_ENTRIES:  # bounded memory, even on a huge line
                    self._forget()
                    state = self._number(current)
                following = self._number(self._close(self._step(current, char), context))
                moves[state][(char, context)] = following
            state = following
            if search and accepting[state]:
                return True
        return accepting[state]

    def spans(self, subject: str) -> list[tuple[int, int]]:
        """The leftmost-longest non-empty matches in ``subject``, not overlapping (what grep
        -o prints and colors). From each start the automaton runs anchored until its set of
        states empties: at most (length)^2 x (states) work, polynomial whatever the pattern."""
        found: list[tuple[int, int]] = []
        begin = 0
        while begin < len(subject):
            end = self._longest(subject, begin)
            if end is None or end == begin:
                begin += 1
                continue
            found.append((begin, end))
            begin = end
        return found

    def leftmost(self, subject: str, begin: int = 0) -> tuple[int, int] | None:
        """The leftmost-longest match at or after ``begin`` (it may be empty), as (start,
        end), or None (awk's match, sub and split). The cached DFA first finds where the
        earliest match ends (linear); the leftmost match starts at or before it."""
        first_end = self.first_end(subject, begin)
        if first_end is None:
            return None
        for start in range(begin, first_end + 1):
            end = self._longest(subject, start)
            if end is not None:
                return start, end
        return None  # not reached: a match ends at first_end

    def first_end(self, subject: str, begin: int = 0) -> int | None:
        """Where the earliest-ending match starting at or after ``begin`` ends (searching),
        or None: ``match`` from ``begin``, telling where."""
        state = self._number(self._close({self._start}, self._context(subject, begin)))
        accepting, moves = self._accepting, self._moves
        if accepting[state]:
            return begin
        conditional = self._conditional
        for index in range(begin + 1, len(subject) + 1):
            char = subject[index - 1]
            context = self._context(subject, index) if conditional else 0
            following = moves[state].get((char, context))
            if following is None:
                current = self._sets[state]
                if len(self._sets) >= CACHE_ENTRIES:
                    self._forget()
                    state = self._number(current)
                following = self._number(self._close(self._step(current, char), context))
                moves[state][(char, context)] = following
            state = following
            if accepting[state]:
                return index
        return None

    def _longest(self, subject: str, begin: int) -> int | None:
        """The end of the longest match starting at ``begin``, or None."""
        states = self._close({self._start}, self._context(subject, begin), restart=False)
        last = begin if self._accept in states else None
        for index in range(begin, len(subject)):
            moved = self._step(states, subject[index])
            if not moved:
                break
            states = self._close(moved, self._context(subject, index + 1), restart=False)
            if self._accept in states:
                last = index + 1
        return last

    def _number(self, states: frozenset[int]) -> int:
        number = self._numbers.get(states)
        if number is None:
            number = self._numbers[states] = len(self._sets)
            self._sets.append(states)
            self._accepting.append(self._accept in states)
            self._moves.append({})
        return number

    def _forget(self) -> None:
        """Start the cache over (in place: ``match`` holds these lists)."""
        self._sets.clear()
        self._numbers.clear()
        self._accepting.clear()
        self._moves.clear()

    def _context(self, subject: str, index: int) -> int:
        """What holds between ``subject[index - 1]`` and ``subject[index]``."""
        if not self._conditional:
            return 0
        context = (AT_START if index == 0 else 0) | (AT_END if index == len(subject) else 0)
        before = index > 0 and self._word(subject[index - 1])
        after = index < len(subject) and self._word(subject[index])
        return context | (BOUNDARY if before != after else NOT_BOUNDARY)

    def _step(self, states: frozenset[int], char: str) -> set[int]:
        moved = set()
        for state in states:
            self.work += 1
            edge = self._edges[state]
            if edge is not None and edge[0](char):
                moved.add(edge[1])
        return moved

    def _close(self, states: set[int] | frozenset[int], context: int, *,
               restart: bool = True) -> frozenset[int]:
        """``states`` and all that empty edges allowed in ``context`` reach (and the start
        state too, when searching and ``restart``: a match may begin anywhere)."""
        todo = [*states, self._start] if self._search and restart else list(states)
        seen = set(todo)
        while todo:
            state = todo.pop()
            self.work += 1
            for target, needs in self._empties[state]:
                if target not in seen and (not needs or needs & context):
                    seen.add(target)
                    todo.append(target)
        return frozenset(seen)
