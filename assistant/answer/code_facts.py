"""Code facts in an answer: where vLLM raises the pasted error, under what condition, what the code
advises, and what the indexed releases say about the env vars and flags the question names (pure).

Every statement names the release it comes from, and says so when that is not the user's release.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.answer.absence import name_kind, names_list_title
from assistant.models import Citation, Lang
from assistant.release.knowledge import Findings, NameFact
from assistant.release.match import SiteMatch
from assistant.release.models import EnvVar, Flag, names_list_id, names_list_url
from assistant.release.store import version_key
from assistant.release.version import resolve_version
from assistant.text.vocab import RELEASE_TAG

_ADVICE = re.compile(
    r"\b(try|please|consider|set|use|increase|decrease|reduce|lower|raise|make sure|ensure|you can|you may|"
    r"you should|should|instead|upgrade|install|enable|disable|specify|pass|see)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`\"'])")

LABELS = {
    "en": {
        "where": "Where vLLM raises it",
        "logged": "Where vLLM logs it",
        "in": "in",
        "line": "line",
        "condition": "Condition",
        "always": "no `if` guards it: reached whenever this code runs",
        "message": "Message in the code",
        "advice": "What the code advises",
        "also": "The same message is also raised at",
        "same_in": "The same message is in vLLM {versions}.",
        "missing_in": "This message is not in vLLM {versions}.",
        "from": "vLLM {release} source",
        "yours_other": "You are on vLLM {stated}; this is from vLLM {release}, which differs: {why}.",
        "not_indexed": "{stated} is not indexed",
        "not_there": "the message is not in {stated}'s source",
        "unknown": "Your vLLM version is not stated; this is from vLLM {release} (add `vllm --version` output or "
        "`--vllm-version` to check yours).",
        "names": "In vLLM's source",
        "absent": "`{name}` does not exist in vLLM {release}",
        "closest": "did you mean `{name}`? vLLM {release} has it",
        "removed": "not in vLLM {versions} (removed after {last})",
        "added": "not in vLLM {versions} (added after {last})",
        "default_changed": "default changed: {changes}",
        "env": "env var",
        "flag": "flag",
        "default": "default",
        "choices": "choices",
        "known_head": "What vLLM {release} accepts",
        "kinds": {
            "architecture": "a model architecture",
            "quantization": "a quantization method",
            "tool_parser": "a tool-call parser",
            "reasoning_parser": "a reasoning parser",
            "flag_choice": "a `{flag}` value",
        },
        "accepted": "`{name}` is {kind} vLLM {release} supports ({where}) [{n}]. Your error says the vLLM you run "
        "does not know it, so it predates the release that added `{name}`: upgrade vLLM (vLLM {release} has it{use}).",
        "use": "; pass it as `{flag} {name}`",
        "known_removed": "`{name}` is a model architecture vLLM served until v{last} and no longer does "
        "({where}) [{n}]: run this model on vLLM {last} or older.",
        "known_plugin": "`{name}` is served by an out-of-tree plugin, not by vLLM {release} itself ({where}) [{n}]: "
        "install the plugin, {url}",
    },
    "zh": {
        "where": "vLLM 源码中抛出此错误的位置",
        "logged": "vLLM 源码中记录此日志的位置",
        "in": "位于",
        "line": "第",
        "condition": "触发条件",
        "always": "没有 `if` 条件保护：执行到此处即触发",
        "message": "代码中的消息",
        "advice": "代码给出的建议",
        "also": "同样的消息也在以下位置抛出",
        "same_in": "vLLM {versions} 中也有同样的消息。",
        "missing_in": "vLLM {versions} 中没有这条消息。",
        "from": "来自 vLLM {release} 的源码",
        "yours_other": "你使用的是 vLLM {stated}；以上来自 vLLM {release}（{why}）。",
        "not_indexed": "{stated} 未被索引",
        "not_there": "{stated} 的源码中没有这条消息",
        "unknown": "未说明 vLLM 版本；以上来自 vLLM {release}（可提供 `vllm --version` 的输出或使用 `--vllm-version`）。",
        "names": "vLLM 源码中的说明",
        "absent": "vLLM {release} 中不存在 `{name}`",
        "closest": "是否想用 `{name}`？vLLM {release} 有此名称",
        "removed": "vLLM {versions} 中已没有（{last} 之后移除）",
        "added": "vLLM {versions} 中没有（{last} 之后新增）",
        "default_changed": "默认值变化：{changes}",
        "env": "环境变量",
        "flag": "参数",
        "default": "默认值",
        "choices": "可选值",
        "known_head": "vLLM {release} 支持的名称",
        "kinds": {
            "architecture": "模型架构",
            "quantization": "量化方法",
            "tool_parser": "工具调用解析器",
            "reasoning_parser": "推理解析器",
            "flag_choice": "`{flag}` 取值",
        },
        "accepted": "`{name}` 是 vLLM {release} 支持的{kind}（{where}）[{n}]。你的报错说明你运行的 vLLM 不认识它，"
        "也就是早于加入 `{name}` 的版本：请升级 vLLM（vLLM {release} 已支持{use}）。",
        "use": "，用法 `{flag} {name}`",
        "known_removed": "`{name}` 这个模型架构 vLLM 支持到 v{last}，之后已不再支持（{where}）[{n}]：请用 vLLM {last} 或更早的版本运行该模型。",
        "known_plugin": "`{name}` 由树外插件提供，而不是 vLLM {release} 本身（{where}）[{n}]：请安装插件 {url}",
    },
}


@dataclass(frozen=True)
class CodeSection:
    lines: list[str]
    citations: list[Citation]


def advice(message: str) -> str | None:
    """The sentences of a message that tell the user what to do ("Try increasing ...", "See https://...")."""
    sentences = _SENTENCE.split(message.strip())
    picked = [s for s in sentences[1:] if _ADVICE.search(s)]
    return " ".join(picked) or None


def _versions(vs: tuple[str, ...] | list[str]) -> str:
    return ", ".join(vs)


def _site_citation(m: SiteMatch, n: int) -> Citation:
    s = m.site
    return Citation(n, s.id, f"{s.path}:{s.line} `{s.function}` (vLLM {s.release})", s.url)


def _version_note(f: Findings, L: dict, lang: Lang) -> str | None:
    if f.release is None:
        return None
    if f.stated is None:
        return L["unknown"].format(release=f.release)
    stated = f.stated.lstrip("v")
    if f.release == stated or f.release.startswith(stated + "."):
        return None
    why = L["not_indexed"] if resolve_version(stated, f.indexed) is None else L["not_there"]
    return L["yours_other"].format(stated=stated, release=f.release, why=why.format(stated=stated))


def site_lines(f: Findings, lang: Lang, n: int) -> CodeSection:
    """The raise / log site section for the best match, cited [n]; other places with the message listed."""
    L = LABELS[lang]
    best = f.sites[0]
    s = best.site
    head = L["where"] if s.kind == "raise" else L["logged"]
    what = f"`{s.exception}`" if s.kind == "raise" else f"`logger.{s.exception}`"
    lines = [f"**{head}** ({L['from'].format(release=s.release)}) [{n}]", ""]
    lines.append(f"{what} {L['in']} `{s.function}` — `{s.path}`, {L['line']} {s.line} [{n}]")
    cond = f"`{s.condition}`" if s.condition else L["always"]
    lines.append(f"- **{L['condition']}:** {cond} [{n}]")
    message = s.template.render()
    lines.append(f'- **{L["message"]}:** "{message}" [{n}]')
    tip = advice(message)
    if tip:
        lines.append(f"- **{L['advice']}:** {tip} [{n}]")
    citations = [_site_citation(best, n)]
    others = [m for m in f.sites[1:] if m.site.template == s.template]
    if others:
        where = []
        for m in others:
            citations.append(_site_citation(m, n + len(citations)))
            where.append(f"`{m.site.path}`:{m.site.line} `{m.site.function}` [{citations[-1].n}]")
        lines.append(f"- {L['also']}: " + "; ".join(where))
    if f.same_message:
        lines.append("- " + L["same_in"].format(versions=_versions(f.same_message)))
    if f.missing_message:
        lines.append("- " + L["missing_in"].format(versions=_versions(f.missing_message)))
    note = _version_note(f, L, lang)
    if note:
        lines.append("- " + note)
    return CodeSection(lines, citations)


def _describe(item: EnvVar | Flag, lang: Lang) -> str:
    L = LABELS[lang]
    bits = [L["env"] if isinstance(item, EnvVar) else L["flag"]]
    if item.type:
        bits.append(f"`{item.type}`")
    if item.default is not None:
        bits.append(f"{L['default']} `{item.default}`")
    if item.choices:
        bits.append(f"{L['choices']}: " + ", ".join(f"`{c}`" for c in item.choices[:12]))
    return ", ".join(bits)


def _doc(item: EnvVar | Flag) -> str:
    text = item.doc if isinstance(item, EnvVar) else item.help
    text = " ".join(text.split())
    return text if len(text) <= 400 else text[:400].rsplit(" ", 1)[0] + " …"


def name_lines(facts: tuple[NameFact, ...], f: Findings, lang: Lang, n: int) -> CodeSection:
    """One line per env var / flag the question names: what it is, in which releases, what changed. A name no
    release has is said missing from each, citing that release's complete list of names of its kind."""
    L = LABELS[lang]
    lines = [f"**{L['names']}:**"]
    citations: list[Citation] = []
    for fact in facts:
        if not fact.present:
            claims = []
            for release in fact.absent:
                kind = name_kind(fact.name)
                title = names_list_title(release, kind)
                cited = _cite(citations, names_list_id(release, kind), title, names_list_url(release, kind), n)
                claims.append(L["absent"].format(name=fact.name, release=release) + f" [{cited}]")
            if fact.closest:  # the list cited for the newest release names it
                claims.append(L["closest"].format(name=fact.closest, release=fact.absent[-1]) + f" [{cited}]")
            lines.append("- " + "; ".join(claims))
            continue
        item = _pick(fact, f.release)
        num = n + len(citations)
        citations.append(
            Citation(num, f"vllm-{item.release}:{fact.name}", f"`{fact.name}` (vLLM {item.release})", item.url)
        )
        present = [i.release for i in fact.present]
        text = f"- `{fact.name}` ({_describe(item, lang)}): {_doc(item)} — vLLM {_versions(present)} [{num}]"
        if fact.absent:
            gone = [v for v in fact.absent if _after(v, present[-1])]
            new = [v for v in fact.absent if _after(present[0], v)]
            if gone:
                text += "; " + L["removed"].format(versions=_versions(gone), last=present[-1])
            if new:
                text += "; " + L["added"].format(versions=_versions(new), last=new[-1])
        defaults = [(i.release, i.default) for i in fact.present]
        if len({d for _r, d in defaults}) > 1:
            changes = ", ".join(f"`{d}` in {r}" for r, d in defaults)
            text += "; " + L["default_changed"].format(changes=changes)
        lines.append(text)
    return CodeSection(lines, citations)


