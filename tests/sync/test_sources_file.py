"""The sources file: the shipped one loads offline, bad ones fail with a message naming what is wrong."""

import pytest

from assistant.errors import ConfigError
from assistant.settings import REPO_ROOT, Settings
from assistant.sync.sources import DocsSource, EntriesSource, GitHubIssuesSource, load_sources, parse_sources, select


def test_the_shipped_sources_file_syncs_only_local_sources_by_default():
    sources = load_sources(Settings().sources_file)
    enabled = select(sources, [])
    assert [s.name for s in enabled] == ["curated"]
    assert isinstance(enabled[0], EntriesSource) and enabled[0].path == REPO_ROOT / "corpus" / "entries"
    network = [s for s in sources if isinstance(s, (DocsSource, GitHubIssuesSource))]
    assert network and not any(s.enabled for s in network)  # `make run` needs no GitHub


def test_a_disabled_source_still_syncs_when_named():
    sources = load_sources(Settings().sources_file)
    assert [s.name for s in select(sources, ["vllm-issues"])] == ["vllm-issues"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sources: [{name: a, kind: rss}]", "unknown kind 'rss'; choose one of: entries, qa_pages, docs"),
        ("sources: [{name: a, kind: github_issues}]", "sources.0.github_issues.repo: Field required"),
        ("sources: [{name: a, kind: github_issues, repo: nope}]", "String should match pattern"),
        ("sources: [{name: a, kind: github_issues, repo: o/r, labels: ['a,b']}]", "contain no commas"),
        ("sources: [{name: a, kind: docs, ref: v1, colour: red}]", "colour: Extra inputs are not permitted"),
        ("sources: [{name: a, kind: entries, path: x}, {name: a, kind: entries, path: y}]", "repeated: a"),
        ("sources: [{name: 'Bad Name', kind: entries, path: x}]", "name: String should match pattern"),
        ("sources: [unclosed", "invalid YAML"),
        ("- just a list", "expected a mapping"),
    ],
)
def test_bad_sources_files_say_what_is_wrong(text, message):
    with pytest.raises(ConfigError) as err:
        parse_sources(text, "sources.yaml")
    assert message in str(err.value)
    assert str(err.value).startswith("sources.yaml")


def test_unknown_names_list_the_declared_ones():
    sources = parse_sources("sources: [{name: a, kind: entries, path: x}]", "f")
    with pytest.raises(ConfigError, match="unknown source 'b'; the sources file declares: a"):
        select(sources, ["b"])


def test_relative_paths_are_relative_to_the_repository(tmp_path):
    (s,) = parse_sources("sources: [{name: a, kind: entries, path: corpus/entries}]", "f", base=tmp_path)
    assert s.path == tmp_path / "corpus" / "entries"
