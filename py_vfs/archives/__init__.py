"""Trees in and out of the disk: zip and tar archives, and the disk as one SQLite image."""
