"""The eval's metrics and set loading: pure, no model, no store."""

import json
import math
import random

import pytest

from assistant.eval.dataset import CONTRADICTIONS, DatasetError, load_set, load_sets
from assistant.eval.metrics import (
    RETRIEVAL_METRICS,
    abstention,
    check_citations,
    claim_terms,
    is_wrong_fix,
    judged_ids,
    key_fact_recall,
    percentile,
    retrieval_scores,
    split_claims,
)
from assistant.models import Chunk


def _chunk(cid: str, source: str | None = None, text: str = "", kind: str = "doc") -> Chunk:
    return Chunk(
        id=cid, kind=kind, title=cid, source=source or cid, origin="x", dense_text=text, lexical_text=text, data={}
    )


# --------------------------------------------------------------------------- retrieval


def test_judged_ids_maps_parts_and_pages_to_their_label_once():
    chunks = [
        _chunk("docs/a.md#x~2", "docs/a.md#x"),
        _chunk("docs/a.md#x", "docs/a.md#x"),
        _chunk("docs/b.md#y", "docs/b.md#y"),
        _chunk("entry-1", "corpus/entries/entry-1.yaml", kind="entry"),
    ]
    assert judged_ids(chunks, ["docs/a.md#x", "docs/b.md", "entry-1"]) == ["docs/a.md#x", "docs/b.md", "entry-1"]
    assert judged_ids(chunks, []) == ["docs/a.md#x~2", "docs/a.md#x", "docs/b.md#y", "entry-1"]


def test_retrieval_scores_by_hand():
    scores = retrieval_scores(
        {"q1": ["a"], "q2": ["b", "c"], "q3": ["z"]},
        {"q1": ["a", "x"], "q2": ["x", "y", "b"], "q3": []},
    )
    assert scores["q1"] == {"hit@1": 1.0, "hit@3": 1.0, "mrr@10": 1.0, "ndcg@10": 1.0}
    assert scores["q2"]["hit@1"] == 0.0 and scores["q2"]["hit@3"] == 1.0
    assert scores["q2"]["mrr@10"] == pytest.approx(1 / 3)
    # one of two relevant at rank 3: DCG = 1/log2(4); ideal = 1 + 1/log2(3)
    assert scores["q2"]["ndcg@10"] == pytest.approx(0.5 / (1 + 1 / math.log2(3)))
    assert scores["q3"] == {"hit@1": 0.0, "hit@3": 0.0, "mrr@10": 0.0, "ndcg@10": 0.0}


def test_retrieval_scores_keep_the_system_order_not_id_order():
    assert retrieval_scores({"q": ["b"]}, {"q": ["z", "b"]})["q"]["mrr@10"] == pytest.approx(0.5)


def test_retrieval_scores_agree_with_ranx_on_random_rankings():
    """ranx is the reference implementation of these definitions: 300 random queries, a few relevant ids each,
    rankings of 0-15 ids (so rank 11+ and unranked labels occur), every metric equal query by query."""
    from ranx import Qrels, Run, evaluate

    rng = random.Random(7)
    pool = [f"d{i}" for i in range(25)]
    relevant = {f"q{i:03d}": rng.sample(pool, rng.randint(1, 4)) for i in range(300)}
    ranked = {q: rng.sample(pool, rng.randint(0, 15)) for q in relevant}
    ours = retrieval_scores(relevant, ranked)
    qids = sorted(relevant)
    qrels = Qrels({q: {d: 1 for d in relevant[q]} for q in qids})
    run = Run({q: {d: float(len(ranked[q]) - i) for i, d in enumerate(ranked[q])} or {"none": 0.0} for q in qids})
    theirs = evaluate(qrels, run, list(RETRIEVAL_METRICS.values()), return_mean=False, make_comparable=True)
    for name, ranx_name in RETRIEVAL_METRICS.items():
        assert [ours[q][name] for q in qids] == pytest.approx(list(theirs[ranx_name]), abs=1e-9), name
    assert 0 < sum(ours[q]["hit@1"] for q in qids) < len(qids)  # the sample holds hits and misses


