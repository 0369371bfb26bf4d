"""The coreutils of the coreutils branch beyond what the conformance cases show: gzip's file
format both ways with the real gzip (skipped without one), its header fields, the bound on a
gzip bomb, hostile gzip headers, expr's regex on a hostile pattern, diff -r on a symlink loop,
and a few outputs the conformance cases cannot pin (random names, big inputs)."""

from __future__ import annotations

import errno
import gzip as pygzip
import os
import shutil
import struct
import subprocess
import sys
import time

import pytest

from py_vfs.shell import limits

REAL_GZIP = None if sys.platform == "emscripten" else shutil.which("gzip")
needs_gzip = pytest.mark.skipif(REAL_GZIP is None,
                                reason="no gzip on this machine (or no processes: Pyodide)")
TEXT = b"".join(b"line %d of a text that repeats\n" % n for n in range(5000))


@needs_gzip
def test_our_gzip_is_read_by_the_real_gunzip(sh):
    sh.write("/t.txt", TEXT)
    sh.ok("gzip -9 /t.txt")
    real = subprocess.run([REAL_GZIP, "-dc"], input=sh.read("/t.txt.gz"), capture_output=True,
                          check=True, timeout=30)
    assert real.stdout == TEXT


@needs_gzip
def test_the_real_gzip_is_read_by_our_gunzip(sh):
    for level in ("-1", "-6", "-9"):
        real = subprocess.run([REAL_GZIP, level, "-c"], input=TEXT, capture_output=True,
                              check=True, timeout=30)
        sh.write("/r.gz", real.stdout)
        sh.ok("gunzip -f /r.gz")
        assert sh.read("/r") == TEXT
        sh.ok("rm /r")


@needs_gzip
def test_the_real_gzip_lists_what_our_header_stores(sh):
    sh.write("/w.txt", b"hello\n")
    sh.set_mtime("/w.txt", "2023-11-14 22:13")
    sh.ok("gzip -c /w.txt > /w.gz")
    real = subprocess.run([REAL_GZIP, "-dc", "-N", "-v"], input=sh.read("/w.gz"),
                          capture_output=True, check=True, timeout=30)
    assert real.stdout == b"hello\n"


def test_the_header_holds_the_name_the_time_and_unix(sh):
    sh.write("/a.txt", b"abc\n")
    sh.set_mtime("/a.txt", "2023-11-14 22:13")
    sh.ok("gzip -c /a.txt > /a.gz; gzip -n -c /a.txt > /n.gz; gzip -9 -c /a.txt > /9.gz")
    named, bare, best = sh.read("/a.gz"), sh.read("/n.gz"), sh.read("/9.gz")
    assert named[:4] == b"\x1f\x8b\x08\x08"  # deflate, FNAME
    assert struct.unpack("<I", named[4:8])[0] == 1_699_999_980
    assert named[8:10] == b"\x00\x03" and named[10:16] == b"a.txt\0"
    assert bare[3] == 0 and bare[4:8] == bytes(4) and bare[9] == 3
    assert best[8] == 2
    for data in (named, bare, best):
        assert pygzip.decompress(data) == b"abc\n"


def test_gunzip_N_takes_the_stored_name_and_time(sh):
    sh.write("/orig.txt", b"x\n")
    sh.set_mtime("/orig.txt", "2020-01-02 03:04")
    sh.ok("gzip /orig.txt && mv /orig.txt.gz /renamed.gz && gunzip -N /renamed.gz")
    assert sh.read("/orig.txt") == b"x\n"
    assert sh.ok("stat -c %Y /orig.txt") == "1577934240\n"


def test_a_gzip_bomb_stops_at_the_limit_and_leaves_no_file(sh, monkeypatch):
    monkeypatch.setattr(limits, "MAX_INFLATE", 1 << 20)
    sh.write("/bomb.gz", pygzip.compress(bytes(8 << 20), 9))
    result = sh("gunzip /bomb.gz; echo after")
    assert result.code == 1 and "after" not in result.stdout
    assert "sh: gzip: limit exceeded (/bomb.gz: over 1048576 bytes decompressed)" in result.stderr
    assert sh.ok("ls /") == "bomb.gz\n"  # no half /bomb, the original kept
    result = sh("zcat /bomb.gz | wc -c")
    assert "limit exceeded" in result.stderr


