"""The Python-API conformance suite (cases.py), run on Linux and on the VFS."""
