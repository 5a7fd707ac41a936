"""Answer → the side panels' Markdown (pure: no Gradio, unit-testable)."""

from __future__ import annotations

from assistant.answer.text import LABELS
from assistant.models import Answer, Hit, Turn

NOT_STATED = "not stated"  # a source that names no hardware or model does not say "any"

IDK_BANNER = (
    "### I don't know\n"
    "Nothing in the knowledge base or the vLLM docs matches this closely enough, so no fix is guessed. "
    "The answer lists what to collect; the question is logged as a knowledge gap."
)


def _link(title: str, source: str) -> str:
    if source.startswith(("http://", "https://")):
        return f"[{title}]({source})"
    return f"{title} — `{source}`"


def message_md(answer: Answer) -> str:
    """The chat message: the body, then its sources (linked) in the answer's language."""
    if not answer.citations:
        return answer.body
    label = LABELS[answer.language]["sources"]
    lines = [f"**{label}:**"] + [f"[{c.n}] {_link(c.title, c.source)}" for c in answer.citations]
    return answer.body + "\n\n" + "\n".join(lines)


def sources_md(answer: Answer) -> str:
    if not answer.citations:
        return "**Sources:** none"
    lines = ["**Sources**", ""]
    lines += [f"{c.n}. {_link(c.title, c.source)}" for c in answer.citations]
    return "\n".join(lines)


def status_md(answer: Answer) -> str:
    if answer.abstained:
        return IDK_BANNER
    note = f"\n\n_{answer.notice}_" if answer.notice else ""
    return f"Answered from {len(answer.citations)} source(s).{note}"


def cited_entry(answer: Answer) -> tuple[int, Hit] | None:
    """The curated entry the answer cited first, with its [n]: what the facts panel describes."""
    if answer.abstained:
        return None
    for c in answer.citations:
        hit = answer.cited_hit(c.n)
        if hit is not None and hit.chunk.kind == "entry":
            return c.n, hit
    return None


def _listed(values: object) -> str:
    return ", ".join(str(v) for v in values or []) or NOT_STATED


def entry_facts_md(answer: Answer) -> str:
    """Affected versions, fix version, hardware and models of the entry the answer cited."""
    cited = cited_entry(answer)
    if cited is None:
        return ""
    n, hit = cited
    data = hit.chunk.data
    rows = [
        ("Affected versions", data.get("affected_versions") or NOT_STATED),
        ("Fixed in", data.get("fixed_in") or NOT_STATED),
        ("Hardware", _listed(data.get("hardware"))),
        ("Models", _listed(data.get("models"))),
    ]
    env = ", ".join(f"`{v}`" for v in (data.get("env_vars") or []) + (data.get("flags") or []))
    if env:
        rows.append(("Flags / env vars", env))
    table = "\n".join(f"| {k} | {str(v).replace('|', '/')} |" for k, v in rows)
    refs = [r for r in data.get("references") or [] if isinstance(r, str)]
    ref_md = ("\n\n**References:** " + ", ".join(_link(r, r) for r in refs)) if refs else ""
    return f"**Matched entry [{n}]:** {hit.chunk.title}\n\n| Field | Value |\n|---|---|\n{table}{ref_md}"


def message_text(content: object) -> str:
    """Text of a Chatbot message's content (a string, or a list of typed parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("text") or "")
    if isinstance(content, list):
        return "\n".join(message_text(p) for p in content)
    return ""


def history_turns(messages: list[dict]) -> list[Turn]:
    return [
        Turn(role=m["role"], content=message_text(m.get("content")))
        for m in messages
        if m.get("role") in ("user", "assistant") and message_text(m.get("content"))
    ]