def test_decompressing_holds_a_chunk_at_a_time(sh):
    # 16 MiB of zeros from 16 KiB: the output streams out a chunk at a time, never whole.
    sh.write("/z.gz", pygzip.compress(bytes(16 << 20), 9))
    assert sh.ok("zcat /z.gz | wc -c") == "16777216\n"


def test_a_name_without_its_end_is_read_in_linear_time(sh):
    head = b"\x1f\x8b\x08\x08" + bytes(4) + b"\x00\x03"
    sh.write("/long.gz", head + b"n" * (4 << 20))
    started = time.monotonic()
    result = sh("gunzip -c /long.gz")
    assert time.monotonic() - started < 10
    assert result.code == 1 and "unexpected end of file" in result.stderr


def test_damaged_members_are_reported_as_gzip_words_them(sh):
    good = pygzip.compress(b"hello\n")
    sh.write("/crc.gz", good[:-8] + b"\0\0\0\0" + good[-4:])
    sh.write("/len.gz", good[:-4] + b"\x09\0\0\0")
    sh.write("/bad.gz", good[:10] + b"\xff" * 20)
    assert "invalid compressed data--crc error" in sh("zcat /crc.gz").stderr
    assert "invalid compressed data--length error" in sh("zcat /len.gz").stderr
    assert "invalid compressed data--format violated" in sh("zcat /bad.gz").stderr


def test_members_one_after_another_are_one_stream(sh):
    sh.write("/two.gz", pygzip.compress(b"one\n") + pygzip.compress(b"two\n"))
    assert sh.ok("gunzip -c /two.gz") == "one\ntwo\n"


def test_expr_match_is_linear_on_a_hostile_pattern(sh):
    started = time.monotonic()
    result = sh("expr " + "a" * 5000 + " : '\\(a*\\)*b'")
    assert (result.stdout, result.code) == ("\n", 1)
    result = sh("expr " + "a" * 5000 + " : '\\(a\\|aa\\)*c'")
    assert (result.stdout, result.code) == ("\n", 1)
    assert time.monotonic() - started < 10


def test_diff_r_stops_at_a_symlink_loop(sh):
    sh.ok("mkdir -p /a/d /b/d && ln -s .. /a/d/up && ln -s .. /b/d/up")
    result = sh("diff -r /a /b")
    assert result.code == 2 and "recursive directory loop" in result.stderr


def test_mktemp_names_are_random_and_private(sh):
    names = {sh.ok("mktemp").strip() for _ in range(20)}
    assert len(names) == 20
    assert all(name.startswith("/tmp/tmp.") and len(name) == 19 for name in names)
    assert sh.ok(f"stat -c %a {next(iter(names))}") == "600\n"
    made = sh.ok("mktemp -d").strip()
    assert sh.ok(f"stat -c %a {made}") == "700\n"


def test_whoami_and_hostname_are_fixed(sh):
    assert sh.ok("whoami; hostname") == "user\npyvfs\n"
    assert sh("hostname other").code == 1


def test_split_streams_many_pieces(sh):
    sh.write("/big", TEXT)
    sh.ok("cd / && split -b 10K big part_ && cat part_* > joined")
    assert sh.read("/joined") == TEXT


def test_od_and_strings_read_a_big_input_in_pieces(sh):
    sh.write("/blob", (b"\x00\x01word_one\x02" * 20000))
    assert sh.ok("strings /blob | sort | uniq -c").split() == ["20000", "word_one"]
    assert sh.ok("od -An -tx1 -N 4 -j 3 /blob") == " 6f 72 64 5f\n"


def test_what_arguments_steer_is_bounded(sh):
    result = sh("expr " + "length " * 5000 + "x")
    assert (result.stderr, result.code) == ("expr: more than 256 nested operations\n", 2)
    result = sh("seq -f '%99999999999g' 1")
    assert result.code == 1 and "limit exceeded" in result.stderr and result.stdout == ""
    assert sh("seq 1 3 | join - -").stderr == "join: both files cannot be standard input\n"


def test_split_with_long_suffixes_makes_no_recursion(sh):
    sh.write("/f", b"a\nb\n")
    result = sh("cd / && split -a 2000 -l 1 f")
    # The C library's wording: "File name too long" on Linux, "Filename too long" in Pyodide.
    reason = os.strerror(errno.ENAMETOOLONG)
    assert result.code == 1 and result.stderr == f"split: x{'a' * 2000}: {reason}\n"
