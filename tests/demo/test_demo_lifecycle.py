"""The demo type's good path, through both entrypoints: the handler contract, step by step."""

from __future__ import annotations

import multiprocessing
import os
import re
from pathlib import Path

import pytest
from demo_support import (
    ENTRYPOINTS,
    Invoke,
    list_all,
    load_event,
    make_event,
    run_chain,
    via_test_entrypoint,
    via_type_function,
)

WIDGET_ID = re.compile(r"^wdg-[a-z0-9]{8,16}$")
NOT_FOUND = "NotFound"


def _ids(models: list[dict]) -> list[str]:
    return [m["WidgetId"] for m in models]


@ENTRYPOINTS
def test_full_lifecycle_of_the_sample_create_event(invoke: Invoke) -> None:
    create = load_event("create.json")
    requested = create["request"]["desiredResourceState"]

    chain = run_chain(invoke, create)
    statuses = [r["status"] for r in chain]
    assert statuses == ["IN_PROGRESS", "IN_PROGRESS", "SUCCESS"]
    widget_id = chain[0]["resourceModel"]["WidgetId"]
    assert WIDGET_ID.match(widget_id)
    # Every event carries the same primary identifier; IN_PROGRESS models grow stage by stage.
    assert {r["resourceModel"]["WidgetId"] for r in chain} == {widget_id}
    assert set(chain[0]["resourceModel"]) == {"WidgetId", "Arn", "Name"}
    assert set(chain[1]["resourceModel"]) == {
        "WidgetId",
        "Arn",
        "Name",
        "Size",
        "Color",
        "Settings",
    }
    assert [r["callbackDelaySeconds"] for r in chain[:-1]] == [1, 1]
    assert [r["callbackContext"]["stage"] for r in chain[:-1]] == [1, 2]
    # SUCCESS: everything requested except the writeOnly Secret, plus the readOnly properties.
    final = chain[-1]["resourceModel"]
    expected = {k: v for k, v in requested.items() if k != "Secret"}
    assert {k: v for k, v in final.items() if k not in ("WidgetId", "Arn")} == expected
    assert final["Arn"].endswith(f":widget/{widget_id}")
    assert all("Secret" not in (r.get("resourceModel") or {}) for r in chain)
    assert all(r.get("errorCode") is None for r in chain)

    read = invoke(make_event("READ", desiredResourceState={"WidgetId": widget_id}))
    assert read["status"] == "SUCCESS"
    assert read["resourceModel"] == final

    assert widget_id in _ids(list_all(invoke))

    desired = {**final, "Size": 2, "Labels": ["only-one"], "Tags": [{"Key": "env", "Value": "x"}]}
    del desired["Color"]
    update = invoke(make_event("UPDATE", desiredResourceState=desired, previousResourceState=final))
    assert update["status"] == "SUCCESS", update
    assert update["resourceModel"] == desired  # Color removed, lists replaced in full
    read = invoke(make_event("READ", desiredResourceState={"WidgetId": widget_id}))
    assert read["resourceModel"] == desired

    delete = run_chain(invoke, make_event("DELETE", desiredResourceState={"WidgetId": widget_id}))
    assert [r["status"] for r in delete] == ["IN_PROGRESS", "SUCCESS"]
    assert "resourceModel" not in delete[-1]

    for action in ("READ", "UPDATE", "DELETE"):
        after = invoke(make_event(action, desiredResourceState={**desired}))
        assert (after["status"], after.get("errorCode")) == ("FAILED", NOT_FOUND), action
        assert widget_id in after["message"]
    assert widget_id not in _ids(list_all(invoke))

    # After a delete, the same Name can be created again (no AlreadyExists).
    again = run_chain(invoke, make_event("CREATE", "tok-again", desiredResourceState=requested))
    assert again[-1]["status"] == "SUCCESS"
    assert again[-1]["resourceModel"]["WidgetId"] != widget_id


@ENTRYPOINTS
def test_a_second_create_with_the_same_name_fails_with_already_exists(invoke: Invoke) -> None:
    desired = {"Name": "twin", "Size": 2}
    assert run_chain(invoke, make_event("CREATE", "tok-a", desiredResourceState=desired))[-1][
        "status"
    ] == ("SUCCESS")
    second = invoke(make_event("CREATE", "tok-b", desiredResourceState=desired))
    assert (second["status"], second["errorCode"]) == ("FAILED", "AlreadyExists")
    assert "twin" in second["message"]
    assert [m["Name"] for m in list_all(invoke)].count("twin") == 1


