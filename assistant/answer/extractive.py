"""The extractive answer: root cause, fix, workarounds and versions taken verbatim from the best
sources, each claim followed by the [n] of the source it came from (pure; no model)."""

from __future__ import annotations

from assistant.answer.code_facts import checked_lines, fixed_in_line, name_lines, site_lines
from assistant.answer.text import ABSTAIN, CLOSEST, LABELS
from assistant.answer.verify import ReleaseCheck
from assistant.ingest.markdown_docs import split_blocks
from assistant.models import Answer, Citation, Hit, Lang, Query
from assistant.release.knowledge import Findings
from assistant.text.tokenize import tokenize

_MAX_SEE_ALSO = 2
_DOC_EXCERPT_CHARS = 1500  # a whole section part: cutting it risks cutting the flag that fixes it
_SEE_ALSO_EXCERPT_CHARS = 600
# Related sections are listed when they reach this share of the answering bar: they are offered as
# further reading under the answer, not as the answer.
_SEE_ALSO_SHARE = 0.5


def _cite(text: str, n: int) -> str:
    """Attach a citation marker after a claim; after a closing code fence it goes on its own line."""
    text = text.strip()
    return f"{text}\n[{n}]" if text.endswith("```") else f"{text} [{n}]"


def _entry_body(data: dict, lang: Lang, n: int) -> list[str]:
    L = LABELS[lang]

    def pick(field: str):
        value = data.get(field) or {}
        return value.get(lang) or value.get("en") or value.get("zh") if isinstance(value, dict) else value

    title = pick("title")
    lines = [f"**{title}** [{n}]", ""]
    lines += [f"**{L['root_cause']}:** " + _cite(pick("root_cause"), n), ""]
    lines += [f"**{L['fix']}:** " + _cite(pick("fix"), n), ""]
    workarounds = pick("workarounds") or []
    if workarounds:
        lines.append(f"**{L['workarounds']}:**")
        lines += [f"- {_cite(w, n)}" for w in workarounds]
        lines.append("")
    lines.append(f"**{L['affected']}:** " + _cite(data.get("affected_versions") or "unknown", n))
    lines.append(f"**{L['fixed_in']}:** " + _cite(data.get("fixed_in") or "unknown", n))
    facts = []
    if data.get("hardware"):
        facts.append(f"**{L['hardware']}:** {', '.join(data['hardware'])}")
    if data.get("models"):
        facts.append(f"**{L['models']}:** {', '.join(data['models'])}")
    if facts:
        lines.append(" · ".join(facts) + f" [{n}]")
    if data.get("references"):
        lines.append(f"**{L['references']}:** " + ", ".join(data["references"]))
    return lines


def _excerpt(body: str, query: Query, limit: int, keep_opening: bool = True) -> str:
    """The section's opening and the paragraphs sharing most words with the question, in page order."""
    blocks = split_blocks(body)
    if sum(len(b) for b in blocks) <= limit:
        return "\n\n".join(blocks)
    wanted = set(query.focus_tokens or query.lexical_tokens)
    first = 0 if keep_opening else max(range(len(blocks)), key=lambda i: len(wanted & set(tokenize(blocks[i]))))
    scored = sorted((i for i in range(len(blocks)) if i != first), key=lambda i: -len(wanted & set(tokenize(blocks[i]))))
    keep, size = {first}, len(blocks[first])
    for i in scored:
        if size + len(blocks[i]) > limit:
            continue
        keep.add(i)
        size += len(blocks[i])
    return "\n\n".join(blocks[i] for i in sorted(keep))


def _doc_body(hit: Hit, query: Query, lang: Lang, n: int) -> list[str]:
    label = LABELS[lang]["from_docs"]
    return [f"**{label}: {hit.chunk.title}** [{n}]", "", _cite(_excerpt(hit.chunk.data["body"], query, _DOC_EXCERPT_CHARS), n)]


def _qa_body(hit: Hit, lang: Lang, n: int) -> list[str]:
    label = LABELS[lang]["from_qa"]
    return [f"**{label}: {hit.chunk.title}** [{n}]", "", _cite(hit.chunk.data["answer"], n)]


def _issue_body(hit: Hit, lang: Lang, n: int, citations: list[Citation]) -> list[str]:
    """A GitHub issue: its problem cited to the issue, its resolution cited to the answering comment or fix."""
    L = LABELS[lang]
    data = hit.chunk.data
    title = hit.chunk.title.removeprefix("Resolution of ")
    if data.get("status") != "resolved":
        updated = (data.get("updated_at") or "")[:10]
        status = f"{L['open_status']}" + (f" (updated {updated})" if updated else "")
        return [f"**{L['open_issue']}: {title}** [{n}]", "", f"**{L['status']}:** {status} [{n}]", "",
                f"**{L['problem']}:** " + _cite(data.get("problem") or title, n)]  # fmt: skip
    issue_n = n
    if hit.chunk.source != data["url"]:  # the resolution chunk matched: cite the issue too
        issue_n = len(citations) + 1
        citations.append(Citation(issue_n, data["url"], title, data["url"]))
        res_n = n
    else:
        res_n = len(citations) + 1
        citations.append(Citation(res_n, data["resolution_id"], f"Resolution of {title}", data["resolution_url"]))
    lines = [f"**{L['known_issue']}: {title}** [{issue_n}]", ""]
    if data.get("problem"):
        lines += [f"**{L['problem']}:** " + _cite(data["problem"], issue_n), ""]
    lines += [f"**{L['resolution']}:** " + _cite(data["resolution"], res_n)]
    return lines


