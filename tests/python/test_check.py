"""The checker on Python programs (tests/check/*.py): each racy variant is reported as its
``expect:`` line says, with the Python lines its ``# @A`` markers point at as the sites, and
exits with the checker's code; each fixed twin runs clean and exits 0. Host kernels declare
their memory with ``reads=`` / ``writes=``."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import acl

PROGRAMS = sorted((pathlib.Path(__file__).parent.parent / "check").glob("*.py"))


def run(program, mode, report):
    if report.exists():
        report.unlink()
    env = {
        **os.environ,
        "ACLRT_CHECK": "1",
        "ACLRT_CHECK_REPORT": str(report),
        "ACLRT_CHECK_HANG_MS": "5000",
    }
    env.pop("ACLRT_TRACE", None)
    proc = subprocess.run(
        [sys.executable, str(program), mode], capture_output=True, text=True, timeout=120, env=env
    )
    # The checker writes its report when it starts: no file, no check.
    assert report.exists(), proc.stderr
    findings = json.loads(report.read_text())["findings"]
    return proc, findings


def expectation(program):
    text = program.read_text()
    expect = re.search(r"^expect: (.*)$", text, re.M)
    assert expect, f"{program.name}: no expect: line"
    marks = {}
    for number, line in enumerate(text.splitlines(), 1):
        found = re.search(r"# @(\w+)", line)
        if found:
            marks[found.group(1)] = number
    kind, *accesses = expect.group(1).split()
    wanted = []
    for a in accesses:
        what, mark = a.split("@")
        wanted.append((what, marks[mark]))
    return kind, wanted


def test_the_suite_has_python_programs():
    assert [p.name for p in PROGRAMS] == ["python_host_reuse.py", "python_kernels.py"]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_racy_python_programs_are_reported_and_their_twins_are_silent(program, tmp_path):
    kind, wanted = expectation(program)
    report = tmp_path / "report.json"

    fixed, findings = run(program, "fixed", report)
    assert fixed.returncode == 0, fixed.stderr
    assert findings == []
    assert "aclrt-check" not in fixed.stderr

    racy, findings = run(program, "racy", report)
    assert racy.returncode == 66, racy.stderr
    assert [f["kind"] for f in findings] == [kind], findings
    sites = [(a["access"], a["site"]["line"]) for a in findings[0]["accesses"]]
    assert sites == wanted, findings
    for a in findings[0]["accesses"]:
        assert a["site"]["file"] == str(program), a
        assert a["site"]["function"] == "main", a
    assert racy.stderr.startswith(f"aclrt-check: {kind}: "), racy.stderr


EXAMPLES = sorted((pathlib.Path(__file__).parent.parent.parent / "examples" / "python").glob("*.py"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_shipped_python_examples_run_clean_under_the_checker(example, tmp_path):
    proc, findings = run(example, "", tmp_path / "report.json")
    assert proc.returncode == 0, proc.stderr
    assert findings == [], findings
    assert "aclrt-check" not in proc.stderr


def test_declared_ranges_are_checked_like_other_arguments(stream):
    dev, ret = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    try:
        ran = []
        _, ret = acl.ext.launch_host_kernel(
            ran.append, 1, stream, reads=[(dev, 64)], writes=((dev, 32), (0, 8), (dev, 0))
        )
        assert ret == 0
        assert acl.rt.synchronize_stream(stream) == 0
        assert ran == [1]
        for bad in ([dev], [(dev,)], [(dev, 1, 2)], 5, [("x", 1)], [(dev, None)]):
            with pytest.raises(TypeError):
                acl.ext.launch_host_kernel(ran.append, 2, stream, reads=bad)
            with pytest.raises(TypeError):
                acl.ext.launch_host_kernel(ran.append, 2, stream, writes=bad)
        assert acl.rt.synchronize_stream(stream) == 0
        assert ran == [1]
    finally:
        assert acl.rt.free(dev) == 0