# --------------------------------------------------------------------------- answers


def test_key_fact_recall_is_a_share_and_zero_on_abstention():
    text = "Start with `--enforce-eager`; upgrade to a build with PR #60479."
    assert key_fact_recall(text, False, ["enforce[-_]eager", "60479", "tensor[_-]parallel"]) == pytest.approx(2 / 3)
    assert key_fact_recall(text.upper(), False, ["enforce[-_]eager"]) == 1.0
    assert key_fact_recall(text, True, ["enforce[-_]eager"]) == 0.0


def test_claim_terms_pick_identifiers_flags_env_vars_issues_versions():
    claim = "Set VLLM_BATCH_INVARIANT=1 and pass --enforce-eager or `torch.matmul` (PR #60479, fixed in 0.11.1)."
    assert claim_terms(claim) == ["torch.matmul", "VLLM_BATCH_INVARIANT=1", "--enforce-eager", "#60479", "0.11.1"]
    assert claim_terms("**Root cause:** the kernel bypasses an override") == []


def test_an_env_var_at_the_end_of_bold_text_does_not_take_the_closing_asterisks():
    """A title `**... set VLLM_WORKER_MULTIPROC_METHOD=spawn** [1]`: the term is the variable, not `spawn**`."""
    assert claim_terms("**Fix it: set VLLM_WORKER_MULTIPROC_METHOD=spawn** [1]") == ["VLLM_WORKER_MULTIPROC_METHOD=spawn"]
    assert claim_terms("*VLLM_USE_V1=0*, then restart") == ["VLLM_USE_V1=0"]


ANSWER = """**AWQ is not batch-invariant** [1]

**Fix:** Upgrade to a build with PR #60479 and use `--enforce-eager`. [1]

**From the docs: Troubleshooting** [2]

Run this first:
```bash
export CUDA_LAUNCH_BLOCKING=1
```
[2]

Sources:
[1] AWQ entry — corpus/entries/awq.yaml
[2] Troubleshooting — docs/usage/troubleshooting.md#x"""


def test_split_claims_attaches_each_marker_to_its_claim():
    claims = split_claims(ANSWER)
    assert [(c.n, c.reference) for c in claims] == [(1, False), (1, False), (2, False), (2, False), (1, True), (2, True)]
    assert "PR #60479" in claims[1].text
    assert "CUDA_LAUNCH_BLOCKING" in claims[3].text and "Run this first" in claims[3].text


def test_citations_valid_when_every_term_is_in_the_cited_source():
    entry = _chunk("awq", text="Upgrade to a build with PR #60479. Workaround: --enforce-eager.", kind="entry")
    doc = _chunk("docs/usage/troubleshooting.md#x", text="Set `export CUDA_LAUNCH_BLOCKING=1` to find the op.")
    check = check_citations(ANSWER, {1: entry, 2: doc})
    assert check.valid, check.problems


def test_citation_invalid_when_a_term_is_missing_from_the_cited_source():
    entry = _chunk("awq", text="Upgrade to a build with PR #60479.", kind="entry")
    doc = _chunk("docs/usage/troubleshooting.md#x", text="Set `export CUDA_LAUNCH_BLOCKING=1` to find the op.")
    check = check_citations(ANSWER, {1: entry, 2: doc})
    assert not check.valid
    assert any("--enforce-eager" in p for p in check.problems)


def test_citation_invalid_when_a_marker_has_no_citation_or_there_is_none():
    entry = _chunk("awq", text="PR #60479 --enforce-eager", kind="entry")
    assert not check_citations(ANSWER, {1: entry}).valid  # [2] maps to nothing
    assert not check_citations("Just upgrade.", {1: entry}).valid  # an answer must cite


