"""The release's code facts as the citation check sees them: an answer on `make run`'s corpus cites env vars, flags
and raise/log sites of the release's source (`vllm-0.33.0:VLLM_X`, `vllm-0.33.0:--flag`,
`vllm-0.33.0:vllm/x.py:12:raise`) and the release's complete lists of env vars and flags (`vllm-0.33.0:env-vars`,
`vllm-0.33.0:flags`, what an absence claim cites), which are not chunks of the embedded index. Each is turned into a
chunk-shaped record of everything the store says about it, so a claim that cites it is checked against it like any
other source (`metrics.check_citations`; a list's names are also in its `data`, for the absence rule); an id the
store does not have stays unknown (an invalid citation)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable

from assistant.answer.absence import names_list_title
from assistant.models import Chunk
from assistant.release.knowledge import ReleaseKnowledge
from assistant.release.models import CodeSite, EnvVar, Flag, KnownName, names_list_id, names_list_url


def _text(fact: CodeSite | EnvVar | Flag | KnownName) -> str:
    fields = json.dumps(dataclasses.asdict(fact), ensure_ascii=False, default=str)
    extra: list[str] = []
    if isinstance(fact, CodeSite):  # what the answer's code lines derive from the record: the call and "no `if`"
        call = f"logger.{fact.exception}" if fact.kind == "log" else f"raise {fact.exception}"
        extra = [fact.template.render(), call, fact.condition or "no if guards it"]
    # The text fields as written too: JSON escapes the quotes of a help text's own example (`{"name": ...}`).
    raw = [v for v in dataclasses.asdict(fact).values() if isinstance(v, str) and '"' in v]
    return "\n".join([f"vLLM {fact.release}", *extra, fields, *raw])


def code_fact_lookup(knowledge: ReleaseKnowledge) -> Callable[[str], Chunk | None]:
    """id -> the code fact's record as a chunk (None for an id no indexed release has); built on first use."""
    facts: dict[str, CodeSite | EnvVar | Flag | KnownName] = {}

    def table() -> dict[str, CodeSite | EnvVar | Flag | KnownName]:
        if not facts:
            for version, release in knowledge.releases().items():
                for site in release.facts.sites:
                    facts[site.id] = site
                for env in release.facts.env_vars:
                    facts[f"vllm-{version}:{env.name}"] = env
                for flag in release.facts.flags:
                    for name in (flag.flag, *flag.aliases):
                        facts[f"vllm-{version}:{name}"] = flag
                    for value in flag.choices:  # a value the flag accepts (`--tokenizer-mode mistral`)
                        choice = KnownName.flag_choice(flag, value)
                        facts[choice.id] = choice
                for known in release.facts.known:
                    facts[known.id] = known
        return facts

    def names_list(cid: str) -> Chunk | None:
        for version, release in knowledge.releases().items():
            for kind in ("env", "flag"):
                if cid == names_list_id(version, kind):
                    listed = release.names_list(kind)
                    text = listed.render()
                    data = {"names_of": kind, "release": version, "names": sorted(listed.names)}
                    url = names_list_url(version, kind)
                    title = names_list_title(version, kind)
                    return Chunk(cid, "doc", title, url, "", text, text, data=data)
        return None

    def lookup(cid: str) -> Chunk | None:
        if not cid.startswith("vllm-"):
            return None
        listed = names_list(cid)
        if listed is not None:
            return listed
        fact = table().get(cid)
        if fact is None:
            return None
        text = _text(fact)
        return Chunk(id=cid, kind="doc", title=cid, source=fact.url, origin="", dense_text=text, lexical_text=text)

    return lookup
