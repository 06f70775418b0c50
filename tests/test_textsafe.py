from hypothesis import given
from hypothesis import strategies as st

from cfn_debug.text.terminal import is_printable, printable


def test_escape_sequences_become_visible_text():
    hostile = "ok\x1b]52;c;aGk=\x07 \x1b[2J\x9b31m done"
    shown = printable(hostile)
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown
    assert shown == "ok\\x1b]52;c;aGk=\\x07 \\x1b[2J\\x9b31m done"


def test_newline_and_tab_are_kept_and_plain_text_is_untouched():
    text = "line one\n\tindented — ünïcode ✓"
    assert printable(text) is text
    assert is_printable(text)


def test_lone_surrogate_is_escaped_and_encodable():
    shown = printable("file-\udcff.json")
    assert shown == "file-\\udcff.json"
    shown.encode("utf-8")


@given(st.text())
def test_output_never_holds_a_control_character_or_surrogate(text):
    shown = printable(text)
    assert is_printable(shown)
    shown.encode("utf-8")
    assert all(ch in "\n\t" or (ord(ch) >= 0x20 and not 0x7F <= ord(ch) <= 0x9F) for ch in shown)
