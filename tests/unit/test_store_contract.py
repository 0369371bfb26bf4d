"""store_contract.py's cases against each store of CPython: memory and a SQLite file (the
IndexedDB store runs them in tests/pyodide/store_contract.test.mjs)."""

from __future__ import annotations

import pytest
from helpers import run
from store_contract import CASES

from py_vfs.storage.memory import MemoryStore
from py_vfs.storage.sqlite import SQLiteStore

STORES = {"memory": lambda tmp_path: MemoryStore(),
          "sqlite": lambda tmp_path: SQLiteStore(tmp_path / "disk.db")}


@pytest.fixture(params=sorted(STORES))
def store(request, tmp_path):
    made = STORES[request.param](tmp_path)
    yield made
    made.close()


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_store_keeps_its_contract(store, name):
    run(CASES[name](store))
