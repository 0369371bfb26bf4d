#!/bin/sh
# Run every test tier, even after one fails; exit non-zero if any failed.
#   lint  ruff check py_vfs tests build bench
#   unit  pytest tests/unit   (CPython, no browser; in a worker per core, under coverage.py,
#         with a floor)
#   pyodide  node --test tests/pyodide  (the real Pyodide in Node, fake-indexeddb; it also runs
#            tests/unit in Pyodide, with the wheels `build/setup.sh --test` downloads)
#   types tsc -p tests/types  (the TypeScript types of web/*.d.mts, over a program that calls
#         every method; about a second)
#   dock  pytest tests/dock   (real dock processes on 127.0.0.1, on SQLite and on a Postgres
#         cluster the tests make in a temporary directory: docs/dock.md)
#   e2e   pytest tests/e2e    (dist/ served on 127.0.0.1, Debian's chromium via Playwright)
#   firefox  node --test tests/firefox  (dist/ served by build/serve.py, Debian's firefox-esr over
#            WebDriver BiDi with puppeteer-core)
# Expects dist/ to be built (npm test does it first). To run one tier or one test, call pytest
# directly, e.g. `.venv/bin/python -m pytest tests/e2e -x -k boot`.
cd "$(dirname "$0")/.." || exit 2

PY=.venv/bin/python
failed=""
summary=""

now() { date +%s; }

tier() {
    name=$1
    shift
    echo "== $name: $*"
    start=$(now)
    "$@"
    rc=$?
    secs=$(( $(now) - start ))
    case $rc in
        0) result="ok" ;;
        5) result="FAILED (no tests collected)" ;;
        *) result="FAILED (exit $rc)" ;;
    esac
    [ "$rc" -eq 0 ] || failed="$failed $name"
    line="== $name: $result, ${secs} s"
    echo "$line"
    summary="$summary
$line"
}

tier lint "$PY" -m ruff check py_vfs tests build bench
tier types node_modules/.bin/tsc -p tests/types
# The unit tier under coverage.py: in a pytest-xdist worker per core (at most 4), each measured
# by pytest-cov and combined into one data file; py_vfs's line coverage is reported after the
# tests, and the tier fails when the tests fail or the total is under COVERAGE_FLOOR
# (docs/testing.md). py_vfs/dock is the dock tier's (tests/dock runs it as real processes) and is
# left out (pyproject.toml, [tool.coverage.run]).
COVERAGE_FLOOR=89
unit_with_coverage() {
    data=$(mktemp -d "${TMPDIR:-/tmp}/pyvfs-coverage.XXXXXX") || return 2
    COVERAGE_FILE="$data/unit" "$PY" -m pytest tests/unit -q --numprocesses=auto --maxprocesses=4 \
        --cov=py_vfs --cov-report=
    tests_rc=$?
    "$PY" -m coverage report --data-file="$data/unit" --skip-covered --sort=cover | tail -n 12
    total=$("$PY" -m coverage report --data-file="$data/unit" --format=total \
        --fail-under="$COVERAGE_FLOOR")
    cover_rc=$?
    rm -rf "$data"
    echo "unit: py_vfs line coverage ${total}% (floor ${COVERAGE_FLOOR}%)"
    [ "$cover_rc" -eq 0 ] || echo "unit: coverage under the floor"
    [ "$tests_rc" -ne 0 ] && return "$tests_rc"
    return "$cover_rc"
}
tier unit unit_with_coverage
# --test-timeout: 20 min for a test that sets no timeout of its own, and for each test file as
# a whole (node runs each file in a process of its own, bounded by it too): unit_1.test.mjs and
# unit_2.test.mjs each run half of tests/unit inside Pyodide, bounded by their own 15 min.
# Two files at a time: the halves run side by side (one Pyodide each), and the tier takes about
# as long as the slower half instead of the whole suite.
tier pyodide node --test --test-timeout=1200000 --test-concurrency=2 tests/pyodide/
tier dock "$PY" -m pytest tests/dock -q -p no:cacheprovider
# The slowest browser tests are listed after them: the tier is most of the run's time.
tier e2e "$PY" -m pytest tests/e2e -q --durations=15
# 10 min for each Firefox test file (each launches its own Firefox, or two for the restart).
tier firefox node --test --test-timeout=600000 tests/firefox/

echo
echo "== summary"
printf '%s\n' "$summary" | sed '/^$/d'
if [ -n "$failed" ]; then
    echo "== tiers failed:$failed"
    exit 1
fi
echo "== all tiers ok"
