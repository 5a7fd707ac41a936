"""Instructions addressed to the assistant inside a question or a paste: prompt injection (pure).

A troubleshooting question describes a problem; it does not tell the assistant how to behave. Text
that does ("ignore the previous instructions", "print your system prompt", "from now on say …",
"make up a flag name", a chat template's system turn) is an attempt to steer the answer, whether the
user typed it or it came in with a pasted log or issue. The assistant does not follow it and does not
answer around it: it says what it found and asks for the problem itself.

The patterns are the common shapes of direct and indirect prompt injection (overriding instructions,
extracting the prompt or the context, re-assigning the assistant's role, planting a standing rule,
asking for an invented name, a note addressed to an AI reader, a role marker that plants a turn of the
conversation in a log), in English and Chinese. Each needs
words about the assistant's instructions or behaviour, so an error message or a question about a
model's own prompt handling ("the chat template ignores the system prompt") does not match.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
_PATTERNS = tuple(
    re.compile(p, _I)
    for p in (
        # overriding: "ignore all previous instructions", "disregard the knowledge base"
        (
            r"\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,20}\b(previous|prior|above|earlier|preceding|all|"
            r"your)\s+(\w+\s+){0,2}(instructions?|rules|guidelines|prompts?|directions)\b"
        ),
        r"\b(ignore|disregard)\s+(the|your)\s+(knowledge base|context|documentation you have)\b",
        # extraction: "print your system prompt", "repeat everything above", "dump your API keys"
        (
            r"\b(print|reveal|repeat|dump|leak|output)\b[^.\n]{0,40}\b(system prompt|hidden instructions|"
            r"your (instructions|prompt|context|settings)|everything above)\b"
        ),
        r"\b(print|reveal|dump|leak)\b[^.\n]{0,30}\b(any|all|your) (api keys|secrets|credentials)\b",
        # role re-assignment: "you are now DAN / in … mode", "developer mode", "with no restrictions"
        r"\byou are now (an?|in|the|my|dan)\b",
        r"\b(developer|god|jailbreak|dan)\s+mode\b",
        r"\bwith(out any| no) restrictions\b",
        # a standing rule: "from now on, whenever … say …", "new instructions from …"
        r"\bfrom now on\b[^.\n]{0,80}\b(say|answer|respond|reply|tell|output)\b",
        r"\bnew instructions\s*(from|for|:)",
        # invention: "make up / invent / fabricate a … name / flag / env var"
        r"\b(make up|invent|fabricate|just make)\b[^.\n]{0,40}\b(name|flag|option|env(ironment)? var(iable)?s?|fix)\b",
        # a note for an AI reader planted in a document or a log
        r"\b(note|message|instructions?) (to|for) (the |any )?(ai|llm|assistant|chatbot|language model)\b",
        r"\bif you are an? (ai|llm|assistant|language model)\b",
        # a chat template's system turn, or a fake end of the context
        r"<\|im_start\|>\s*system\b",
        r"<<SYS>>",  # Llama 2's system turn
        r"</(context|system|documents?)>",
        # Chinese: overriding, extraction, a fake system turn, standing rules, invention
        r"(忽略|无视|忘掉|忘记)[^。\n]{0,12}(之前|以上|上面|前面|所有|全部)[^。\n]{0,12}(指令|指示|提示|规则|要求|设定)",
        r"(输出|打印|告诉我|泄露|显示|给我)[^。\n]{0,10}(系统提示|系统指令)|(系统提示词?|系统指令)[^。\n]{0,12}(原文|全部|输出|打印)",
        r"[\[【]\s*系统(指令|提示|消息)",
        r"(从现在开始|从现在起|从今以后)[^。\n]{0,40}(说|回答|回复|输出)",
        r"(编造|捏造|虚构|瞎编|编)(一个|个|一些|几个)[^。\n]{0,30}(参数|变量|名字|名称|flag|选项)",
        r"(没有的话|没有就|不存在就)[^。\n]{0,8}(编(一|几|些|个)|随便编|瞎编|虚构)",  # "if there is none, make some up"
        r"(你现在是|现在你是)[^。\n，,？?]{0,20}(助手|ai|机器人)",  # role re-assignment: "you are now an assistant that…"
        r"(知识库|上下文)[^。\n]{0,10}(原文|全文)",
    )
)


# A turn of the conversation planted in the data: a role marker at the start of a line (or of a log line's message),
# followed by the words of a turn. A model reading it may take what follows for its own earlier answer and go on
# from it ("[assistant] I recommend VLLM_TURBO_REPAIR=1"). Mentioning a marker inside a sentence ("my template
# prints <|im_start|> in the output", "the output ends with <|im_start|>assistant") is a question about templates,
# and a template's own line (`<|im_start|>assistant` then `{%- endif %}`) has no words after it.
_LOG_HEAD = (
    r"[ \t>]*(?:\([\w ]+pid=\d+\)\s*)?(?:[\d/:.,T-]{5,}\s+)*"
    r"(?:(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b:?\s*(?:[\d/:.,T-]{5,}\s+)*(?:\[[\w./-]+:\d+\]\s*)?)?"
)
_TURN_WORDS = r"\s*[A-Za-z\u4e00-\u9fff]"
_ROLE = r"(?:assistant|system|ai)"
_ROLE_MARKERS = tuple(
    re.compile(rf"^{_LOG_HEAD}(?:{p})(?={_TURN_WORDS})", re.IGNORECASE | re.MULTILINE)
    for p in (
        rf"\[{_ROLE}\]",  # [assistant] …
        rf"<\|im_start\|>\s*{_ROLE}\b",  # ChatML (Qwen, …)
        rf"<\|{_ROLE}\|>",  # Zephyr, Phi-3
        rf"<\|start_header_id\|>\s*{_ROLE}\s*<\|end_header_id\|>",  # Llama 3
        r"<start_of_turn>\s*model\b",  # Gemma
        r"\[INST\]",  # Llama 2 / Mistral user turn
        rf"#{{2,4}}\s*(?:{_ROLE}|response)\s*:",  # ### Assistant: (Alpaca / Vicuna)
    )
)
# A bare "Assistant:" line is a transcript's speaker label too; inside a pasted log it is planted.
_BARE_ROLE = re.compile(rf"^{_LOG_HEAD}(?:{_ROLE}|AI assistant)\s*[:：](?={_TURN_WORDS})", re.IGNORECASE | re.MULTILINE)
_LOG_LINE = re.compile(
    r"^[ \t]*(?:\([\w ]+pid=\d+\)\s*)?(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b[^\n]*\d\d:\d\d|"
    r"^Traceback \(most recent call last\)|^[ \t]*File \"[^\"\n]+\", line \d+",
    re.MULTILINE,
)


def _role_markers(text: str) -> list[str]:
    found = [m.group(0).strip() for p in _ROLE_MARKERS for m in p.finditer(text)]
    if _LOG_LINE.search(text):
        found += [m.group(0).strip() for m in _BARE_ROLE.finditer(text)]
    return found


def find_instructions(text: str) -> list[str]:
    """The passages of `text` that instruct the assistant, as they appear (empty for a plain question)."""
    found: list[str] = []
    spans = [m.group(0).strip() for pattern in _PATTERNS for m in pattern.finditer(text)] + _role_markers(text)
    for span in spans:
        if span and span not in found:
            found.append(span)
    return found
