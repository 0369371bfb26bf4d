"""The disk: content and its chunks, the index, watch, the journal, the revisions tabs share,
scopes, and the one commit engine."""
