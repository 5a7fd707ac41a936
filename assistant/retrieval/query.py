"""From raw user text to the inputs of each retrieval channel (pure)."""

from __future__ import annotations

from assistant.models import Query, Turn
from assistant.text.glossary import english_view, translate_terms
from assistant.text.lang import detect_lang
from assistant.text.signals import extract_signals, salient_text, without_log_chrome
from assistant.text.tokenize import tokenize



def analyze(text: str) -> Query:
    lang = detect_lang(text)
    signals = extract_signals(text)
    focus = salient_text(text, limit=600)
    tokens = tokenize(without_log_chrome(text))  # every line but its log chrome: any line may be the one that matters
    # Signals found anywhere in the paste count again: they are what identifies a known problem.
    for term in signals.messages + signals.strong_terms():
        tokens.extend(tokenize(term))
    focus_tokens = tokenize(focus)
    if lang == "zh":
        dense_text = english_view(focus) or focus
        for phrase in translate_terms(text):
            tokens.extend(tokenize(phrase))
            focus_tokens.extend(tokenize(phrase))
    else:
        dense_text = focus
    return Query(
        text=text,
        lang=lang,
        signals=signals,
        dense_text=dense_text,
        lexical_tokens=tuple(tokens),
        focus_tokens=tuple(focus_tokens),
    )


def contextualize(question: str, history: list[Turn] | None) -> str:
    """The text to retrieve with: a follow-up that names no problem of its own borrows the last user turn.

    "and on H100?" or "what about the workaround" say nothing retrievable; a new pasted error does.
    """
    if not history:
        return question
    own = extract_signals(question)
    if own.messages or len(own.strong_terms()) >= 2 or len(question) > 300:
        return question
    previous = [t.content for t in history if t.role == "user" and t.content.strip()]
    return f"{previous[-1]}\n{question}" if previous else question
