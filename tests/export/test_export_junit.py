"""The JUnit report reads as CI tools read it: junitparser and xml.etree both accept it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from export_sample import ANSI_LOG, TRICKY_LOG, WRITE_ONLY
from junitparser import Error, Failure, JUnitXml, TestSuite

from cfn_debug.export import export_session
from cfn_debug.export.markup import xml_attr, xml_text
from cfn_debug.journal.session import Session


@pytest.fixture
def report(session: Session, tmp_path: Path) -> Path:
    path = tmp_path / "report.xml"
    with path.open("w", encoding="utf-8") as out:
        export_session(session, "junit", out, write_only=WRITE_ONLY)
    return path


def test_junitparser_reads_suites_cases_and_counts(report: Path) -> None:
    xml = JUnitXml.fromfile(str(report))
    suites = list(xml)
    assert all(isinstance(s, TestSuite) for s in suites)
    assert [s.name for s in suites] == [
        "create | `good` (CREATE)",
        "update-crash (UPDATE)",
        "read-timeout (READ)",
    ]
    create, update, read = suites
    assert [c.name for c in create] == [
        "create | `good` step 0 IN_PROGRESS",
        "create | `good` step 1 IN_PROGRESS",
        "create | `good` step 2 SUCCESS",
        "create | `good` chain",
    ]
    assert create.tests == 4 and create.failures == 3 and create.errors == 0
    assert update.tests == 2 and update.failures == 2 and update.errors == 1
    assert read.tests == 1 and read.failures == 0 and read.errors == 1
    assert xml.tests == 7 and xml.failures == 5 and xml.errors == 2
    assert [c.time for c in create][:3] == [0.012, 47.5, 61.25]
    assert create.time == pytest.approx(112.76)


def test_each_must_finding_is_a_failure_with_the_rule_id_as_type(report: Path) -> None:
    create, update, _ = list(JUnitXml.fromfile(str(report)))
    step0 = next(iter(create))
    failures = [r for r in step0.result if isinstance(r, Failure)]
    assert [(f.type, f.message) for f in failures] == [
        ("write-only-not-returned", "writeOnly property returned with value '***WRITE-ONLY***'")
    ]
    assert "at /Password" in (failures[0].text or "")
    crash = next(iter(update))
    assert {type(r).__name__ for r in crash.result} == {"Failure", "Error"}
    error = next(r for r in crash.result if isinstance(r, Error))
    assert error.type == "crash"
    assert "handlers.py" in (error.text or "")
    chain = list(update)[1]
    assert chain.name == "update-crash chain"
    assert [f.type for f in chain.result] == ["failed-message"]


def test_should_findings_and_logs_go_to_system_out(report: Path) -> None:
    create = next(iter(JUnitXml.fromfile(str(report))))
    step1 = list(create)[1]
    out = step1.system_out or ""
    assert "SHOULD slow-progress: IN_PROGRESS with `no` visible progress | twice" in out
    assert "--- handler logs ---" in out
    assert TRICKY_LOG in out
    assert "\\x1b[31mred" in out
    assert [f.type for f in step1.result] == ["write-only-not-returned"]  # SHOULD is no failure


def test_etree_reads_the_same_structure(report: Path) -> None:
    root = ET.parse(report).getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 3
    cases = root.findall("testsuite/testcase")
    assert len(cases) == 7
    assert all(float(case.get("time", "x")) >= 0 for case in cases)
    assert all(case.get("classname", "").startswith("cfn-debug.") for case in cases)
    failure = suites[1].find("testcase/failure")
    assert failure is not None and failure.get("type") == "handler-exception"
    assert failure.get("message") == (
        "the handler raised <KeyError> instead of returning a ProgressEvent"
    )
    props = {p.get("name"): p.get("value") for p in suites[0].findall("properties/property")}
    assert props["function"] == "TestEntrypoint"
    assert props["final_status"] == "SUCCESS"


def test_characters_xml_cannot_carry_become_visible() -> None:
    value = 'a\x00b\x1bc\ufffed & <e> "f"\n'
    root = ET.fromstring(f'<x a="{xml_attr(value)}">{xml_text(value)}</x>')
    assert root.text == 'a\\x00b\\x1bc\\ufffed & <e> "f"\n'
    assert root.get("a") == 'a\\x00b\\x1bc\\ufffed & <e> "f"\n'
    assert ANSI_LOG  # the sample's colour escape is the case this guards


def test_an_empty_session_is_a_valid_empty_report(tmp_path: Path) -> None:
    path = tmp_path / "empty.xml"
    with path.open("w", encoding="utf-8") as out:
        export_session(Session(), "junit", out)
    xml = JUnitXml.fromfile(str(path))
    assert xml.tests == 0 and list(xml) == []
