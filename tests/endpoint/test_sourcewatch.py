"""SourceWatch (the kernel tells when the code directory changed) gives exactly what walking the
tree gives (source_signature), after any sequence of edits; where it cannot watch, it walks."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfn_debug.endpoint import sourcewatch
from cfn_debug.endpoint.sourcewatch import SourceWatch, source_signature

NAMES = st.sampled_from(["a.py", "b.py", "c.txt", "pkg", "sub", ".hidden", "__pycache__"])
OPS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "write",  # a new file, or new content (same size or not)
                "rewrite_same_size",  # content changed in place, the size kept
                "touch",  # the mtime only
                "mkdir",
                "rmtree",
                "delete",
                "rename",
                "rename_dir_in",  # a directory made outside, moved in
                "symlink_out",  # a link to a file outside the tree
                "edit_outside",  # the file a link points to, edited
                "dangling",  # a link to a file that does not exist yet
                "create_target",  # ... that then appears
            ]
        ),
        st.lists(NAMES, min_size=1, max_size=3),
        st.binary(max_size=8),
    ),
    max_size=12,
)


def _apply(root: Path, outside: Path, op: str, parts: list[str], data: bytes, step: int) -> None:
    path = root.joinpath(*parts)
    if op in ("rewrite_same_size", "touch", "rmtree", "delete", "rename") and not path.exists():
        present = sorted(root.rglob("*"))  # an edit of something the tree holds, then
        path = present[(len(data) + step) % len(present)] if present else path
    try:
        if op == "write":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        elif op == "rewrite_same_size" and path.is_file():
            size = path.stat().st_size
            path.write_bytes(bytes((b + 1) % 256 for b in path.read_bytes()[:size]))
        elif op == "touch" and path.exists():
            later = time.time_ns() + (step + 1) * 10**9  # the newest mtime of the tree now
            os.utime(path, ns=(later, later), follow_symlinks=False)
        elif op == "mkdir":
            path.mkdir(parents=True, exist_ok=True)
        elif op == "rmtree" and path.is_dir() and not path.is_symlink():
            for below in sorted(path.rglob("*"), reverse=True):
                below.rmdir() if below.is_dir() and not below.is_symlink() else below.unlink()
            path.rmdir()
        elif op == "delete" and (path.is_file() or path.is_symlink()):
            path.unlink()
        elif op == "rename" and path.exists():
            path.rename(root / f"moved{step}")
        elif op == "rename_dir_in":
            made = outside / f"dir{step}"
            (made / "inner").mkdir(parents=True)
            (made / "inner" / "x.py").write_bytes(data)
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                made.rename(path)
        elif op == "symlink_out" and not path.exists() and not path.is_symlink():
            target = outside / "shared.py"
            if not target.exists():
                target.write_bytes(b"shared\n")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(target)
        elif op == "edit_outside":
            (outside / "shared.py").write_bytes(data + b"edited\n")
        elif op == "dangling" and not path.exists() and not path.is_symlink():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(outside / "later.py")
        elif op == "create_target":
            (outside / "later.py").write_bytes(data + b"late\n")
    except (NotADirectoryError, FileExistsError, IsADirectoryError, FileNotFoundError):
        pass  # a path through a file, and the like: that edit is not possible, nothing changed


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_the_watch_gives_what_walking_the_tree_gives_after_any_edits(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, list[str], bytes]]
) -> None:
    base = tmp_path_factory.mktemp("watch")
    root, outside = base / "src", base / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "app.py").write_text("def handler(e, c):\n    return e\n")
    watch = SourceWatch(root)
    try:
        assert watch.watching or sourcewatch.filesystem_type(str(root)) not in sourcewatch.LOCAL_FS
        assert watch.signature() == source_signature(root)
        for step, (op, parts, data) in enumerate(ops):
            _apply(root, outside, op, parts, data, step)
            assert watch.signature() == source_signature(root), (step, op, parts)
            assert watch.signature() == source_signature(root), (step, op, parts)  # and again
    finally:
        watch.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_a_quiet_tree_is_not_walked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the watch: with no change, a look costs one read of the event queue."""
    (tmp_path / "app.py").write_text("x = 1\n")
    watch = SourceWatch(tmp_path)
    try:
        if not watch.watching:
            pytest.skip("this filesystem is not one inotify fully reports")
        walks: list[str] = []
        monkeypatch.setattr(
            sourcewatch, "source_signature", lambda d: walks.append(str(d)) or (0, 0, 0)
        )
        before = watch._signature
        for _ in range(5):
            assert watch.signature() == before
        assert walks == []
        (tmp_path / "app.py").write_text("x = 2\n")
        watch.signature()
        assert walks == [str(tmp_path)]
    finally:
        watch.close()


def test_where_it_cannot_watch_it_walks_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sourcewatch, "filesystem_type", lambda path: "nfs")
    (tmp_path / "app.py").write_text("x = 1\n")
    watch = SourceWatch(tmp_path)
    assert not watch.watching
    first = watch.signature()
    (tmp_path / "b.py").write_text("y = 1\n")
    assert watch.signature() != first
    assert watch.signature() == source_signature(tmp_path)


def test_the_filesystem_type_is_the_longest_mount_point_above() -> None:
    if not os.path.exists("/proc/self/mountinfo"):
        pytest.skip("no /proc/self/mountinfo")
    assert sourcewatch.filesystem_type("/proc/self") == "proc"
