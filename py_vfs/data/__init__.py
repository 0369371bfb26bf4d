"""Data over the file system: SQL over the tree and the journal, and snapshots."""
