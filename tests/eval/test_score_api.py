"""`eval/fresh/score_api.py` scores served answers: through real HTTP to a local server speaking `/v1/ask`.

The server stands in for `python app.py` (whose first start builds a 3,000-chunk index): it answers by rule, so
each outcome the scorer must tell apart (fix in the answer, answer without it, abstention, a 429 first) is there.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from assistant.settings import REPO_ROOT

_spec = importlib.util.spec_from_file_location("score_api", REPO_ROOT / "eval" / "fresh" / "score_api.py")
score_api = importlib.util.module_from_spec(_spec)
sys.modules["score_api"] = score_api  # dataclasses look their module up there
_spec.loader.exec_module(score_api)

SECTION = "https://docs.vllm.ai/en/v0.33.0/usage/troubleshooting/#out-of-memory"


class _Handler(BaseHTTPRequestHandler):
    limited_once = False

    def do_POST(self):
        question = json.loads(self.rfile.read(int(self.headers["content-length"])))["question"]
        if "rate" in question and not _Handler.limited_once:
            _Handler.limited_once = True
            self.send_response(429)
            self.send_header("Retry-After", "0")
            self.end_headers()
            return
        if "entry" in question:
            reply = {"answer": "Use --dtype half [1]", "abstained": False,
                     "hits": [{"id": "bfloat16-needs-compute-capability-8-use-dtype-half", "title": "t", "score": 1.0,
                               "source": "corpus/entries/bfloat16-needs-compute-capability-8-use-dtype-half.yaml"}]}
        elif "ollama" in question:
            reply = {"answer": "No source covers this.", "abstained": True, "hits": []}
        elif "oom" in question or "rate" in question:
            reply = {"answer": "Use --enforce-eager [1]", "abstained": False,
                     "hits": [{"id": SECTION + "~2", "source": SECTION, "title": "t", "score": 1.0}]}
        else:
            reply = {"answer": "Something else [1]", "abstained": False,
                     "hits": [{"id": "x", "source": "https://docs.vllm.ai/en/v0.33.0/other/#a", "title": "t",
                               "score": 1.0}, {"id": SECTION, "source": SECTION, "title": "t", "score": 0.5}]}
        body = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _line(**row) -> str:
    return json.dumps(row)


def test_labels_map_to_the_urls_make_run_cites():
    assert score_api.cited_as_served("docs/usage/troubleshooting.md#out-of-memory", "0.33.0") == SECTION
    assert (score_api.cited_as_served("docs/serving/online_serving/README.md#chat-template", "0.33.0")
            == "https://docs.vllm.ai/en/v0.33.0/serving/online_serving/#chat-template")


def test_served_answers_are_scored_by_fix_abstention_and_rank(tmp_path, server, capsys):
    label = ["docs/usage/troubleshooting.md#out-of-memory"]
    (tmp_path / "docs.jsonl").write_text("\n".join([
        _line(id="a", query="oom on my 4090", expect="answer", relevant=label, key_facts=["enforce[-_]eager"]),
        _line(id="b", query="slow start", expect="answer", relevant=label, key_facts=["enforce[-_]eager"]),
        _line(id="c", query="rate limited oom", expect="answer", relevant=[], key_facts=["enforce[-_]eager"]),
    ]) + "\n", encoding="utf-8")
    (tmp_path / "negatives.jsonl").write_text("\n".join([
        _line(id="n1", query="ollama runner stopped", expect="abstain"),
        _line(id="n2", query="something unrelated", expect="abstain"),
    ]) + "\n", encoding="utf-8")
    out = tmp_path / "outcomes.jsonl"
    assert score_api.main([str(tmp_path), "--url", server, "--out", str(out)]) == 0
    table = json.loads(capsys.readouterr().out)
    docs, negatives = table["docs"], table["negatives"]
    assert docs["fix_in_answer"] == 2 and docs["answerable"] == 3  # a and c (after its 429); b lacks the fix
    assert docs["answered_without_fix"] == pytest.approx(1 / 3)
    assert docs["labelled"] == 2 and docs["hit@1"] == 0.5 and docs["hit@3"] == 1.0  # c has no label: left out
    assert negatives["negatives_abstained"] == 1 and negatives["abstention_recall"] == 0.5
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["a", "b", "c", "n1", "n2"]


def test_an_entry_label_is_hit_by_the_entry_served(server):
    from assistant.eval.dataset import Item

    item = Item(id="e", query="entry: Bfloat16 is only supported on GPUs with compute capability 8.0",
                expect="answer", relevant=("bfloat16-needs-compute-capability-8-use-dtype-half",),
                key_facts=("--dtype half",), set="docs", lang="en")
    outcome = score_api.score(item, server, timeout=10)
    assert outcome.fix_in_answer and outcome.hit_at(1, "0.33.0") == 1.0


def test_a_folder_without_usable_sets_is_refused_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        score_api.main([str(tmp_path)])
    assert exit_.value.code == 2 and "no set file" in capsys.readouterr().err
    (tmp_path / "docs.jsonl").write_text("", encoding="utf-8")  # a batch written without docs questions
    with pytest.raises(SystemExit) as exit_:
        score_api.main([str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "docs.jsonl is empty" in err and "Traceback" not in err
