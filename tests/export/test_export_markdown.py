"""The Markdown transcript renders as intended under a GitHub-flavoured Markdown parser.

markdown-it-py (rich's own Markdown parser) in its "gfm-like" mode renders the transcript to HTML;
the tests read that HTML back: the step tables have one row per step, pipes and backticks in
handler text do not break cells, logs are collapsed <details> with their lines intact.
"""

from __future__ import annotations

import io
from html.parser import HTMLParser

import pytest
from export_sample import ANSI_LOG, TRICKY_LOG, WRITE_ONLY
from markdown_it import MarkdownIt

from cfn_debug.export import export_session
from cfn_debug.export.markup import code, fence_for, text
from cfn_debug.journal.session import Session
from cfn_debug.records import Action


class _Rendered(HTMLParser):
    """Tables (rows of cell texts), <pre> blocks, <details> summaries, and headings."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.pres: list[str] = []
        self.summaries: list[str] = []
        self.headings: list[str] = []
        self.tags: list[str] = []
        self._cell: list[str] | None = None
        self._pre: list[str] | None = None
        self._summary: list[str] | None = None
        self._heading: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "pre":
            self._pre = []
        elif tag == "summary":
            self._summary = []
        elif tag == "h2":
            self._heading = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "pre" and self._pre is not None:
            self.pres.append("".join(self._pre))
            self._pre = None
        elif tag == "summary" and self._summary is not None:
            self.summaries.append("".join(self._summary))
            self._summary = None
        elif tag == "h2" and self._heading is not None:
            self.headings.append("".join(self._heading))
            self._heading = None

    def handle_data(self, data: str) -> None:
        for part in (self._cell, self._pre, self._summary, self._heading):
            if part is not None:
                part.append(data)


def _render(session: Session) -> tuple[str, _Rendered]:
    out = io.StringIO()
    export_session(session, "md", out, write_only=WRITE_ONLY)
    markdown = out.getvalue()
    parser = _Rendered()
    parser.feed(MarkdownIt("gfm-like").render(markdown))
    return markdown, parser


def test_each_run_has_a_header_and_a_table_row_per_step(session: Session) -> None:
    _, rendered = _render(session)
    assert rendered.headings[0] == "create | `good` · CREATE · SUCCESS · 113 s"
    assert rendered.headings[1].startswith("update-crash · UPDATE · CRASH")
    assert rendered.headings[2].startswith("read-timeout · READ · TIMEOUT")
    step_tables = [t for t in rendered.tables if t[0][0] == "Step"]
    assert [len(t) - 1 for t in step_tables] == [3, 1, 1]
    header, *rows = step_tables[0]
    assert header == ["Step", "Status", "Duration / limit", "Delay", "Findings"]
    assert all(len(row) == 5 for row in rows)
    assert [row[1] for row in rows] == ["IN_PROGRESS", "IN_PROGRESS", "SUCCESS"]
    assert rows[0][2] == "12.3 ms / 60 s (0%)"
    assert "⚠" in rows[1][2]  # 47.5 s is past 75% of 60 s
    assert "over the limit" in rows[2][2]
    assert rows[0][3] == "2.00 s"
    assert rows[1][4] == "MUST write-only-not-returned, SHOULD slow-progress"
    assert step_tables[2][1][2] == "31.00 s / 30 s (103%) ❌ over the limit"


def test_pipes_and_backticks_in_cells_do_not_break_tables(session: Session) -> None:
    _, rendered = _render(session)
    changes = next(t for t in rendered.tables if t[0][0] == "Pointer")
    assert all(len(row) == 5 for row in changes)
    assert changes[2] == ["/Name", "changed", '"vault"', '"vault|one"', ""]


def test_findings_carry_rule_level_pointer_and_message(session: Session) -> None:
    markdown, _ = _render(session)
    rendered = MarkdownIt("gfm-like").render(markdown)
    assert (
        "<strong>SHOULD</strong> <code>slow-progress</code> (step 1) at <code>/Name</code>: "
        "IN_PROGRESS with `no` visible progress | twice"
    ) in rendered
    assert "the handler raised &lt;KeyError&gt; instead" in rendered


def test_logs_are_collapsed_and_kept_verbatim(session: Session) -> None:
    markdown, rendered = _render(session)
    assert "Step 0: 4 log line(s)" in rendered.summaries
    first = rendered.pres[0].splitlines()
    assert first[1] == TRICKY_LOG  # a ``` run inside the logs does not end the block
    assert first[2] == ANSI_LOG.replace("\x1b", "\\x1b").replace("\x00", "\\x00")
    assert "script" not in rendered.tags  # logs never become markup
    assert "<details><summary>" in markdown


def test_contract_sentence_is_quoted_from_the_rule_catalogue(session: Session) -> None:
    from cfn_debug.contract.rules import rule

    markdown, _ = _render(session)
    html = MarkdownIt("gfm-like").render(markdown)
    sentence = rule("failed-message").contract_for(Action.UPDATE)
    # The quote holds the sentence as text: Markdown punctuation in it is not interpreted.
    quoted = html.split("<code>failed-message</code>", 1)[1].split("</blockquote>", 1)[0]
    parser = _Rendered()
    parser.feed(quoted.split("<blockquote>", 1)[1])
    words = " ".join(quoted.split("<blockquote>", 1)[1].split())
    assert parser.tags.count("em") == 0
    assert " ".join(f"Contract: {sentence}".split())[:60] in _unescape(words)
    # A rule the catalogue does not know is exported without a sentence, not as a failure.
    assert "slow-progress" in markdown


def _unescape(html: str) -> str:
    import html as html_module

    return html_module.unescape(html.replace("<p>", "").replace("<br>", " ").replace("\n", " "))


@pytest.mark.parametrize(
    "value",
    ["plain", "a|b", "`tick`", "``double`` and `single`", " spaced ", "ends with `", "<b>x</b>"],
)
def test_code_spans_render_their_text_exactly(value: str) -> None:
    parser = _Rendered()
    table = f"| h |\n|---|\n| {code(value)} |\n"
    parser.feed(MarkdownIt("gfm-like").render(table))
    assert parser.tables[0][1] == [value.strip() if value == " spaced " else value]


@pytest.mark.parametrize(
    "value", ["a|b", "*not emphasis*", "_x_", "[link](x)", "<i>tag</i>", "# h", "a\\b"]
)
def test_text_renders_literally(value: str) -> None:
    parser = _Rendered()
    parser.feed(MarkdownIt("gfm-like").render(f"| h |\n|---|\n| {text(value)} |\n"))
    assert parser.tables[0][1] == [value]
    assert "a" not in parser.tags and "em" not in parser.tags and "i" not in parser.tags


def test_fence_is_longer_than_any_backtick_run() -> None:
    assert fence_for(["plain"]) == "```"
    assert fence_for(["has ```` four"]) == "`````"
