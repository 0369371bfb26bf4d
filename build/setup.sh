#!/bin/sh
# Install what py_vfs needs to build (and, with --test, to test), and only what is missing.
#
#   sh build/setup.sh           node_modules (npm ci) and .venv (pinned tools)
#   sh build/setup.sh --test    the same, plus Debian's chromium, firefox-esr, sqlite3, git, zip,
#                               unzip, gawk and postgresql when they are missing (chromium then checked
#                               by build/check_browser.py), and the wheels the Pyodide tier runs
#                               tests/unit with (.cache/)
#
# Fast when nothing is missing: it compares timestamps and a sha256 stamp; with --test it also
# launches the browser once to check it (a few seconds).
set -eu

cd "$(dirname "$0")/.."

want_test=0
for arg in "$@"; do
    case "$arg" in
        --test) want_test=1 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "setup: unknown argument: $arg" >&2; exit 2 ;;
    esac
done

say() { echo "setup: $*"; }
die() { echo "setup: error: $*" >&2; exit 1; }

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        python3 -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"
    fi
}

# 1. node_modules: npm ci when missing or older than package-lock.json.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    command -v npm >/dev/null 2>&1 || die "npm not found: install Node.js 20+ and npm"
    say "npm ci (node_modules missing or older than package-lock.json)"
    npm ci --no-audit --no-fund --loglevel=error || die "npm ci failed"
    touch node_modules/.package-lock.json
else
    say "node_modules up to date"
fi

# 2. .venv: created when missing; pinned tools installed when build/requirements.txt changed.
req_sha=$(sha256_of build/requirements.txt)
stamp=.venv/.requirements.sha256
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c '' >/dev/null 2>&1; then
    command -v python3 >/dev/null 2>&1 || die "python3 not found"
    say "creating .venv"
    rm -rf .venv
    python3 -m venv .venv || die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$req_sha" ]; then
    say "pip install -r build/requirements.txt"
    .venv/bin/python -m pip install --disable-pip-version-check -q -r build/requirements.txt \
        || die "pip install -r build/requirements.txt failed"
    echo "$req_sha" > "$stamp"
else
    say ".venv up to date"
fi

# 3. --test: Debian's packages the tests use, installed when missing: a Chromium for Playwright
#    (`playwright install` cannot work here), Firefox ESR for the Firefox tier, the sqlite3
#    command-line tool (tests/unit/test_sqlite_views.py queries a disk file with it), git (the
#    bench's G1 makes its repository with it and serves it with `git http-backend`, part of
#    Debian's git; the shell's `git` is checked against it: tests/unit/test_shell_git*.py), and
#    Info-ZIP's zip and unzip (tests/unit/test_archive.py).
if [ "$want_test" = 1 ]; then
    missing=""
    if [ -n "${CHROMIUM:-}" ] && [ -x "$CHROMIUM" ]; then
        say "chromium: $CHROMIUM (from \$CHROMIUM)"
    elif command -v chromium >/dev/null 2>&1; then
        say "chromium: $(command -v chromium)"
    else
        missing="chromium"
    fi
    # Debian's Firefox ESR for the Firefox tier (tests/firefox), driven over WebDriver BiDi by
    # puppeteer-core: nothing is downloaded from Mozilla (docs/testing.md).
    if [ -n "${FIREFOX:-}" ] && [ -x "$FIREFOX" ]; then
        say "firefox-esr: $FIREFOX (from \$FIREFOX)"
    elif command -v firefox-esr >/dev/null 2>&1; then
        say "firefox-esr: $(command -v firefox-esr)"
    else
        missing="$missing firefox-esr"
    fi
    if command -v sqlite3 >/dev/null 2>&1; then
        say "sqlite3: $(command -v sqlite3)"
    else
        missing="$missing sqlite3"
    fi
    if command -v git >/dev/null 2>&1; then
        say "git: $(command -v git)"
    else
        missing="$missing git"
    fi
    # Info-ZIP's zip and unzip: tests/unit/test_archive.py checks our zips against them (the
    # CPython tier accounts for every skip, so the test must not skip for want of them).
    # GNU awk: tests/shell/generate.py records what it prints for the awk cases.
    for tool in zip unzip gawk; do
        if command -v "$tool" >/dev/null 2>&1; then
            say "$tool: $(command -v "$tool")"
        else
            missing="$missing $tool"
        fi
    done
    # Debian's postgresql: the dock tier (tests/dock) makes a cluster of its own with initdb and
    # pg_ctl, found on PATH or in /usr/lib/postgresql/*/bin (the package's own place for them).
    pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -n 1)
    if command -v initdb >/dev/null 2>&1 || { [ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ]; }; then
        say "postgresql: ${pg_bin:-$(dirname "$(command -v initdb)")}"
    else
        missing="$missing postgresql"
    fi
    if [ -n "$missing" ]; then
        command -v apt-get >/dev/null 2>&1 || die "not found:$missing, and no apt-get: install them (for chromium, or set CHROMIUM=/path/to/chromium; for firefox-esr, or set FIREFOX=/path/to/firefox)"
        if [ "$(id -u)" = 0 ]; then
            sudo=""
        elif command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            die "not found:$missing; run as root (or install sudo): apt-get install -y$missing"
        fi
        say "installing$missing (apt-get)"
        $sudo apt-get update -q >/dev/null || die "apt-get update failed"
        # shellcheck disable=SC2086  # $missing is a list of package names
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null \
            || die "apt-get install$missing failed"
        for tool in $missing; do
            if [ "$tool" = postgresql ]; then
                ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
                    || die "initdb not found after apt-get install postgresql"
                continue
            fi
            command -v "$tool" >/dev/null 2>&1 || die "$tool still not on PATH after apt-get install"
            say "$tool: $(command -v "$tool")"
        done
    fi
    # Is it a browser the tests can drive? Launches it once, bounded (docs/testing.md).
    .venv/bin/python build/check_browser.py || die "the browser check failed (see above)"
fi

# 4. --test: the wheels tests/pyodide/unit_suite.mjs loads into Pyodide to run tests/unit there
#    (pytest, hypothesis and their deps, for Pyodide 314's platform; pins and sha256 hashes in
#    tests/pyodide/requirements.txt). Downloaded again only when that file changes.
if [ "$want_test" = 1 ]; then
    wheels=.cache/pyodide-wheels
    wheels_req=tests/pyodide/requirements.txt
    wheels_sha=$(sha256_of "$wheels_req")
    if [ ! -f "$wheels/.requirements.sha256" ] || [ "$(cat "$wheels/.requirements.sha256")" != "$wheels_sha" ]; then
        say "pip download -r $wheels_req (wheels for Pyodide, into $wheels/)"
        rm -rf "$wheels"
        mkdir -p "$wheels"
        .venv/bin/python -m pip download --disable-pip-version-check -q --no-deps \
            --only-binary=:all: --python-version 3.14 --implementation cp --abi cp314 \
            --platform pyemscripten_2026_0_wasm32 -r "$wheels_req" -d "$wheels" \
            || die "pip download -r $wheels_req failed"
        echo "$wheels_sha" > "$wheels/.requirements.sha256"
    else
        say "Pyodide wheels up to date"
    fi
fi

say "done"
