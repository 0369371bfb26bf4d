"""The Python half of the page API: the wire protocol, the worker's operation table and its
realms."""
