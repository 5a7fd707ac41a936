"""The kind of page a chunk comes from, read off the docs tree, and the per-kind prior that orders pages among pages."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from assistant.models import Chunk
from assistant.retrieval.page_kind import KINDS, docs_path, page_kind, pages_reordered, strengthened
from assistant.settings import Settings


def _doc(source: str, path: str | None = None) -> Chunk:
    data = {"body": "text", "heading_path": ["A"]} | ({"path": path} if path else {})
    return Chunk(id=source, kind="doc", title="A", source=source, origin=source, dense_text="t", lexical_text="t",
                 data=data)  # fmt: skip


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("docs/usage/troubleshooting.md", "troubleshooting"),
        ("docs/serving/distributed_troubleshooting.md", "troubleshooting"),
        ("docs/usage/faq.md", "troubleshooting"),
        ("docs/deployment/frameworks/helm.md", "integration"),
        ("docs/deployment/integrations/kserve.md", "integration"),
        ("docs/serving/integrations/langchain.md", "integration"),
        ("docs/examples/README.md", "example"),
        ("docs/design/cuda_graphs.md", "design"),
        ("docs/features/tool_calling.md", "feature"),
        ("docs/features/quantization/fp8.md", "feature"),
        ("docs/configuration/conserving_memory.md", "configuration"),
        ("docs/cli/README.md", "reference"),
        ("docs/api/README.md", "reference"),
        ("docs/contributing/model/basic.md", "contributing"),
        ("docs/governance/process.md", "contributing"),
        ("docs/getting_started/installation/gpu.cuda.inc.md", "getting_started"),
        ("docs/usage/security.md", "usage"),
        ("docs/deployment/k8s.md", "deployment"),
        ("docs/README.md", "doc"),
        ("env-vars-extracted.md", "doc"),
        ("docs/a_folder_the_layout_lacks/page.md", "doc"),
    ],
)
def test_a_sections_kind_follows_from_its_folder_and_page(path, kind):
    assert page_kind(_doc(f"{path}#a-heading")) == kind  # a docs folder ingested from disk: the path is the source


def test_a_release_pages_kind_is_read_from_its_path_in_the_source_tree_not_its_url():
    url = "https://docs.vllm.ai/en/v0.33.0/deployment/frameworks/helm/#values"
    assert docs_path(_doc(url, "docs/deployment/frameworks/helm.md")) == "deployment/frameworks/helm"
    assert page_kind(_doc(url, "docs/deployment/frameworks/helm.md")) == "integration"
    # A served page without its path: the URL's, under the site's /en/<version>/.
    assert docs_path(_doc("https://docs.vllm.ai/en/latest/usage/troubleshooting.html#hangs")) == "usage/troubleshooting"
    assert page_kind(_doc("https://docs.vllm.ai/en/v0.33.0/#welcome-to-vllm", "docs/README.md")) == "doc"


def test_a_folder_ingested_without_its_docs_prefix_reads_the_same():
    assert page_kind(_doc("design/paged_attention.md#x")) == page_kind(_doc("docs/design/paged_attention.md#x"))


@pytest.mark.parametrize("kind", ["entry", "qa", "issue"])
def test_a_chunk_that_is_no_docs_section_is_its_own_kind(kind):
    chunk = Chunk(id="x", kind=kind, title="x", source="corpus/entries/x.yaml", origin="x", dense_text="t",
                  lexical_text="t")  # fmt: skip
    assert page_kind(chunk) == kind


def test_every_kind_the_rule_gives_is_one_a_prior_may_name():
    for path in ("docs/design/a.md", "docs/usage/troubleshooting.md", "docs/serving/integrations/x.md", "x.md"):
        assert page_kind(_doc(path)) in KINDS


def test_priors_reorder_pages_among_the_slots_pages_hold_and_nothing_else_moves():
    order = ["d1", "e1", "t1", "q1", "d2", "x"]
    fused = {"d1": 0.9, "e1": 0.8, "t1": 0.7, "q1": 0.6, "d2": 0.5, "x": 0.4}
    kinds = {"d1": "design", "e1": "entry", "t1": "troubleshooting", "q1": "qa", "d2": "design"}  # x: unknown
    out = pages_reordered(order, fused, kinds, {"design": 0.5, "troubleshooting": 2.0})
    # t1 (1.4) over d1 (0.45) over d2 (0.25), in the pages' slots 0, 2, 4; e1, q1 and x stay where they were.
    assert out == ["t1", "e1", "d1", "q1", "d2", "x"]
    assert pages_reordered(order, fused, kinds, {}) == order


@given(
    st.lists(st.tuples(st.sampled_from(["entry", "qa", "design", "troubleshooting", "feature"]),
                       st.floats(0.0, 1.0)), max_size=12),
    st.dictionaries(st.sampled_from(["design", "troubleshooting", "feature", "entry"]), st.floats(0.01, 100.0)),
)  # fmt: skip
def test_no_entry_changes_slot_and_pages_follow_score_times_prior(rows, priors):
    order = [f"c{i}" for i in range(len(rows))]
    kinds = {cid: kind for cid, (kind, _) in zip(order, rows)}
    fused = {cid: score for cid, (_, score) in zip(order, rows)}
    out = pages_reordered(order, fused, kinds, priors)
    assert sorted(out) == sorted(order)
    for slot, cid in enumerate(order):
        if kinds[cid] in ("entry", "qa"):  # a prior on "entry" too: no chunk that is no page moves
            assert out[slot] == cid
    pages = [cid for cid in out if kinds[cid] not in ("entry", "qa")]
    weighted = [fused[cid] * priors.get(kinds[cid], 1.0) for cid in pages]
    assert weighted == sorted(weighted, reverse=True)


def test_settings_refuse_a_kind_the_rule_never_gives_and_a_prior_that_is_not_positive():
    with pytest.raises(ValidationError, match="unknown page kind 'desgin'; choose from: entry"):
        Settings(page_kind_priors={"desgin": 0.8})
    with pytest.raises(ValidationError, match="must be a positive number"):
        Settings(page_kind_priors={"design": 0.0})
    with pytest.raises(ValidationError, match="must be a positive number"):
        Settings(page_kind_priors={"design": float("inf")})


def test_a_strength_raises_every_prior_to_it_and_zero_means_none():
    priors = {"design": 0.5, "troubleshooting": 2.0}
    assert strengthened(priors, 1.0) == priors
    assert strengthened(priors, 0.0) == {}
    assert strengthened(priors, 0.5) == pytest.approx({"design": 0.5**0.5, "troubleshooting": 2.0**0.5})
    with pytest.raises(ValidationError, match="must be a number >= 0"):
        Settings(page_kind_prior_strength={"zh": -1.0})
