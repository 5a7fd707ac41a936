"""The extractive answer: root cause, fix, workarounds and versions taken verbatim from the best
sources, each claim followed by the [n] of the source it came from (pure; no model)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assistant.answer import scope
from assistant.answer.applicability import Applicability, assess, check_versions
from assistant.answer.code_facts import checked_lines, fixed_in_line, known_lines, name_lines, site_lines
from assistant.answer.collect import issue_search, missing_details, read_as
from assistant.answer.passages import BlockScorer, block_scores, select
from assistant.answer.quotes import error_quotes, speaks_of
from assistant.answer.text import (
    ABSTAIN,
    APPLY,
    CLOSEST,
    COLLECT,
    COLLECT_HEAD,
    COLLECTED,
    DRIVEN,
    HANG,
    INSTRUCTIONS,
    LABELS,
    NOT_VLLM,
    OLDER,
    OTHER_SOFTWARE,
    READ,
    RUNS_OTHER,
    SEARCH,
    UNNAMED,
)
from assistant.answer.verify import ReleaseCheck
from assistant.entry import Entry
from assistant.ingest.markdown_docs import split_blocks
from assistant.models import Answer, Chunk, Citation, Hit, Lang, Query
from assistant.release.knowledge import Findings, NameFact
from assistant.release.match import SiteMatch
from assistant.retrieval.evidence import is_paste
from assistant.retrieval.versions import same_minor
from assistant.text.commands import canonical_flag
from assistant.text.injection import find_instructions
from assistant.text.problem import problem_names, problem_part, questioned_names
from assistant.text.setup import UserSetup, extract_setup

_MAX_SEE_ALSO = 2
_MAX_SIMILAR = 2
_DOC_EXCERPT_CHARS = 1500  # a whole section part: cutting it risks cutting the flag that fixes it
_SEE_ALSO_EXCERPT_CHARS = 600
# Related sections are listed when they reach this share of the answering bar: they are offered as
# further reading under the answer, not as the answer.
_SEE_ALSO_SHARE = 0.5


def _cite(text: str, n: int) -> str:
    """Attach a citation marker after a claim; after a closing code fence it goes on its own line."""
    text = text.strip()
    return f"{text}\n[{n}]" if text.endswith("```") else f"{text} [{n}]"


def _entry_body(entry: Entry, app: Applicability, lang: Lang, n: int, version: str | None = None) -> list[str]:
    """An entry's answer: cause, fix, workarounds, versions, whether the user's release has it, what to tell."""
    L = LABELS[lang]
    lines = [f"**{entry.title.get(lang)}** [{n}]", ""]
    lines += [f"**{L['root_cause']}:** " + _cite(entry.root_cause.get(lang), n), ""]
    lines += [f"**{L['fix']}:** " + _cite(entry.fix.get(lang), n), ""]
    workarounds = entry.workarounds.get(lang)
    if workarounds:
        lines.append(f"**{L['workarounds']}:**")
        lines += [f"- {_cite(w, n)}" for w in workarounds]
        lines.append("")
    lines.append(f"**{L['affected']}:** " + _cite(entry.affected_versions or "unknown", n))
    if entry.introduced_in != "unknown":
        lines.append(f"**{L['introduced_in']}:** " + _cite(entry.introduced_in, n))
    lines.append(f"**{L['fixed_in']}:** " + _cite(entry.fixed_in or "unknown", n))
    renamed = [scope.renamed_line(r, lang) for r in entry.renamed]
    if renamed:
        lines.append(f"**{L['renamed']}:** " + _cite("; ".join(renamed), n))
    release = scope.release_line(entry.conditions, version, lang)
    if release:
        # Not cited: it speaks of the user's release, which the entry's text does not name.
        lines.append(release)
    facts = []
    if entry.hardware:
        facts.append(f"**{L['hardware']}:** {', '.join(entry.hardware)}")
    if entry.models:
        facts.append(f"**{L['models']}:** {', '.join(entry.models)}")
    if facts:
        lines.append(" · ".join(facts) + f" [{n}]")
    if entry.references:
        lines.append(f"**{L['references']}:** " + ", ".join(entry.references))
    if app.checks:
        lines.append(f"**{APPLY[lang]['scope']}:** " + _cite(scope.scope_line(app, lang), n))
    depends = scope.depends_line(app, lang)
    if depends:
        lines += ["", depends]
    return lines


def _excerpt(body: str, query: Query, limit: int, keep_opening: bool = True, scorer: BlockScorer | None = None) -> str:
    """The paragraphs of a section that address the question, the best one first (see `passages`).

    `keep_opening` keeps the section's own order and opening (a short section is shown whole anyway).
    """
    blocks = split_blocks(body)
    if sum(len(b) for b in blocks) <= limit and (keep_opening or len(blocks) <= 1):
        return "\n\n".join(blocks)
    return "\n\n".join(blocks[i] for i in _selected(blocks, query, limit, scorer))


def _selected(blocks: list[str], query: Query, limit: int, scorer: BlockScorer | None) -> list[int]:
    """The blocks that address the question, the best first (`passages.select`)."""
    # a Chinese question meets an English section through its English view
    tokens = tuple(query.focus_tokens or query.lexical_tokens) + tuple(query.english_tokens)
    scores = block_scores(blocks, tokens, scorer(blocks) if scorer and len(blocks) > 1 else None)
    return select(blocks, scores, limit)


def _doc_body(
    hit: Hit,
    parts: Sequence[Chunk],
    query: Query,
    lang: Lang,
    citations: list[Citation],
    scorer: BlockScorer | None,
    yours: str | None = None,
) -> list[str]:
    """A docs section's answer: its paragraphs that address the question, read across every retrieved part of it.

    A long section is indexed in parts; the fix is often in a later part than the one that matched best ("If you
    frequently encounter preemptions, consider the following actions:" ends part 1, the actions open part 2).
    Each paragraph is cited to the part it is in. `citations` holds the primary's [1]; other parts are added.
    Docs synced at a release say which (`yours`: the user's vLLM version, when they gave one that differs).
    """
    version = hit.chunk.data.get("version")
    label = LABELS[lang]["from_release_docs"].format(version=version) if version else LABELS[lang]["from_docs"]
    n = len(citations)
    chunks = sorted([hit.chunk, *parts], key=lambda c: c.data.get("part", 1))
    blocks: list[str] = []
    owners: list[Chunk] = []
    for chunk in chunks:
        own = split_blocks(chunk.data["body"])
        blocks += own
        owners += [chunk] * len(own)
    numbers = {hit.chunk.id: n}
    groups: list[tuple[int, list[str]]] = []  # consecutive blocks of one part, under that part's number
    for i in _selected(blocks, query, _DOC_EXCERPT_CHARS, scorer):
        owner = owners[i]
        if owner.id not in numbers:
            numbers[owner.id] = len(citations) + 1
            citations.append(Citation(numbers[owner.id], owner.id, owner.title, owner.source))
        if groups and groups[-1][0] == numbers[owner.id]:
            groups[-1][1].append(blocks[i])
        else:
            groups.append((numbers[owner.id], [blocks[i]]))
    body = "\n\n".join(_cite("\n\n".join(group), k) for k, group in groups)
    lines = [f"**{label}: {hit.chunk.title}** [{n}]", "", body]
    if version and yours and not same_minor(yours, version):
        lines += ["", LABELS[lang]["other_release_docs"].format(version=version, yours=yours)]
    return lines


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


def _display_title(chunk: Chunk) -> str:
    """The title, with "(part 2/3)" for a later part of a long section."""
    part, parts = chunk.data.get("part", 1), chunk.data.get("parts", 1)
    return f"{chunk.title} (part {part}/{parts})" if chunk.kind == "doc" and parts > 1 else chunk.title


@dataclass(frozen=True)
class Plan:
    """What the answer is made of: the source that answers, and the known problems it is not."""

    primary: Hit | None
    applicability: Applicability  # of the primary (no checks for docs and Q&A)
    ruled_out: tuple[tuple[Hit, Applicability], ...]  # entries above the primary that the setup contradicts
    related: tuple[Hit, ...]


def assess_hit(hit: Hit, setup: UserSetup, text: str) -> Applicability:
    entry = hit.chunk.entry
    return assess(entry, setup, text) if entry is not None else Applicability()


def ruled_out_last(hits: Sequence[Hit], setup: UserSetup, text: str) -> list[Hit]:
    """The hits in rank order, except that a curated entry the user's setup contradicts comes after the rest.

    Such an entry is never the answer (see `plan`); listing it among the top hits would show the user, and
    score as retrieved, a known problem that is not theirs. Its own rank among the ruled-out ones is kept.
    """
    kept, ruled = [], []
    for h in hits:
        (ruled if h.chunk.kind == "entry" and assess_hit(h, setup, text).contradicted else kept).append(h)
    return kept + ruled


def quotes_its_error(app: Applicability) -> bool:
    """Whether the user's text holds one of a known problem's full error messages (`applicability.check_errors`):
    the message the entry is known by, quoted, is evidence that it addresses this problem, whatever the words around
    it (a feature request that pastes the error, a report whose log is mostly other lines)."""
    return any(c.detail == "error" and c.verdict == "applies" for c in app.checks)


def plan(
    query: Query,
    hits: list[Hit],
    min_confidence: float,
    setup: UserSetup | None = None,
    entry_bar: float = 0.0,
    docs_bar: float = 0.0,
) -> Plan:
    """The first source over the evidence bar that the user's setup does not rule out answers; a known problem whose
    error message the user quotes answers from half the bar (`quotes_its_error`), one that matches by words alone
    from `entry_bar` at least (`Settings.min_confidence_entry_unquoted`); below a known problem held back by it,
    only a known problem whose message the user quotes answers. A docs section answers from `docs_bar` at least
    (`Settings.min_confidence_docs`), and below one held back by it, likewise only a quoted known problem answers.

    A known problem whose conditions the setup contradicts (another GPU, a fixed release, another
    symptom) is never the answer: it is named as not applying, and the next source answers, or none.
    """
    setup = setup if setup is not None else extract_setup(query.text)
    primary, primary_app, ruled_out = None, Applicability(), []
    held = False  # a known problem or a docs section over the bar was held back by `entry_bar` or `docs_bar`
    for h in hits:
        if h.confidence < min_confidence * _SEE_ALSO_SHARE:
            continue
        app = assess_hit(h, setup, query.text)
        if app.contradicted:  # named even when it only resembles the question: the user learns why it is not it
            if app.said_otherwise and all(r.chunk.id != h.chunk.id for r, _ in ruled_out):
                ruled_out.append((h, app))
            continue
        quoted = quotes_its_error(app)
        if h.confidence < min_confidence and not quoted:
            continue
        if held and not quoted:  # a known problem ranked above it was held back: a lesser match by words is no better
            continue
        if h.chunk.kind == "entry" and not quoted and h.confidence < entry_bar:
            held = True
            continue
        if h.chunk.kind == "doc" and h.confidence < docs_bar:
            held = True
            continue
        primary, primary_app = h, app
        break
    related: list[Hit] = []
    if primary is not None:
        excluded = {primary.chunk.id} | {h.chunk.id for h, _ in ruled_out}
        by_source: dict[str, Hit] = {}
        for h in hits:  # one per section: its best part
            if h is primary or h.chunk.id in excluded or h.confidence < min_confidence * _SEE_ALSO_SHARE:
                continue
            if h.chunk.kind == "entry" and assess_hit(h, setup, query.text).contradicted:
                continue
            by_source.setdefault(h.chunk.source, h)
        related = list(by_source.values())[:_MAX_SEE_ALSO]
    return Plan(primary, primary_app, tuple(ruled_out[:_MAX_SIMILAR]), tuple(related))


def _silent_on_paste(query: Query, hit: Hit, neighbours: Callable[[Chunk], Sequence[Chunk]] | None) -> bool:
    """True for a docs section that would lead a paste (`is_paste`) whose problem it never speaks of: no part of it
    holds the error's message or an exception only this problem raises, nor names in code what the paste's problem
    part shows failing (`quotes.speaks_of`). A paste with no error line (a behaviour described, a report cut before
    its traceback) is held to the code names alone. A question is not held to it."""
    if hit.chunk.kind != "doc" or not is_paste(query.text):
        return False
    said = error_quotes(query.signals)
    parts = [hit.chunk, *(neighbours(hit.chunk) if neighbours else ())]
    section = "\n".join(f"{c.title}\n{c.data.get('body', c.dense_text)}" for c in parts)
    return not speaks_of(section, said, problem_part(query.text))


def _ruled_out_lines(p: Plan, lang: Lang, citations: list[Citation]) -> list[str]:
    if not p.ruled_out:
        return []
    L = APPLY[lang]
    lines = [f"**{L['similar_head']}:**"]
    for h, app in p.ruled_out:
        n = len(citations) + 1
        citations.append(Citation(n, h.chunk.id, h.chunk.title, h.chunk.source))
        title = h.chunk.entry.title.get(lang)
        behind = [c for c in app.contradicted if c.fixed and c.have]
        if behind and len(behind) == len(app.contradicted):  # only the release rules it out: it is behind them
            fixed = scope.release_shown(behind[0].needs[0])
            lines.append("- " + L["behind"].format(title=title, fixed=fixed, n=n, have=behind[0].have[0]))
            continue
        began = [c for c in app.contradicted if c.introduced and c.have]
        if began and len(began) == len(app.contradicted):  # the behaviour began after the user's release
            since = scope.release_shown(began[0].needs[0])
            lines.append("- " + L["before"].format(title=title, began=since, n=n, have=began[0].have[0]))
            continue
        needs, have = scope.contradiction(app, lang)
        lines.append("- " + L["similar"].format(title=title, needs=needs, n=n, have=have))
    return lines + [""]


def _next_steps(query: Query, setup: UserSetup, reason: str | None = None, newest: str | None = None) -> list[str]:
    """What the user should collect next: only what their message does not give, after what it was read as.
    `reason`: why nothing answers, said instead of the plain "not found" (e.g. vLLM run through a framework);
    `newest`: the newest release indexed, to tell a user on an older minor release to try it first."""
    lang = query.lang
    lines = [reason or ABSTAIN[lang]]
    described = read_as(setup)
    if described:
        lines += ["", READ[lang].format(setup=", ".join(described))]
    if scope.older_minor(setup.vllm_version, newest):
        lines += ["", OLDER[lang].format(have=setup.vllm_version, newest=newest)]
    if reason is None and query.vllm_unnamed:
        lines += ["", UNNAMED[lang]]
    missing = missing_details(query.text, setup)
    if missing:
        lines += ["", COLLECT_HEAD[lang]] + [f"- {COLLECT[lang][d]}" for d in missing]
    else:
        lines += ["", COLLECTED[lang]]
    if "hang" in setup.symptoms:
        lines += ["", HANG[lang]]
    search = issue_search(query.signals)
    if search:
        lines += ["", SEARCH[lang].format(url=search)]
    return lines


def abstain(
    query: Query,
    hits: list[Hit],
    p: Plan | None = None,
    setup: UserSetup | None = None,
    reason: str | None = None,
    newest: str | None = None,
) -> Answer:
    """No source states a fix: what was ruled out, what to collect, and the closest sections (named, not quoted).
    `newest`: the newest release indexed (see `_next_steps`)."""
    lang = query.lang
    citations: list[Citation] = []
    lines = _ruled_out_lines(p, lang, citations) if p else []
    lines += _next_steps(query, setup if setup is not None else extract_setup(query.text), reason, newest)
    shown = {c.id for c in citations}
    close = [h for h in hits if h.chunk.id not in shown][:2]
    if close:
        lines += ["", f"{CLOSEST[lang]}:"] + [f"- {h.chunk.title} ({h.chunk.source})" for h in close]
    return Answer(body="\n".join(lines), abstained=True, language=lang, citations=tuple(citations), hits=tuple(hits))


def decline(query: Query, hits: list[Hit], body: str) -> Answer:
    """An answer that takes nothing from the sources: the message instructs the assistant, or is not about vLLM."""
    return Answer(body=body, abstained=True, language=query.lang, citations=(), hits=tuple(hits), declined=True)


def refusal_text(query: Query, setup: UserSetup) -> str | None:
    """The whole answer to a message no source should answer, whatever the evidence; None for any other.

    A message that instructs the assistant (prompt injection: neither followed nor answered around), one
    that says vLLM is not involved, one about another engine, and one whose code runs something else and never
    names vLLM.
    """
    found = find_instructions(query.text)
    if found:
        return INSTRUCTIONS[query.lang].format(found=", ".join(f"“{f[:80]}”" for f in found[:3]))
    if setup.uses_vllm is False:
        return NOT_VLLM[query.lang]
    if setup.other_software:
        return OTHER_SOFTWARE[query.lang].format(name=setup.other_software)
    if setup.runs_other:
        return RUNS_OTHER[query.lang].format(name=setup.runs_other)
    return None


def _code(findings: Findings | None, lang: Lang, citations: list[Citation]) -> list[str]:
    """The release's code facts (raise site, named env vars and flags, names the error refuses that the release
    knows), numbered after `citations`."""
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
    if findings.known:
        sections.append(known_lines(findings, lang, len(citations) + 1))
        citations.extend(sections[-1].citations)
    for section in sections:
        lines += ([""] if lines else []) + section.lines
    return lines


def _answers(
    findings: Findings | None, asked: frozenset[str] | None = None, questioned: frozenset[str] | None = None
) -> bool:
    """Whether code facts alone make an answer: a matched raise site, a name the user's error refuses that the release
    knows (`Findings.known`), or a vLLM env var / flag the problem names about which the release says something the
    user may not know, or which they ask about.

    `asked`: the names the problem part states (`problem.problem_names`); a flag only the user's own command line
    passes is their setup, and what the source says about it does not answer their problem. None: every name.
    `questioned`: the names the message asks about (`problem.questioned_names`). A name every indexed release has,
    with one default, answers only a question about it ("what does --x default to?"): its help text does not answer
    a report that it misbehaves ("--x uses twice the memory", "VLLM_X=1 is silently ignored"). A name missing from a
    release, or whose default changed, is news either way. None: every name is asked about.
    """
    if findings is None:
        return False
    if findings.known or any(map(_states_failure, findings.sites)):
        return True
    for f in findings.names:
        name = canonical_flag(f.name)
        if not (f.kind == "flag" or f.name.startswith("VLLM_")) or (asked is not None and name not in asked):
            continue
        if _news(f) or questioned is None or name in questioned:
            return True
    return False


def _states_failure(match: SiteMatch) -> bool:
    """Whether the site of a pasted line is where vLLM states a failure: a raise, or a log at error level or above. A
    warning is the engine's remark on its way (an uncalibrated scale, a moved endpoint, a seed), which a log carries
    whatever went wrong: listed with an answer, it does not make one alone nor stand before a source found."""
    return match.site.kind == "raise" or match.site.exception != "warning"


def _news(fact: NameFact) -> bool:
    """Whether the releases' facts about a name say more than its help text: it is missing from one, or its default
    differs between them."""
    return bool(fact.absent) or len({i.default for i in fact.present}) > 1


def _see_also(related: Sequence[Hit], query: Query, lang: Lang, citations: list[Citation]) -> list[str]:
    """The "Also relevant" lines: each source numbered after `citations`, a docs section with its closest paragraphs,
    a known problem with its fix (what to try when the lead is not the user's problem; the plan never lists one that
    the user's setup rules out)."""
    if not related:
        return []
    lines = ["", f"**{LABELS[lang]['see_also']}:**"]
    for h in related:
        n = len(citations) + 1
        citations.append(Citation(n, h.chunk.id, h.chunk.title, h.chunk.source))
        lines.append(f"- {_display_title(h.chunk)} [{n}]")
        if h.chunk.kind == "doc":  # the paragraphs of that section closest to the question
            detail = _excerpt(h.chunk.data["body"], query, _SEE_ALSO_EXCERPT_CHARS, keep_opening=False)
        elif (entry := h.chunk.entry) is not None:
            detail = f"{LABELS[lang]['fix']}: {entry.fix.get(lang)}"
        else:
            continue
        lines.append("  " + _cite(detail, n).replace("\n", "\n  "))
    return lines


def _norm(text: str) -> str:
    return " ".join(text.replace("`", "").lower().split())


def _covers_release(entry: Entry | None, findings: Findings | None) -> bool:
    """Whether every version condition of `entry` holds for the release the code facts are read from."""
    if entry is None or findings is None or not findings.release:
        return False
    checks = check_versions(entry.conditions, UserSetup(vllm_version=findings.release))
    return bool(checks) and all(c.verdict == "applies" for c in checks)


def code_first(
    primary: Hit,
    findings: Findings | None,
    applicability: Applicability | None = None,
    asked: frozenset[str] | None = None,
    questioned: frozenset[str] | None = None,
) -> bool:
    """Whether the raise site a pasted error comes from explains it better than the docs section found.

    A message attributed to a site of the user's release is the most specific evidence there is: the site
    says where, under which condition and (often) what to do. A docs section leads only when it quotes that
    message itself (the first sentence of its longest literal part; a head too short to tell, under 20 characters,
    counts as not quoted); Q&A and issues always lead: they are about an error. So does a curated entry, unless
    it concerns certain releases and the user has not said theirs (`applicability` of the entry: its version
    check unknown): a regression of one old release must not stand in for the site of the release they run. An
    entry about the user's problem (the message they pasted, or the symptom they name: its error or symptom check
    applies) whose releases include the one the code facts are read from (the release they are assumed to run: a
    flag removed in 0.10.0, the facts of 0.33.0) is about their problem on that release, and leads.
    """
    if primary.chunk.kind == "entry":  # the site, or the flag / env var facts of the release they are assumed to run
        version_unknown = applicability is not None and any(c.detail == "version" for c in applicability.unknown)
        about_problem = applicability is not None and any(
            c.detail in ("error", "symptom") and c.verdict == "applies" for c in applicability.checks
        )
        if version_unknown and about_problem and _covers_release(primary.chunk.entry, findings):
            return False
        attributed = findings is not None and bool(findings.sites) and findings.sites[0].attributed
        attributed = attributed and _states_failure(findings.sites[0])
        names_answer = _answers(findings, asked, questioned) and not (findings and findings.sites)
        return version_unknown and (attributed or names_answer)
    if findings is None or primary.chunk.kind != "doc":
        return False
    if findings.known:  # the release's registry names what the user's vLLM refused: no section is as specific
        return True
    if not findings.sites:
        return False
    best = findings.sites[0]
    if not best.attributed or not _states_failure(best):
        return False
    literal = max(best.site.template.literals, key=lambda p: len(p.strip()))
    head = _norm(re.split(r"[.:;!?]\s", literal.strip(), maxsplit=1)[0]).rstrip(".:;!? ")  # its first sentence
    return len(head) < 20 or head not in _norm(primary.chunk.full_text())


def compose(
    query: Query,
    hits: list[Hit],
    min_confidence: float,
    setup: UserSetup | None = None,
    scorer: BlockScorer | None = None,
    findings: Findings | None = None,
    release_check: ReleaseCheck | None = None,
    neighbours: Callable[[Chunk], Sequence[Chunk]] | None = None,
    entry_bar: float = 0.0,
    docs_bar: float = 0.0,
) -> Answer:
    """Answer from the first applicable hit that clears the evidence bar, or abstain with what to collect next.

    `setup`: the user's setup over the whole conversation (read from `query.text` when not given);
    `scorer`: the question's similarity to each paragraph of a docs section (lexical only when not given);
    `findings`: the release's code facts (raise sites, env vars, flags), which can answer on their own;
    `release_check`: flags and env vars of the answer checked against the user's release, and a curated
    `fixed_in` at or before the stated version pointed out;
    `neighbours`: the parts of a long docs section either side of a part (the index's), read with it;
    `entry_bar`: the least evidence of a known problem that the user's text matches by words alone, quoting none of
    its error messages; `docs_bar`: the least evidence of a docs section that answers.
    """
    setup = setup if setup is not None else extract_setup(query.text)
    refusal = refusal_text(query, setup)
    if refusal is not None:
        return decline(query, hits, refusal)
    p = plan(query, hits, min_confidence, setup, entry_bar, docs_bar)
    hits = ruled_out_last(hits, setup, query.text)  # what the answer shows as its hits; `p` saw the ranking
    newest = findings.indexed[-1] if findings is not None and findings.indexed else None
    if setup.driver:  # another framework builds vLLM's engine for the user: its option is the fix, not vLLM's
        return abstain(query, hits, p, setup, DRIVEN[query.lang].format(name=setup.driver), newest)
    asked = problem_names(query.text)
    questioned = questioned_names(query.text)
    if p.primary is not None and _silent_on_paste(query, p.primary, neighbours):
        p = dataclasses.replace(p, primary=None, related=())
    if p.primary is None and not _answers(findings, asked, questioned):
        return abstain(query, hits, p, setup, newest=newest)
    lang = query.lang
    primary = p.primary
    citations: list[Citation] = []
    applicability = assess_hit(primary, setup, query.text) if primary is not None else None
    if primary is not None and code_first(primary, findings, applicability, asked, questioned):
        p = dataclasses.replace(p, primary=None, related=(primary,))
        primary = None
    if primary is None:  # the release's code facts answer alone
        lines = _code(findings, lang, citations)
        lead = "\n".join(lines)
        lines += _see_also(p.related, query, lang, citations)
        return Answer(
            body="\n".join(lines),
            abstained=False,
            language=lang,
            citations=tuple(citations),
            hits=tuple(hits),
            lead=lead,
        )
    citations.append(Citation(1, primary.chunk.id, primary.chunk.title, primary.chunk.source))
    if primary.chunk.kind == "entry":
        lines = _entry_body(primary.chunk.entry, p.applicability, lang, 1, setup.vllm_version)
    elif primary.chunk.kind == "qa":
        lines = _qa_body(primary, lang, 1)
    elif primary.chunk.kind == "issue":  # may cite the issue and its resolution as two sources
        lines = _issue_body(primary, lang, 1, citations)
    else:  # with the other retrieved parts of the same section, and the parts either side of it
        parts = [
            h.chunk
            for h in hits
            if h is not primary and h.chunk.kind == "doc" and h.chunk.source == primary.chunk.source
        ]
        retrieved = {c.id for c in parts}
        parts += [c for c in (neighbours(primary.chunk) if neighbours else ()) if c.id not in retrieved]
        lines = _doc_body(primary, parts, query, lang, citations, scorer, setup.vllm_version)
    stated = findings.stated if findings else None
    fixed = fixed_in_line(primary.chunk.entry.fixed_in if primary.chunk.kind == "entry" else None, stated, lang)
    entry = primary.chunk.entry if primary.chunk.kind == "entry" else None
    external = frozenset(n.split("=", 1)[0] for n in entry.external_names) if entry else frozenset()
    checked = checked_lines("\n".join(lines), release_check, lang, external)
    lines += [""] * bool(fixed or checked) + ([fixed] if fixed else []) + checked
    code = _code(findings, lang, citations)
    lines += ([""] if code else []) + code
    lead = "\n".join(lines)
    cited = {c.id for c in citations}
    if p.ruled_out:  # the known problems it resembles but are not this user's, after the answer
        lines += [""] + _ruled_out_lines(p, lang, citations)[:-1]
    lines += _see_also([h for h in p.related if h.chunk.id not in cited], query, lang, citations)
    return Answer(
        body="\n".join(lines), abstained=False, language=lang, citations=tuple(citations), hits=tuple(hits), lead=lead
    )