def known_lines(f: Findings, lang: Lang, n: int) -> CodeSection:
    """One line per name the user's error refuses that the release knows (`Findings.known`), cited [n], [n+1], …"""
    L = LABELS[lang]
    release = f.known[0].release
    lines = [f"**{L['known_head'].format(release=release)}:**"]
    citations: list[Citation] = []
    for i, k in enumerate(f.known):
        num = n + i
        citations.append(Citation(num, k.id, f"`{k.name}` (vLLM {k.release})", k.url))
        where = f"`{k.path}`, {L['line']} {k.line}"
        if k.kind == "removed_architecture":
            text = L["known_removed"].format(name=k.name, last=k.note, where=where, n=num)
        elif k.kind == "plugin_architecture":
            text = L["known_plugin"].format(name=k.name, release=release, where=where, n=num, url=k.note)
        else:
            use = L["use"].format(flag=k.flag, name=k.name) if k.flag else ""
            kind = L["kinds"][k.kind].format(flag=k.flag)
            text = L["accepted"].format(name=k.name, kind=kind, release=release, where=where, n=num, use=use)
        lines.append(f"- {text}")
    return CodeSection(lines, citations)


def _cite(citations: list[Citation], cid: str, title: str, url: str, n: int) -> int:
    """The number of the citation of `cid`, added after `citations` (numbered from `n`) the first time."""
    for c in citations:
        if c.id == cid:
            return c.n
    citations.append(Citation(n + len(citations), cid, title, url))
    return citations[-1].n


