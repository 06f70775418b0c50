"""The Debugger panel's state, without Textual."""

from __future__ import annotations

from pathlib import Path

from cfn_debug.debugger.pdbview import History, PdbView
from cfn_debug.endpoint.debugchannel import DebugEvent


def test_output_prompt_and_source(tmp_path: Path) -> None:
    source = tmp_path / "handler.py"
    source.write_text("".join(f"line {n}\n" for n in range(1, 31)))
    view = PdbView()
    view.apply(DebugEvent("stop", file=str(source), line=10, function="handler"))
    assert view.apply(DebugEvent("output", "> handler.py(10)handler()\n-> line 10\n(Pdb) ")) == [
        "> handler.py(10)handler()",
        "-> line 10",
    ]
    assert view.apply(DebugEvent("input", file=str(source), line=10)) == []
    assert view.waiting and view.stopped
    window = view.source(radius=2)
    assert [s.number for s in window] == [8, 9, 10, 11, 12]
    assert [s.current for s in window] == [False, False, True, False, False]
    assert view.typed("n") == "(Pdb) n"
    assert not view.waiting
    view.apply(DebugEvent("go"))
    assert not view.stopped
    view.apply(DebugEvent("closed"))
    assert view.ended


def test_history_walks_back_and_forth() -> None:
    view = PdbView()
    for command in ("p x", "n", "n", "pp y"):
        view.typed(command)
    assert view.history == ["p x", "n", "pp y"]
    history = History(view)
    assert [history.older(), history.older(), history.older(), history.older()] == [
        "pp y",
        "n",
        "p x",
        "p x",
    ]
    assert history.newer() == "n"
    assert history.newer() == "pp y"
    assert history.newer() == ""
