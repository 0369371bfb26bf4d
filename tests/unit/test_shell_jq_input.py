"""jq's words for input that is not JSON: each line was run through jq 1.6 (Debian's `jq`),
which printed ``parse error: MESSAGE`` with the message below."""

from __future__ import annotations

import pytest

from py_vfs.shell.commands.jq_input import json_values
from py_vfs.shell.commands.jq_values import JqError


@pytest.mark.parametrize(("text", "before", "message"), [
    ("not json\n", [], "Invalid literal at line 1, column 4"),
    ('{"a":1} x\n', [{"a": 1}], "Invalid numeric literal at line 2, column 0"),
    ("[1,2\n", [], "Unfinished JSON term at EOF at line 2, column 0"),
    ("1 2 {\n", [1, 2], "Unfinished JSON term at EOF at line 2, column 0"),
    ('{"a":\n tru}', [], "Invalid literal at line 2, column 5"),
    ('"abc\n', [], "Unfinished string at EOF at line 2, column 0"),
    ("[1,]\n", [], "Expected another array element at line 1, column 4"),
    ("{a:1}\n", [], "Invalid numeric literal at line 1, column 3"),
    ("[1 2]\n", [], "Expected separator between values at line 1, column 5"),
    ("}\n", [], "Unmatched '}' at line 1, column 1"),
    ('{"a" 1}\n', [], "Expected separator between values at line 1, column 7"),
    ('{"a":1,}\n', [], "Expected another key-value pair at line 1, column 8"),
])
def test_input_that_is_not_json_is_reported_as_jq_reports_it(text, before, message):
    values = json_values(text)
    got = []
    with pytest.raises(JqError) as error:
        got.extend(values)
    assert (got, str(error.value)) == (before, message)


def test_a_stream_of_values_is_read_whole():
    assert list(json_values('1 "two"\n[3] {"four": 4}\n')) == [1, "two", [3], {"four": 4}]
