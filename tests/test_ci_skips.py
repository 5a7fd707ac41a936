"""The suite's CI rule (tests/conftest.py): with `CI` set every kind of skip fails the run; without it, skips stay skips.

Runs the real conftest in a throwaway pytest session (pytester), so the rule itself is tested, not a copy.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py")

# One test per way a component can go missing: a mark, a skip in the test, a skip in a fixture, importorskip in
# a fixture, and a module that skips itself at import.
SKIPPING = {
    "test_marks.py": """
import pytest

@pytest.mark.skip(reason="no browser")
def test_marked():
    pass

@pytest.mark.skipif(True, reason="no model package")
def test_skipif():
    pass

def test_skips_inside():
    pytest.skip("no llama.cpp server")

@pytest.fixture
def server():
    pytest.skip("server binary missing")

def test_fixture_skips(server):
    pass

@pytest.fixture
def driver():
    return pytest.importorskip("a_package_that_is_not_installed")

def test_importorskip_in_fixture(driver):
    pass

def test_passes():
    pass

@pytest.mark.xfail(reason="known bug", strict=True)
def test_expected_failure():
    assert False
""",
    "test_module_skip.py": """
import pytest

pytest.importorskip("another_package_that_is_not_installed")

def test_never_collected():
    pass
""",
}


@pytest.fixture
def session(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(**{name.removesuffix(".py"): body for name, body in SKIPPING.items()})
    return pytester


def test_under_ci_every_skip_fails_the_run(session: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    result = session.runpytest("-p", "no:cacheprovider", "test_marks.py")
    outcomes = result.parseoutcomes()
    assert "skipped" not in outcomes
    # a skip inside the test fails it; skip marks and skips in fixtures act at set-up, so pytest calls them errors
    assert (outcomes["failed"], outcomes["errors"]) == (1, 4)
    assert (outcomes["passed"], outcomes["xfailed"]) == (1, 1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*skipped under CI*no llama.cpp server*"])


def test_under_ci_a_module_that_skips_itself_fails_collection(
    session: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = session.runpytest("-p", "no:cacheprovider", "test_module_skip.py")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*skipped under CI*another_package_that_is_not_installed*"])


def test_outside_ci_a_skip_stays_a_skip(session: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    outcomes = session.runpytest("-p", "no:cacheprovider").parseoutcomes()
    assert outcomes["skipped"] == 6 and outcomes["passed"] == 1 and "failed" not in outcomes


@pytest.mark.parametrize("value", ["", "0", "false", "False"])
def test_ci_set_to_false_is_not_ci(session: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    assert "failed" not in session.runpytest("-p", "no:cacheprovider").parseoutcomes()


def test_the_shells_assistant_variables_do_not_reach_the_tests(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSISTANT_MIN_CONFIDENCE", "0.99")
    monkeypatch.setenv("assistant_answer_backend", "openai")
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(
        test_env="""
import os
from assistant.settings import Settings

def test_defaults():
    # the only one left is the conftest's own: no test downloads a vLLM release unless it asks for one
    assert not [n for n in os.environ if n.upper().startswith("ASSISTANT_") and n.upper() != "ASSISTANT_VLLM_RELEASES"]
    settings = Settings()
    assert settings.min_confidence == Settings.model_fields["min_confidence"].default
    assert settings.answer_backend == "extractive"
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
