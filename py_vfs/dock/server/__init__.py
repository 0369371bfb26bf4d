"""The dock's server: the HTTP API (``app.py``), its database (``db.py``), path tokens
(``scope.py``) and the command line (``run.py``). It needs the ``py_vfs[dock]`` extra
(Starlette, uvicorn, psycopg); the rest of py_vfs does not import it."""
