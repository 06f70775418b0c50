"""The HTML transcript is one standalone file: no external references, every step, all escaped."""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser

from export_sample import ANSI_LOG, TRICKY_LOG, WRITE_ONLY

from cfn_debug.export import export_session
from cfn_debug.journal.session import Session

_VOID = {"meta", "br", "img", "link", "input", "hr", "source", "area", "base", "col", "wbr"}


class _Document(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str | None]] = []
        self.ids: dict[str, list[str]] = {}
        self.texts: list[str] = []
        self.styles: list[str] = []
        self.open: list[str] = []
        self.mismatched: list[str] = []
        self._id_stack: list[str | None] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend((tag, name, value) for name, value in attrs)
        if tag in _VOID:
            return
        self.open.append(tag)
        element_id = dict(attrs).get("id")
        self._id_stack.append(element_id)
        if element_id:
            self.ids[element_id] = []
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.mismatched.append(tag)
            return
        self.open.pop()
        self._id_stack.pop()
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)
            return
        self.texts.append(data)
        for element_id in self._id_stack:
            if element_id:
                self.ids[element_id].append(data)


def _parse(session: Session) -> tuple[str, _Document]:
    out = io.StringIO()
    export_session(session, "html", out, write_only=WRITE_ONLY)
    document = _Document()
    document.feed(out.getvalue())
    document.close()
    return out.getvalue(), document


def test_the_document_is_well_formed_and_standalone(session: Session) -> None:
    html, document = _parse(session)
    assert html.startswith("<!DOCTYPE html>")
    assert document.open == [] and document.mismatched == []
    assert "script" not in document.tags and "link" not in document.tags
    assert "img" not in document.tags and "iframe" not in document.tags
    for tag, name, value in document.attrs:
        if name in ("src", "href", "action", "srcset", "poster", "data"):
            assert value is not None and value.startswith("#"), f"<{tag} {name}={value!r}>"
    css = "".join(document.styles)
    assert "url(" not in css and "@import" not in css
    assert not re.search(r"https?://", css)


def test_dashboard_colours_are_inline(session: Session) -> None:
    _, document = _parse(session)
    css = "".join(document.styles)
    assert "background: #121212" in css
    for status in ("success", "failed", "progress"):
        assert re.search(rf"\.{status} \{{ color: #[0-9a-f]{{6}}; \}}", css)


def test_every_step_is_a_row_with_its_status_and_timing(session: Session) -> None:
    _, document = _parse(session)
    rows = {k: " ".join(" ".join(v).split()) for k, v in document.ids.items() if "-step-" in k}
    assert sorted(rows) == [
        "run-0-step-0",
        "run-0-step-1",
        "run-0-step-2",
        "run-1-step-0",
        "run-2-step-0",
    ]
    assert rows["run-0-step-0"].startswith("0 IN_PROGRESS 12.3 ms / 60 s (0%) 2.00 s MUST")
    assert rows["run-0-step-2"].startswith("2 SUCCESS 61.25 s / 60 s (102%)")
    assert rows["run-1-step-0"].startswith("0 CRASH 250.0 ms / 60 s")
    assert rows["run-2-step-0"].startswith("0 TIMEOUT 31.00 s / 30 s (103%)")


def test_status_colour_classes_follow_the_status(session: Session) -> None:
    html, _ = _parse(session)
    assert re.search(r'<tr id="run-0-step-0" class="progress">', html)
    assert re.search(r'<tr id="run-0-step-2" class="success">', html)
    assert re.search(r'<tr id="run-1-step-0" class="failed">', html)
    assert '<td class="t-warn">47.50 s / 60 s (79%)</td>' in html
    assert '<td class="t-over">61.25 s / 60 s (102%)</td>' in html


def test_handler_text_is_escaped_not_interpreted(session: Session) -> None:
    _, document = _parse(session)
    text = "".join(document.texts)
    assert TRICKY_LOG in text
    assert ANSI_LOG.replace("\x1b", "\\x1b").replace("\x00", "\\x00") in text
    assert "b" not in document.tags  # the <b>bold</b> of a log line stays text
    assert "create | `good`" in text


def test_a_title_with_markup_is_escaped() -> None:
    out = io.StringIO()
    export_session(Session(project='<img src="https://x/y.png">'), "html", out)
    document = _Document()
    document.feed(out.getvalue())
    assert "img" not in document.tags
