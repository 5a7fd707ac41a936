"""Answer → the side panels' Markdown (pure: no Gradio, unit-testable)."""

from __future__ import annotations

from assistant.models import Answer, Turn

IDK_BANNER = (
    "### I don't know\n"
    "Nothing in the knowledge base or the vLLM docs matches this closely enough, so no fix is guessed. "
    "The answer lists what to collect; the question is logged as a knowledge gap."
)


def _link(title: str, source: str) -> str:
    if source.startswith(("http://", "https://")):
        return f"[{title}]({source})"
    return f"{title} — `{source}`"


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


def entry_facts_md(answer: Answer) -> str:
    """Affected versions, fix version, hardware and models of the matched curated entry."""
    if answer.abstained or not answer.hits or answer.hits[0].chunk.kind != "entry":
        return ""
    data = answer.hits[0].chunk.data
    rows = [
        ("Affected versions", data.get("affected_versions") or "unknown"),
        ("Fixed in", data.get("fixed_in") or "unknown"),
        ("Hardware", ", ".join(data.get("hardware") or []) or "any"),
        ("Models", ", ".join(data.get("models") or []) or "any"),
    ]
    env = ", ".join(f"`{v}`" for v in (data.get("env_vars") or []) + (data.get("flags") or []))
    if env:
        rows.append(("Flags / env vars", env))
    table = "\n".join(f"| {k} | {str(v).replace('|', '/')} |" for k, v in rows)
    refs = [r for r in data.get("references") or [] if isinstance(r, str)]
    ref_md = ("\n\n**References:** " + ", ".join(_link(r, r) for r in refs)) if refs else ""
    return f"**Matched entry:** {answer.hits[0].chunk.title}\n\n| Field | Value |\n|---|---|\n{table}{ref_md}"


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
