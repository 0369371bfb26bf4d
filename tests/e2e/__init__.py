"""Browser tier (a package so its test module names cannot clash with tests/unit)."""