def test_citation_support_uses_the_cited_chunk_not_another():
    entry = _chunk("awq", text="nothing specific", kind="entry")
    doc = _chunk("d", text="PR #60479 --enforce-eager export CUDA_LAUNCH_BLOCKING=1")
    assert not check_citations(ANSWER, {1: entry, 2: doc}).valid


def test_wrong_fix_needs_the_near_entry_first_and_a_forbidden_fact():
    assert is_wrong_fix("use --enforce-eager [1]", False, "awq", "awq", ["enforce[-_]eager"])
    assert not is_wrong_fix("use --enforce-eager [1]", True, "awq", "awq", ["enforce[-_]eager"])
    assert not is_wrong_fix("use --enforce-eager [1]", False, "docs/x.md#y", "awq", ["enforce[-_]eager"])
    assert not is_wrong_fix("tune the kernel [1]", False, "awq", "awq", ["enforce[-_]eager"])


def test_abstention_precision_recall_accuracy():
    a = abstention([(True, True), (True, True), (True, False), (False, True), (False, False), (False, False)])
    assert (a.tp, a.fp, a.fn, a.tn) == (2, 1, 1, 2)
    assert a.precision == pytest.approx(2 / 3)
    assert a.recall == pytest.approx(2 / 3)
    assert a.accuracy == pytest.approx(4 / 6)


def test_percentile():
    assert percentile([10, 20, 30, 40, 50], 50) == 30
    assert percentile([1.0] * 19 + [100.0], 95) == pytest.approx(5.95)
    assert math.isnan(percentile([], 50))


# --------------------------------------------------------------------------- sets


