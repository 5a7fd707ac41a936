"""A docs section leads a pasted error only when it speaks of that error (assistant/answer/quotes.py)."""

from assistant.answer.extractive import compose
from assistant.answer.quotes import code_names, error_quotes, speaks_of
from assistant.models import Hit
from assistant.retrieval.query import analyze
from assistant.text.signals import extract_signals
from tests.helpers.hits import doc_hit

# A pasted report: a sentence, the command, a traceback ending in an import error (over 600 characters).
COHERE = """vllm serve dies on startup with the Cohere model, log below. Any idea what is missing here?

```
vllm serve CohereLabs/command-a-reasoning-08-2025 --tool-call-parser cohere_command3 --reasoning-parser cohere_command3
```

```
Traceback (most recent call last):
  File "/opt/venv/lib/python3.12/site-packages/vllm/entrypoints/openai/api_server.py", line 1880, in run_server
    await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)
  File "/opt/venv/lib/python3.12/site-packages/vllm/reasoning/cohere_command_reasoning_parser.py", line 12, in <module>
    import cohere_melody
ModuleNotFoundError: No module named 'cohere_melody'
ImportError: The Cohere reasoning parser requires the `cohere_melody` package, which is not installed.
```
"""
SPEAKS = (
    "Note: the Cohere parser requires the `cohere_melody` package, which is not installed by default. Before "
    "using this parser please install the cohere_melody package."
)
SILENT = "To use the Cohere models, pass `--tool-call-parser cohere_command3` and a chat template of your own."


def _doc(body: str) -> Hit:
    return doc_hit(body, "https://docs.vllm.ai/en/v0.33.0/features/tool_calling/#cohere", "Tool Calling › Cohere", 0.95)


def test_a_message_is_quoted_without_its_exception_and_builtin_exceptions_say_nothing() -> None:
    quotes = error_quotes(extract_signals(COHERE))
    assert "no module named cohere_melody" in quotes
    assert any(q.startswith("the cohere reasoning parser requires") for q in quotes)
    assert "modulenotfounderror" not in quotes and "importerror" not in quotes  # Python's own
    assert "templateerror" in error_quotes(extract_signals("jinja2.exceptions.TemplateError: Tool call IDs bad"))


def test_a_section_speaks_of_an_error_by_its_words_or_by_a_code_name_the_paste_shows() -> None:
    quotes = error_quotes(extract_signals(COHERE))
    assert speaks_of("If you see `No module named 'cohere_melody'`, install it.", quotes, "")
    assert speaks_of(SPEAKS, (), "import cohere_melody")  # the package, named in code by both
    assert not speaks_of(SILENT, quotes, COHERE)
    # A flag or a setting is what the user runs, not what failed: it is no code name.
    assert code_names("add `--enforce-eager` or `enforce_eager=True`; see `self.graph.replay()`") == {
        "self.graph.replay()"
    }


def test_a_docs_section_silent_on_the_pasted_error_does_not_lead_it() -> None:
    silent = compose(analyze(COHERE), [_doc(SILENT)], 0.5)
    assert silent.abstained
    assert "Tool Calling › Cohere" in silent.body  # still listed among the closest sections
    speaking = compose(analyze(COHERE), [_doc(SPEAKS)], 0.5)
    assert not speaking.abstained and "cohere_melody" in speaking.lead


def test_a_question_is_not_held_to_it() -> None:
    question = "vllm serve with the Cohere model: which tool call parser do I pass?"
    assert not compose(analyze(question), [_doc(SILENT)], 0.5).abstained


def test_a_paste_without_an_error_line_is_held_to_the_code_names_it_shows() -> None:
    """A long report with no error line (a behaviour described, or one cut before its traceback) is led by a docs
    section only when the section names in code what the report's problem shows failing."""
    described = "The Cohere model answers in plain text instead of calling tools. " * 12  # a paste, no error
    assert compose(analyze(described), [_doc(SILENT)], 0.5).abstained
    named = described + "\nIt stops inside `cohere_melody` every time, the parser never sees a tool call."
    assert not compose(analyze(named), [_doc(SPEAKS)], 0.5).abstained