def _after(a: str, b: str) -> bool:
    return version_key(a) > version_key(b)


def _pick(fact: NameFact, release: str | None):
    for item in fact.present:
        if item.release == release:
            return item
    return fact.present[-1]


_VERSION_ONLY = re.compile(rf"^v?({RELEASE_TAG})$")
CHECK_LABELS = {
    "en": {
        "checked": "Checked against vLLM {release}'s source",
        "exists": "{names} exist there",
        "absent": "{name} does not exist in vLLM {release}",
        "fixed": "Fixed in {fixed}; you are on {stated}: this may be a different problem.",
    },
    "zh": {
        "checked": "已对照 vLLM {release} 源码检查",
        "exists": "{names} 存在",
        "absent": "vLLM {release} 中不存在 {name}",
        "fixed": "该问题已在 {fixed} 修复；你使用的是 {stated}：这可能是另一个问题。",
    },
}


def fixed_in_line(fixed_in: object, stated: str | None, lang: Lang) -> str | None:
    """ "Fixed in X; you are on Y" when a curated entry names a version and the user's is at or past it."""
    if not stated or not isinstance(fixed_in, str):
        return None
    m = _VERSION_ONLY.match(fixed_in.strip())
    if not m or version_key(stated.lstrip("v")) < version_key(m.group(1)):
        return None
    return "**" + CHECK_LABELS[lang]["fixed"].format(fixed=m.group(1), stated=stated.lstrip("v")) + "**"


def checked_lines(text: str, check, lang: Lang, external: frozenset[str] = frozenset()) -> list[str]:
    """The flags / env vars an answer states, checked against the user's release: which exist, which do not.
    `external`: another tool's flags the cited entry names (`wsl --shutdown`, its `external_names`): not vLLM's."""
    if check is None:
        return []
    from assistant.answer.verify import find_terms

    L = CHECK_LABELS[lang]
    exist, absent = [], []
    for a, _b, term in find_terms(text):
        line = text[text.rfind("\n", 0, a) + 1 : (text.find("\n", a) + 1 or len(text) + 1) - 1]
        if term.text.split("=", 1)[0] in external:
            continue
        verdict = check.verdict(term, line)
        name = f"`{term.text.split('=', 1)[0]}`"
        if verdict is True and name not in exist:
            exist.append(name)
        elif verdict is False and name not in absent:
            absent.append(name)
    if not exist and not absent:
        return []
    parts = [L["absent"].format(name=n, release=check.release) for n in absent]
    if exist:
        parts.append(L["exists"].format(names=", ".join(exist)))
    return [f"**{L['checked'].format(release=check.release)}:** " + "; ".join(parts) + "."]
