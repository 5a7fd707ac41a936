"""Q&A pages in the pitfall-guide format: "Question N" blocks, each followed by an "Accepted Answer"."""

from __future__ import annotations

import re
from pathlib import Path

from assistant.errors import LoadError
from assistant.models import Chunk
from assistant.text.glossary import english_view
from assistant.text.lang import detect_lang

_QUESTION = re.compile(r"^\s*Question\s+(\d+)\s*$", re.MULTILINE)
_ANSWER = re.compile(r"^\s*Accepted Answer\s*$", re.MULTILINE)
_NAV_LINE = re.compile(r"^\S{1,8}$")  # page chrome after the last answer: 'vllm', '核心功能', '标签' ...


def looks_like_seed_page(text: str) -> bool:
    return bool(_QUESTION.search(text) and _ANSWER.search(text))


def _strip_page_chrome(answer: str) -> str:
    lines = answer.rstrip().split("\n")
    while lines and (not lines[-1].strip() or _NAV_LINE.match(lines[-1].strip())):
        lines.pop()
    return "\n".join(lines).strip()


def parse_seed_page(text: str, path: str) -> list[tuple[int, str, str]]:
    """(number, question, answer) for each block; LoadError when a block has no answer."""
    starts = list(_QUESTION.finditer(text))
    out = []
    for i, m in enumerate(starts):
        block = text[m.end() : starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        parts = _ANSWER.split(block, maxsplit=1)
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise LoadError(path, f"Question {m.group(1)} has no question text or no 'Accepted Answer'")
        answer = _strip_page_chrome(parts[1]) if i == len(starts) - 1 else parts[1].strip()
        out.append((int(m.group(1)), " ".join(parts[0].split()), answer))
    return out


def load_seed_page(text: str, path: Path, source: str) -> list[Chunk]:
    chunks = []
    for number, question, answer in parse_seed_page(text, str(path)):
        lang = detect_lang(question + answer)
        body = f"{question}\n{answer}"
        chunks.append(
            Chunk(
                id=f"{source}#question-{number}",
                kind="qa",
                title=question,
                source=f"{source}#question-{number}",
                origin=str(path),
                dense_text=english_view(body) if lang == "zh" else body,
                lexical_text=body,
                lang=lang,
                data={"question": question, "answer": answer, "number": number},
            )
        )
    return chunks
