"""The kind of page a chunk comes from, read off the docs tree, and the per-kind prior on the fused score."""

import pytest
from pydantic import ValidationError

from assistant.models import Chunk
from assistant.retrieval.page_kind import KINDS, docs_path, page_kind, with_priors
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


def test_priors_multiply_the_fused_score_of_their_kind_only():
    fused = {"a": 0.8, "b": 0.6, "c": 0.5}
    kinds = {"a": "design", "b": "troubleshooting"}  # c: a chunk of no known kind
    out = with_priors(fused, kinds, {"design": 0.5, "troubleshooting": 2.0})
    assert out == pytest.approx({"a": 0.4, "b": 1.2, "c": 0.5})


def test_settings_refuse_a_kind_the_rule_never_gives_and_a_prior_that_is_not_positive():
    with pytest.raises(ValidationError, match="unknown page kind 'desgin'; choose from: entry"):
        Settings(page_kind_priors={"desgin": 0.8})
    with pytest.raises(ValidationError, match="must be a positive number"):
        Settings(page_kind_priors={"design": 0.0})
    with pytest.raises(ValidationError, match="must be a positive number"):
        Settings(page_kind_priors={"design": float("inf")})