@ENTRYPOINTS
def test_the_same_token_never_creates_two_widgets(invoke: Invoke) -> None:
    event = make_event("CREATE", "tok-same", desiredResourceState={"Name": "once", "Size": 3})
    first = invoke(event)
    replay = invoke(event)  # the first request again, e.g. a retried delivery
    assert replay["status"] == "IN_PROGRESS"
    assert replay["resourceModel"]["WidgetId"] == first["resourceModel"]["WidgetId"]
    finished = run_chain(invoke, event)
    again = run_chain(invoke, event)
    assert again == [finished[-1]]  # already created: straight to the same SUCCESS
    assert [m["Name"] for m in list_all(invoke)].count("once") == 1


def _first_create_step(args: tuple[str, str, str, object]) -> dict:
    state, token, name, barrier = args
    import os

    os.environ["CFN_DEBUG_DEMO_STATE"] = state
    barrier.wait(timeout=10)  # type: ignore[attr-defined]
    return via_test_entrypoint(make_event("CREATE", token, desiredResourceState={"Name": name}))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_concurrent_creates_in_separate_processes(state_dir: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Manager().Barrier(4)
    same_token = [(str(state_dir), "tok-shared", "racer", barrier) for _ in range(4)]
    with ctx.Pool(4) as pool:
        results = pool.map(_first_create_step, same_token)
    assert {r["status"] for r in results} == {"IN_PROGRESS"}
    assert len({r["resourceModel"]["WidgetId"] for r in results}) == 1

    barrier = ctx.Manager().Barrier(4)
    same_name = [(str(state_dir), f"tok-{i}", "contested", barrier) for i in range(4)]
    with ctx.Pool(4) as pool:
        results = pool.map(_first_create_step, same_name)
    outcomes = sorted((r["status"], r.get("errorCode")) for r in results)
    assert outcomes == [("FAILED", "AlreadyExists")] * 3 + [("IN_PROGRESS", None)]
    names = [m["Name"] for m in list_all(via_test_entrypoint)]
    assert names.count("racer") == 1
    assert names.count("contested") == 1


@ENTRYPOINTS
def test_update_refuses_to_change_the_create_only_name(invoke: Invoke) -> None:
    event = load_event("update.json")
    event["request"]["desiredResourceState"]["Name"] = "renamed-widget"
    response = invoke(event)
    assert (response["status"], response["errorCode"]) == ("FAILED", "NotUpdatable")
    assert "Name" in response["message"]
    read = invoke(load_event("read.json"))
    assert read["resourceModel"]["Name"] == "demo-widget-one"


@ENTRYPOINTS
def test_the_sample_update_applies_every_property(invoke: Invoke) -> None:
    event = load_event("update.json")
    response = invoke(event)
    assert response["status"] == "SUCCESS"
    desired = dict(event["request"]["desiredResourceState"])
    assert desired.pop("Secret"), "the sample update carries the writeOnly Secret, as CFN sends it"
    assert response["resourceModel"] == {**desired, "Arn": response["resourceModel"]["Arn"]}


def test_list_pages_through_the_seeded_widgets() -> None:
    invoke = via_test_entrypoint
    first = invoke(load_event("list.json"))
    assert _ids(first["resourceModels"]) == ["wdg-demo0001", "wdg-demo0002"]
    assert first["nextToken"] == "wdg-demo0002"
    event = load_event("list.json")
    event["request"]["nextToken"] = first["nextToken"]
    second = invoke(event)
    assert _ids(second["resourceModels"]) == ["wdg-demo0003"]
    assert "nextToken" not in second
    assert all("Secret" not in m for m in first["resourceModels"] + second["resourceModels"])

    one_by_one = list_all(invoke, page_size=1)
    assert _ids(one_by_one) == ["wdg-demo0001", "wdg-demo0002", "wdg-demo0003"]


def test_type_function_never_sees_next_token() -> None:
    """A fact of cloudformation-cli-python-lib 2.1.20 that users of the demo meet: Resource.__call__
    builds the handler request without the HandlerRequest's nextToken, so through TypeFunction a
    second LIST page request gets the first page again. If this starts failing, the library
    fixed it: paginate through both entrypoints in the test above."""
    first = via_type_function(load_event("list.json"))
    event = load_event("list.json")
    event["request"]["nextToken"] = first["nextToken"]
    again = via_type_function(event)
    assert _ids(again["resourceModels"]) == _ids(first["resourceModels"])
    assert _ids(via_test_entrypoint(event)["resourceModels"]) == ["wdg-demo0003"]


@ENTRYPOINTS
def test_list_of_an_empty_store_is_an_empty_array(invoke: Invoke) -> None:
    for widget_id in ("wdg-demo0001", "wdg-demo0002", "wdg-demo0003"):
        chain = run_chain(
            invoke, make_event("DELETE", desiredResourceState={"WidgetId": widget_id})
        )
        assert chain[-1]["status"] == "SUCCESS"
    response = invoke(make_event("LIST"))
    assert response["status"] == "SUCCESS"
    assert response["resourceModels"] == []
    assert "nextToken" not in response


def test_list_rejects_a_next_token_it_did_not_issue() -> None:
    response = via_test_entrypoint(make_event("LIST", nextToken="page-2"))
    assert (response["status"], response["errorCode"]) == ("FAILED", "InvalidRequest")
    assert "page-2" in response["message"]


@ENTRYPOINTS
def test_requests_without_the_primary_identifier_are_invalid(invoke: Invoke) -> None:
    for action in ("READ", "UPDATE", "DELETE"):
        response = invoke(make_event(action, desiredResourceState={"Name": "demo-widget-one"}))
        assert (response["status"], response["errorCode"]) == ("FAILED", "InvalidRequest")
        assert "WidgetId" in response["message"]
    response = invoke(make_event("CREATE", desiredResourceState={"Size": 3}))
    assert (response["status"], response["errorCode"]) == ("FAILED", "InvalidRequest")
    assert "Name" in response["message"]


def test_the_sample_delete_removes_its_widget_for_good() -> None:
    chain = run_chain(via_test_entrypoint, load_event("delete.json"))
    assert [r["status"] for r in chain] == ["IN_PROGRESS", "SUCCESS"]
    assert chain[0]["resourceModel"]["WidgetId"] == "wdg-demo0003"
    # Seeding happens once per state directory: the deleted seed does not come back.
    again = via_test_entrypoint(load_event("delete.json"))
    assert (again["status"], again["errorCode"]) == ("FAILED", NOT_FOUND)


def test_handlers_log_what_they_do(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO")
    run_chain(via_test_entrypoint, load_event("create.json"))
    lines = [r.getMessage() for r in caplog.records if r.name == "cfndebug_demo_widget.handlers"]
    assert any("asks for a widget named 'my-first-widget'" in line for line in lines)
    assert any("stage 2 of 3" in line for line in lines)
    assert any("is ready" in line for line in lines)


def test_state_directory_defaults_to_the_temp_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from cfndebug_demo_widget import store

    monkeypatch.setenv("CFN_DEBUG_DEMO_STATE", "")
    # one user's widgets: another user's directory in a shared /tmp is neither writable nor ours
    assert store.state_dir() == Path(tempfile.gettempdir()) / f"cfn-debug-demo-state-{os.getuid()}"
    from cfn_debug.demo.runs import state_dir

    assert state_dir(None) == store.state_dir()  # what cfn-debug resets is what the handler uses
    monkeypatch.setenv("CFN_DEBUG_DEMO_STATE", "/somewhere/else")
    assert store.state_dir() == Path("/somewhere/else")


def test_records_are_written_atomically_and_keep_the_secret_apart(state_dir: Path) -> None:
    chain = run_chain(via_test_entrypoint, load_event("create.json"))
    widget_id = chain[-1]["resourceModel"]["WidgetId"]
    files = sorted(p.name for p in (state_dir / "widgets").iterdir())
    assert f"{widget_id}.json" in files
    assert not [name for name in files if name.endswith(".tmp")]
    text = (state_dir / "widgets" / f"{widget_id}.json").read_text(encoding="utf-8")
    assert '"secret": "not-a-real-secret-0001"' in text
