"""The dock: one disk across browsers, devices and machines (docs/dock.md).

``wire.py`` (the protocol's limits and checks) and ``merge.py`` (the conflict rules) are shared
by both halves; ``replica.py`` is the sync engine a disk runs (pure Python, async, its HTTP
through an injected transport, so the browser's worker runs it unchanged); ``transport.py`` is
CPython's transport; ``server/`` is the dock itself.
"""