def _write(tmp_path, name, rows):
    (tmp_path / f"{name}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


def test_the_repository_sets_load():
    sets = load_sets("all")
    names = {
        "seed", "docs", "negatives", "near_miss", "docs_zh", "reports", "entry_questions", "entry_near_miss",
        "entry_questions_fit",
    }
    assert {name: len(items) for name, items in sets.items()}.keys() == names
    answerable = sets["seed"] + sets["docs"] + sets["docs_zh"] + sets["reports"] + sets["entry_questions"]
    answerable += sets["entry_questions_fit"]
    assert all(item.relevant and item.key_facts for item in answerable)
    assert all(item.near and item.forbidden_facts for item in sets["near_miss"] + sets["entry_near_miss"])


def test_the_entry_sets_cover_what_issue_22_asks():
    """At least 50 entries asked about (55 as written), 15 with near-misses (18), Chinese ones among them."""
    sets = load_sets(["entry_questions", "entry_near_miss"])
    questions, near = sets["entry_questions"], sets["entry_near_miss"]
    assert len({i.relevant[0] for i in questions}) >= 55 and sum(i.lang == "zh" for i in questions) >= 8
    assert len({i.near for i in near}) >= 18
    assert all(i.note and i.key_facts for i in questions)


def test_the_repository_sets_cover_what_issue_9_asks():
    sets = load_sets("all")
    near = sets["near_miss"]
    assert len(near) >= 40 and {i.lang for i in near} == {"en", "zh"}
    assert {i.contradiction for i in near} == set(CONTRADICTIONS)
    kinds = [i.kind for i in sets["negatives"]]
    assert len(kinds) >= 60 and kinds.count("injection") >= 10 and kinds.count("vague_vllm") >= 10
    docs = {i.id: i for i in sets["docs"]}
    zh = sets["docs_zh"]
    assert len(zh) >= 30
    assert all(i.lang == "zh" and docs[i.pair].lang == "en" and docs[i.pair].relevant == i.relevant for i in zh)


_ZH = {"id": "z1", "query": "q", "lang": "zh", "expect": "answer", "pair": "d1", "relevant": ["a"], "key_facts": ["x"]}
_EN = {"id": "d1", "query": "q", "lang": "en", "expect": "answer", "relevant": ["a"], "key_facts": ["x"]}
_NEAR = {"id": "n1", "query": "q", "expect": "not_fix", "near": "e", "forbidden_facts": ["x"]}


def test_optional_fields_load(tmp_path):
    _write(tmp_path, "docs", [_EN])
    _write(tmp_path, "docs_zh", [_ZH])
    near = {**_NEAR, "contradiction": "hardware", "relevant": ["docs/a.md#b"], "note": "V100 is SM70", "pair": "n2"}
    _write(tmp_path, "near_miss", [near, {**_NEAR, "id": "n2", "lang": "zh", "pair": "n1"}])
    sets = load_sets(["docs_zh", "near_miss"], tmp_path)  # the twins in docs are read to check the pairs
    assert (sets["docs_zh"][0].pair, sets["docs_zh"][0].relevant) == ("d1", ("a",))
    n1 = sets["near_miss"][0]
    assert (n1.contradiction, n1.relevant, n1.note, n1.pair) == ("hardware", ("docs/a.md#b",), "V100 is SM70", "n2")
    assert not n1.answerable
    answered = {"0.33.0": {"relevant": ["docs/features/lora.md#serving-lora-adapters"], "key_facts": ["--lora-modules"],
                           "quote": "vllm serve --enable-lora --lora-modules"}}  # fmt: skip
    _write(tmp_path, "negatives", [{"id": "g1", "query": "q", "expect": "abstain", "release_labels": answered}])
    g1 = load_set("negatives", tmp_path)[0]
    assert g1.answered_by("0.33.0") and not g1.answered_by("0.32.0")
    assert g1.on_release("0.32.0") is g1  # no label there: still a negative
    _write(tmp_path, "negatives", [{**_NEG, "release_labels": {"0.33.0": {"relevant": []}}}])
    read = load_set("negatives", tmp_path)[0]  # read on 0.33.0 and not answered there: still a negative
    assert not read.answered_by("0.33.0") and read.on_release("0.33.0") is read
    there = g1.on_release("0.33.0", "reports")  # on 0.33.0's docs: an answerable item, with its label's facts
    assert (there.set, there.expect, there.relevant, there.key_facts) == (
        "reports", "answer", ("docs/features/lora.md#serving-lora-adapters",), ("--lora-modules",)
    )


def test_an_answerable_items_release_label_replaces_its_sources_and_keeps_its_facts_unless_given(tmp_path):
    labels = {"0.33.0": {"relevant": ["docs/b.md#c"]}, "0.9.0": {"relevant": [], "key_facts": ["y"]}}
    _write(tmp_path, "docs", [{**_EN, "release_labels": labels}])
    d1 = load_set("docs", tmp_path)[0]
    assert (d1.relevant, d1.key_facts) == (("a",), ("x",))  # the gate's labels are unchanged
    assert (d1.on_release("0.33.0").relevant, d1.on_release("0.33.0").key_facts) == (("docs/b.md#c",), ("x",))
    assert (d1.on_release("0.9.0").relevant, d1.on_release("0.9.0").key_facts) == ((), ("y",))
    assert not d1.answered_by("0.33.0")  # only a negative is "answered by" a release


def test_a_rendering_must_expect_its_twins_sources_on_each_release_too(tmp_path):
    _write(tmp_path, "docs", [{**_EN, "release_labels": {"0.33.0": {"relevant": ["docs/b.md#c"]}}}])
    _write(tmp_path, "docs_zh", [{**_ZH, "release_labels": {"0.33.0": {"relevant": ["docs/b.md#d"]}}}])
    with pytest.raises(DatasetError, match=r"release_labels\['0.33.0'\] relevant differs from its twin"):
        load_sets(["docs_zh"], tmp_path)
    _write(tmp_path, "docs_zh", [_ZH])  # a twin with a label and a rendering without: the same error
    with pytest.raises(DatasetError, match="relevant differs from its twin"):
        load_sets(["docs_zh"], tmp_path)


_LABEL = {"relevant": ["docs/a.md#b"], "key_facts": ["x"], "quote": "x is the fix"}
_NEG = {"id": "g1", "query": "q", "expect": "abstain"}


@pytest.mark.parametrize(
    "name, row, message",
    [
        ("negatives", {**_NEG, "answered_in": {"0.33.0": {"section": "a.md", "quote": "x"}}}, "now 'release_labels'"),
        ("negatives", {**_NEG, "release_labels": ["0.33.0"]}, "release -> "),
        ("negatives", {**_NEG, "release_labels": {"0.33.0": {**_LABEL, "relevant": []}}}, "takes nothing else"),
        ("negatives", {**_NEG, "release_labels": {"0.33.0": {"relevant": ["docs/a.md#b"], "quote": "x"}}},
         "'key_facts' must be a non-empty"),
        ("negatives", {**_NEG, "release_labels": {"0.33.0": {**_LABEL, "quote": ""}}}, "'quote' must be a sentence"),
        ("docs", {**_EN, "release_labels": {"0.33.0": {"relevant": ["a.md#b"]}}}, "must name sections of the release"),
        ("docs", {**_EN, "release_labels": {"0.33.0": {"relevant": ["docs/a.md"], "key_facts": ["("]}}}, "not a valid regex"),
        ("docs", {**_EN, "release_labels": {"0.33.0": {"relevant": [], "section": "a"}}}, "optionally 'key_facts'"),
        ("near_miss", {**_NEAR, "release_labels": {"0.33.0": _LABEL}}, "not near-misses"),
        ("near_miss", {**_NEAR, "contradiction": "gpu"}, "contradiction 'gpu' is not one of: hardware, version_fixed"),
        ("negatives", {"id": "g1", "query": "q", "expect": "abstain", "contradiction": "hardware"}, "only for not_fix"),
        ("docs_zh", {k: v for k, v in _ZH.items() if k != "pair"}, "needs 'pair'"),
        ("docs_zh", {**_ZH, "lang": "en"}, "holds Chinese items"),
        ("near_miss", {**_NEAR, "pair": ""}, "'pair' must be a non-empty string"),
        ("near_miss", {**_NEAR, "relevant": "docs/a.md"}, "'relevant' must be a non-empty list"),
    ],
)
def test_bad_optional_fields_are_reported_with_file_and_line(tmp_path, name, row, message):
    _write(tmp_path, name, [row])
    with pytest.raises(DatasetError, match=message) as err:
        load_set(name, tmp_path)
    assert f"{name}.jsonl:1" in str(err.value)


@pytest.mark.parametrize(
    "zh_rows, message",
    [
        ([{**_ZH, "pair": "d9"}], "pair 'd9' is not the id of any eval item"),
        ([{**_ZH, "relevant": ["b"]}], "differs from its twin 'd1'"),
        ([_ZH, {**_ZH, "id": "z2"}], "are both paired with 'd1'"),
    ],
)
def test_pairs_are_checked_against_their_twins(tmp_path, zh_rows, message):
    _write(tmp_path, "docs", [_EN, {**_EN, "id": "d2", "lang": "zh"}])
    _write(tmp_path, "docs_zh", zh_rows)
    with pytest.raises(DatasetError, match=message):
        load_sets(["docs_zh"], tmp_path)


def test_a_pair_must_change_language_and_exist_when_every_set_is_loaded(tmp_path):
    for name, row in (("seed", _EN), ("docs", {**_EN, "id": "d2"}), ("negatives", {"id": "g1", "query": "q", "expect": "abstain"}),
                      ("docs_zh", {**_ZH, "pair": "d2"}), ("reports", {**_EN, "id": "r1"}),
                      ("entry_questions", {**_EN, "id": "q1", "relevant": [_ENTRY]}),
                      ("entry_near_miss", {**_NEAR, "id": "m1", "near": _ENTRY}),
                      ("entry_questions_fit", {**_EN, "id": "f1", "relevant": [_ENTRY]})):
        _write(tmp_path, name, [row])
    _write(tmp_path, "near_miss", [{**_NEAR, "pair": "n2"}, {**_NEAR, "id": "n2", "pair": "n1"}])
    with pytest.raises(DatasetError, match="has the same language"):
        load_sets("all", tmp_path)
    _write(tmp_path, "near_miss", [{**_NEAR, "pair": "gone"}])
    assert load_sets(["near_miss"], tmp_path)  # the twin may be in a set not loaded
    with pytest.raises(DatasetError, match="pair 'gone' is not the id of any eval item"):
        load_sets("all", tmp_path)


@pytest.mark.parametrize(
    "row, message",
    [
        ({"id": "s1", "query": "q", "expect": "answer", "key_facts": ["x"]}, "'relevant' must be a non-empty list"),
        ({"id": "s1", "query": "q", "expect": "answer", "relevant": ["a"], "key_facts": ["("]}, "not a valid regex"),
        ({"id": "s1", "query": "", "expect": "answer"}, "missing or empty 'query'"),
        ({"id": "s1", "query": "q", "expect": "abstain"}, "holds expect='answer' items"),
        ({"id": "s1", "query": "q", "expect": "answer", "relevant": ["a"], "key_facts": ["x"], "lang": "fr"}, "lang 'fr'"),
    ],
)
def test_bad_lines_are_reported_with_file_and_line(tmp_path, row, message):
    _write(tmp_path, "seed", [row])
    with pytest.raises(DatasetError, match=message) as err:
        load_set("seed", tmp_path)
    assert "seed.jsonl:1" in str(err.value)


def test_unknown_set_and_duplicate_ids_are_refused(tmp_path):
    with pytest.raises(DatasetError, match="choose one of: seed, docs, negatives, near_miss, docs_zh"):
        load_set("nope", tmp_path)
    row = {"id": "n1", "query": "q", "expect": "abstain"}
    _write(tmp_path, "negatives", [row, row])
    with pytest.raises(DatasetError, match="duplicate id 'n1'"):
        load_set("negatives", tmp_path)


def test_indexing_in_code_is_not_a_citation_marker():
    text = "Read the output with `outputs[0].text` [1]\n\n```python\nprint(outputs[0].outputs[0].text)\n```\n[1]"
    claims = split_claims(text)
    assert [c.n for c in claims] == [1, 1]
    doc = _chunk("d", text="print(outputs[0].outputs[0].text) and outputs[0].text")
    assert check_citations(text, {1: doc}).valid


def test_an_answerable_line_may_say_no_section_answers_it(tmp_path):
    """`"relevant": []` is a decision (only key facts judge it); a missing `relevant` stays an error."""
    _write(tmp_path, "docs", [
        {"id": "d1", "query": "q", "expect": "answer", "relevant": [], "key_facts": ["x"]},
        {"id": "d2", "query": "q", "expect": "answer", "relevant": ["docs/a.md#b"], "key_facts": ["x"]},
    ])
    items = load_set("docs", tmp_path)
    assert [i.relevant for i in items] == [(), ("docs/a.md#b",)]


def test_retrieval_metrics_leave_out_the_items_no_section_answers(tmp_path):
    from assistant.eval.runner import Result, summarize
    from assistant.models import Answer

    _write(tmp_path, "docs", [
        {"id": "d1", "query": "q", "expect": "answer", "relevant": [], "key_facts": ["x"]},
        {"id": "d2", "query": "q", "expect": "answer", "relevant": ["docs/a.md#b"], "key_facts": ["x"]},
    ])
    unlabelled, labelled = load_set("docs", tmp_path)
    answer = Answer(body="x", abstained=False, language="en", citations=(), hits=(), lead="x")
    results = [
        Result(item=unlabelled, system="full", answer=answer, latency_ms=1.0, facts=1.0),
        Result(item=labelled, system="full", answer=answer, latency_ms=1.0, facts=0.0,
               retrieval={"hit@1": 1.0, "hit@3": 1.0, "mrr@10": 1.0, "ndcg@10": 1.0}),
    ]
    m = summarize(results, "docs", "full").metrics
    assert m["hit@1"] == 1.0 and m["hit@3"] == 1.0  # over the one labelled item, not halved by the other
    assert m["key_fact_recall"] == 0.5  # key facts still judge both


_ENTRY = "task-flag-removed-use-runner-convert"  # a curated entry in corpus/entries/


def test_entry_set_labels_must_name_curated_entries(tmp_path):
    question = {**_EN, "id": "q1", "relevant": [_ENTRY]}
    near = {**_NEAR, "id": "m1", "near": _ENTRY, "relevant": ["docs/models/pooling_models.md#x"]}
    _write(tmp_path, "entry_questions", [question])
    _write(tmp_path, "entry_near_miss", [near])
    sets = load_sets(["entry_questions", "entry_near_miss"], tmp_path)
    assert sets["entry_questions"][0].relevant == (_ENTRY,) and sets["entry_near_miss"][0].near == _ENTRY
    _write(tmp_path, "entry_questions", [{**question, "relevant": [_ENTRY, "no-such-entry"]}])
    with pytest.raises(DatasetError, match=r"entry_questions item 'q1': \['no-such-entry'\] is not the id of any entry"):
        load_sets(["entry_questions"], tmp_path)
    _write(tmp_path, "entry_near_miss", [{**near, "near": "task-flag-renamed"}])
    with pytest.raises(DatasetError, match=r"entry_near_miss item 'm1': \['task-flag-renamed'\]"):
        load_sets(["entry_near_miss"], tmp_path)


def test_entry_sets_take_the_shapes_of_seed_and_near_miss(tmp_path):
    _write(tmp_path, "entry_questions", [{**_NEAR, "near": _ENTRY}])
    with pytest.raises(DatasetError, match="the entry_questions set holds expect='answer' items"):
        load_set("entry_questions", tmp_path)
    _write(tmp_path, "entry_near_miss", [{**_NEAR, "near": ""}])
    with pytest.raises(DatasetError, match="needs 'near'"):
        load_set("entry_near_miss", tmp_path)


def test_entry_labels_of_the_docs_answered_sets_must_name_entries_that_every_release_label_keeps(tmp_path):
    """A docs or reports item may name a curated entry beside its sections (entries are in every corpus scored):
    the entry must exist, be kept in each release label, and `entry_paraphrase` may only name such a label."""
    release = {"0.33.0": {"relevant": ["docs/a.md#b", _ENTRY]}}
    _write(tmp_path, "docs", [{**_EN, "relevant": ["docs/a.md#b", _ENTRY], "release_labels": release,
                               "entry_paraphrase": {_ENTRY: "states the fix in other words"}}])
    item = load_sets(["docs"], tmp_path)["docs"][0]
    assert item.relevant == ("docs/a.md#b", _ENTRY) and dict(item.entry_paraphrase) == {_ENTRY: "states the fix in other words"}
    for row, message in (
        ({**_EN, "relevant": ["no-such-entry"]}, "is not the id of any entry"),
        ({**_EN, "relevant": [_ENTRY], "release_labels": {"0.33.0": {"relevant": ["docs/a.md#b"]}}}, "missing from release_labels"),
        ({**_EN, "relevant": [_ENTRY], "release_labels": {"0.33.0": {"relevant": [_ENTRY, "no-such-entry"]}}},
         "is not the id of any entry"),
        ({**_EN, "relevant": ["docs/a.md#b"], "entry_paraphrase": {_ENTRY: "why"}}, "which are not its entry labels"),
        ({**_EN, "relevant": [_ENTRY], "entry_paraphrase": {_ENTRY: " "}}, "non-empty reason"),
    ):
        _write(tmp_path, "docs", [row])
        with pytest.raises(DatasetError, match=message):
            load_sets(["docs"], tmp_path)
