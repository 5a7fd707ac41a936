"""Which synced docs version answers a question (pure)."""

from assistant.models import Chunk
from assistant.retrieval.versions import docs_versions, keeps, wanted_version

AVAILABLE = frozenset({"0.30.0", "0.31.0", "0.31.1"})


def _doc(version: str | None) -> Chunk:
    return Chunk("x", "doc", "t", "s", "o", "d", "l", data={"version": version} if version else {})


def test_the_asked_version_wins_then_its_minor_then_the_newest():
    assert wanted_version(("0.30.0",), AVAILABLE) == "0.30.0"
    assert wanted_version(("v0.31.0",), AVAILABLE) == "0.31.0"
    assert wanted_version(("0.31",), AVAILABLE) == "0.31.1"  # the newest patch of that minor
    assert wanted_version(("12.8", "0.30.2"), AVAILABLE) == "0.30.0"  # a CUDA version matches nothing
    assert wanted_version((), AVAILABLE) == "0.31.1"
    assert wanted_version(("0.31.0",), frozenset()) is None


def test_other_versions_docs_are_dropped_and_everything_else_kept():
    assert keeps(_doc("0.31.0"), "0.31.0") and not keeps(_doc("0.30.0"), "0.31.0")
    assert keeps(_doc(None), "0.31.0")  # branch docs, ingested folders
    entry = Chunk("e", "entry", "t", "s", "o", "d", "l", data={"version": "0.30.0"})
    assert keeps(entry, "0.31.0") and keeps(_doc("0.30.0"), None)
    assert docs_versions([_doc("0.31.0"), _doc(None), entry]) == {"0.31.0"}


def test_same_minor():
    from assistant.retrieval.versions import same_minor

    assert same_minor("0.31.2", "v0.31.0") and same_minor("0.31", "0.31.1")
    assert not same_minor("0.30.0", "0.31.0") and not same_minor("nightly", "0.31.0") and not same_minor("1", "1.0")
