"""Objects that offer the declared API (``surface.py``) over another one: generated, not written.

``forwarding(offers)`` is a class decorator: it adds to the class every declared method that
``offers`` selects and the class does not write itself, each a forwarder with the declared
name, signature and docstring, which calls the class's hooks around the target's method:

- ``_enter(op, args, kwargs) -> (target, token)``: check the call (raise to refuse it), set what
  it runs under (a context variable), and name the object that runs it;
- ``_leave(token)``: undo what ``_enter`` set;
- ``_filter(op, value)`` (optional): the result, filtered as ``op.returns`` says it is made.

``implements`` gives an implementation of the declaration (``VFS``) the declared docstrings and
fails at import if it misses a method; ``protocol`` makes a ``Protocol`` of declared methods,
for code typed against a part of the API (the shell, the copies by content, a step's host).
``WriterView`` is the simplest forwarder: the same disk with every change made by a writer.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

from ..disk.writers import check_writer
from ..storage.transaction import WRITER
from .surface import DECLARED, Declared

C = TypeVar("C", bound=type)


def _forwarder(op: Declared, filtered: bool) -> Any:
    """The method (or property) ``op`` of a forwarding class."""
    name = op.name
    if isinstance(op.function, property):
        def get(self: Any) -> Any:
            target, token = self._enter(op, (), {})
            try:
                return getattr(target, name)
            finally:
                self._leave(token)
        return property(get, doc=op.function.__doc__)
    if op.is_async:
        async def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            target, token = self._enter(op, args, kwargs)
            try:
                value = await getattr(target, name)(*args, **kwargs)
            finally:
                self._leave(token)
            return self._filter(op, value) if filtered else value
    else:
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            target, token = self._enter(op, args, kwargs)
            try:
                value = getattr(target, name)(*args, **kwargs)
            finally:
                self._leave(token)
            return self._filter(op, value) if filtered else value
    # The declared name, docstring and (through ``__wrapped__``) signature.
    return functools.update_wrapper(method, op.function)


def forwarding(offers: Callable[[Declared], bool]) -> Callable[[C], C]:
    """Add to a class the declared methods ``offers`` selects that it does not define."""
    def build(cls: C) -> C:
        filters = hasattr(cls, "_filter")
        for op in DECLARED.values():
            if offers(op) and op.name not in vars(cls):
                forwarder = _forwarder(op, filters and bool(op.returns))
                function = forwarder.fget if isinstance(forwarder, property) else forwarder
                function.__qualname__ = f"{cls.__qualname__}.{op.name}"
                function.__module__ = cls.__module__
                setattr(cls, op.name, forwarder)
        return cls
    return build


def implements(cls: C) -> C:
    """Check that ``cls`` defines every declared method, and give those without a docstring
    the declared one (``help(VFS.read_file)`` shows it)."""
    missing = sorted(set(DECLARED) - set(vars(cls)))
    if missing:
        raise TypeError(f"{cls.__name__} lacks the declared {', '.join(missing)}")
    for name, op in DECLARED.items():
        member = vars(cls)[name]
        if isinstance(member, property):
            if member.__doc__ is None:
                setattr(cls, name, property(member.fget, member.fset, member.fdel,
                                            op.function.__doc__))
        elif getattr(member, "__doc__", None) is None:
            member.__doc__ = op.function.__doc__
    return cls


def protocol(name: str, methods: Iterable[str], doc: str, module: str, *,
             attributes: dict[str, str] | None = None) -> type:
    """A ``Protocol`` named ``name`` of the declared ``methods`` (and ``attributes``: name to
    annotation), as if written in ``module``."""
    def body(namespace: dict[str, Any]) -> None:
        namespace.update({method: DECLARED[method].function for method in methods})
        namespace.update(__doc__=doc, __module__=module, __annotations__=attributes or {})

    return types.new_class(name, (Protocol,), exec_body=body)


@forwarding(lambda op: True)
class WriterView:
    """``target`` (a VFS) with every change made by ``writer``: each declared method runs with
    ``WRITER`` set, so the commit engine, a step opened through it and a stream it opens all
    take it. Any other attribute is the target's own. A thin proxy: no second disk."""

    def __init__(self, target: Any, writer: str) -> None:
        self._target = target
        self.writer = check_writer(writer)

    def _enter(self, op: Declared, args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> tuple[Any, Any]:
        return self._target, WRITER.set(self.writer)

    @staticmethod
    def _leave(token: Any) -> None:
        WRITER.reset(token)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)