def _body(hit: Hit, query: Query, lang: Lang, n: int, citations: list[Citation] | None = None) -> list[str]:
    if hit.chunk.kind == "issue":
        return _issue_body(hit, lang, n, citations if citations is not None else [])
    if hit.chunk.kind == "entry":
        return _entry_body(hit.chunk.data, lang, n)
    if hit.chunk.kind == "qa":
        return _qa_body(hit, lang, n)
    return _doc_body(hit, query, lang, n)


def _display_title(chunk) -> str:
    """The title, with "(part 2/3)" for a later part of a long section."""
    part, parts = chunk.data.get("part", 1), chunk.data.get("parts", 1)
    return f"{chunk.title} (part {part}/{parts})" if chunk.kind == "doc" and parts > 1 else chunk.title


def abstain(query: Query, hits: list[Hit]) -> Answer:
    lang = query.lang
    lines = [ABSTAIN[lang]]
    close = hits[:2]
    if close:
        lines += ["", f"{CLOSEST[lang]}:"] + [f"- {h.chunk.title} ({h.chunk.source})" for h in close]
    return Answer(body="\n".join(lines), abstained=True, language=lang, citations=(), hits=tuple(hits))


def _code(findings: Findings | None, lang: Lang, citations: list[Citation]) -> list[str]:
    """The release's code facts (raise site, named env vars and flags), numbered after `citations`."""
    if findings is None:
        return []
    lines: list[str] = []
    sections = []
    if findings.sites:
        sections.append(site_lines(findings, lang, len(citations) + 1))
        citations.extend(sections[-1].citations)
    if findings.names:
        sections.append(name_lines(findings.names, findings, lang, len(citations) + 1))
        citations.extend(sections[-1].citations)
    for section in sections:
        lines += ([""] if lines else []) + section.lines
    return lines


def _answers(findings: Findings | None) -> bool:
    """Whether code facts alone make an answer: a matched raise site, or a vLLM env var / flag the question names."""
    if findings is None:
        return False
    return bool(findings.sites) or any(f.kind == "flag" or f.name.startswith("VLLM_") for f in findings.names)


def compose(
    query: Query,
    hits: list[Hit],
    min_confidence: float,
    findings: Findings | None = None,
    release_check: ReleaseCheck | None = None,
) -> Answer:
    """Answer from the hits that clear the evidence bar and the release's code facts, or abstain.

    With `release_check`, the flags and env vars the curated / documentation text states are checked
    against the user's release; with a stated version, a curated `fixed_in` at or before it is pointed out.
    """
    good = [h for h in hits if h.confidence >= min_confidence]
    if not good and not _answers(findings):
        return abstain(query, hits)
    lang = query.lang
    citations: list[Citation] = []
    lines: list[str] = []
    primary = good[0] if good else None
    if primary is not None:
        citations.append(Citation(1, primary.chunk.id, primary.chunk.title, primary.chunk.source))
        lines = _body(primary, query, lang, 1, citations)
        stated = findings.stated if findings else None
        fixed = fixed_in_line(primary.chunk.data.get("fixed_in") if primary.chunk.kind == "entry" else None, stated, lang)
        checked = checked_lines("\n".join(lines), release_check, lang)
        lines += [""] * bool(fixed or checked) + ([fixed] if fixed else []) + checked
    code = _code(findings, lang, citations)
    lines += ([""] if lines and code else []) + code
    cited = {c.id for c in citations}
    related = [
        h for h in hits if h.chunk.id not in cited and h.confidence >= min_confidence * _SEE_ALSO_SHARE
    ]
    by_source: dict[str, Hit] = {}
    for h in related:  # one entry per section: its best part
        if primary is None or h.chunk.id != primary.chunk.id:
            by_source.setdefault(h.chunk.source, h)
    others = list(by_source.values())[:_MAX_SEE_ALSO]
    if others:
        lines += ["", f"**{LABELS[lang]['see_also']}:**"]
        for h in others:
            n = len(citations) + 1
            citations.append(Citation(n, h.chunk.id, h.chunk.title, h.chunk.source))
            lines.append(f"- {_display_title(h.chunk)} [{n}]")
            if h.chunk.kind == "doc":  # the paragraphs of that section closest to the question
                snippet = _excerpt(h.chunk.data["body"], query, _SEE_ALSO_EXCERPT_CHARS, keep_opening=False)
                lines.append("  " + _cite(snippet, n).replace("\n", "\n  "))
    return Answer(body="\n".join(lines), abstained=False, language=lang, citations=tuple(citations), hits=tuple(hits))
