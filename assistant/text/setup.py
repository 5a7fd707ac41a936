"""The user's setup, read from the question, the paste and the earlier turns (pure).

A known problem applies to some setups only: a GPU architecture, a vLLM release range, a model, a
quantization method, a feature being on. Before a curated fix is offered, the assistant needs to know
what the user runs; this module pulls that out of what they wrote, in English or Chinese. Anything not
stated stays unknown (None or empty): a missing detail is asked for, never assumed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from assistant.models import Signals
from assistant.release.version import detect_version
from assistant.text.gpus import gpu_terms
from assistant.text.platforms import user_platforms
from assistant.text.problem import problem_part
from assistant.text.signals import extract_signals, is_log_line
from assistant.text.software import (
    VLLM_WORD,
    code_without_vllm,
    driver,
    frame_packages,
    imported,
    log_crates,
    programs,
    programs_choosing_vllm,
    runs_vllm,
    template_products,
    title_subject,
    toolchain_without_vllm,
    versioned_products,
    vllm_mentions,
)

Symptom = Literal[
    "crash", "illegal_memory_access", "oom", "hang", "wrong_output", "nondeterministic", "slow", "install"
]
SYMPTOMS: tuple[str, ...] = Symptom.__args__  # type: ignore[attr-defined]
# A crash of one of these kinds is also "a crash": a user who only says "it crashed" may have any of them.
CRASH_KINDS = frozenset({"crash", "illegal_memory_access", "oom"})

QUANT_METHODS = (
    "awq", "gptq", "fp8", "int8", "int4", "w8a8", "w4a16", "nvfp4", "mxfp4", "gguf", "bitsandbytes", "none"
)  # fmt: skip
SPEC_METHODS = ("dspark", "eagle3", "eagle", "medusa", "mtp", "ngram", "draft_model", "suffix")
SO_BACKENDS = ("xgrammar", "guidance", "outlines", "lm-format-enforcer", "auto")
CUDAGRAPH_MODES = ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY", "PIECEWISE", "FULL", "NONE")
PLATFORMS = ("cuda", "rocm", "cpu", "xpu", "tpu", "apple")  # assistant/text/platforms.py's names


@dataclass(frozen=True)
class Gpu:
    """A GPU the user named, with the SM codes it may be (a family name like "Ampere" may be several)."""

    name: str
    arch: str | None
    sms: tuple[str, ...]


@dataclass(frozen=True)
class Features:
    """vLLM features the user has on (True), has off (False), or did not mention (None)."""

    speculative: bool | None = None
    speculative_method: str | None = None
    adaptive_verification: bool | None = None
    cudagraph_mode: str | None = None
    eager: bool | None = None
    structured_outputs: bool | None = None
    structured_outputs_backend: str | None = None
    batch_invariant: bool | None = None
    deep_gemm: bool | None = None
    tensor_parallel: int | None = None
    pipeline_parallel: int | None = None
    multi_gpu: bool | None = None  # tensor / pipeline / data parallel over more than one GPU

    def merged(self, newer: Features) -> Features:
        """This turn's features with a later turn's stated values taking precedence."""
        return Features(**{k: v if v is not None else getattr(self, k) for k, v in newer.__dict__.items()})


@dataclass(frozen=True)
class UserSetup:
    """What the user runs and what goes wrong, as far as they said."""

    vllm_version: str | None = None  # "0.31.0"; "nightly" for nightly / main builds
    gpus: tuple[Gpu, ...] = ()
    models: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    quantization: tuple[str, ...] = ()  # methods named; ("none",) when only an unquantized dtype is named
    features: Features = field(default_factory=Features)
    symptoms: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()  # the error lines pasted
    platforms: frozenset[str] = frozenset()  # "rocm", "cpu", ...: the platforms named (empty: not said)
    uses_vllm: bool | None = None  # False only when the user says vLLM is not involved ("no vllm", "没用 vllm")
    other_software: str | None = None  # the other engine the message is about or runs instead of vLLM ("Ollama")
    driver: str | None = None  # the framework that runs vLLM in its own process for the user ("trl")
    runs_other: str | None = None  # what pasted code runs when the message never imports or names vLLM ("torch")

    @property
    def sms(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(sm for g in self.gpus for sm in g.sms))

    def describe(self) -> list[str]:
        """Short "what you have" phrases, for the answer's applicability notes."""
        out = []
        if self.vllm_version:
            out.append(f"vLLM {self.vllm_version}")
        out += [f"{g.name} ({', '.join(g.sms)})" if g.sms and g.sms != (g.name,) else g.name for g in self.gpus]
        out += list(self.models)
        return out


# --------------------------------------------------------------------------- hardware

_BARE_RTX = re.compile(r"(?<![\w.:/-])((?:RTX\s?)?[2345]0[5-9]0(?:\s?Ti)?)(?![\w.:/-])", re.IGNORECASE | re.ASCII)
_ARCH_SMS = {
    "volta": ("Volta", ("SM70",)),
    "turing": ("Turing", ("SM75",)),
    "ampere": ("Ampere", ("SM80", "SM86")),
    "ada lovelace": ("Ada Lovelace", ("SM89",)),
    "ada": ("Ada Lovelace", ("SM89",)),
    "hopper": ("Hopper", ("SM90",)),
    "blackwell": ("Blackwell", ("SM100", "SM120")),
}


def _gpu(name: str) -> Gpu:
    clean = re.sub(r"\s+", " ", name.strip())
    if re.fullmatch(r"[2345]0[5-9]0(?: ?Ti)?", clean, re.IGNORECASE):
        clean = "RTX " + clean
    terms = gpu_terms(clean)
    if terms:
        arch = terms[0] if len(terms) == 2 else None
        return Gpu(clean, arch, tuple(t for t in terms if re.fullmatch(r"SM\d+|gfx\w+", t)))
    arch = _ARCH_SMS.get(clean.lower())
    if arch:
        return Gpu(clean, arch[0], arch[1])
    return Gpu(clean, None, ())


def _gpus(text: str, signals: Signals) -> tuple[Gpu, ...]:
    names = list(signals.gpus) + [m.group(1) for m in _BARE_RTX.finditer(text)]
    gpus = [_gpu(n) for n in dict.fromkeys(names)]
    specific = {sm for g in gpus if g.arch and len(g.sms) == 1 for sm in g.sms}
    # "an A100 (Ampere)": the family name adds nothing beside the card that belongs to it.
    gpus = [g for g in gpus if not (g.name.lower() in _ARCH_SMS and set(g.sms) & specific)]
    seen: dict[tuple[str, ...], Gpu] = {}
    for g in gpus:
        if g.sms and g.name.upper() == g.sms[0]:  # "SM80" spelled out: keep a card name if there is one
            seen.setdefault(g.sms, g)
        else:
            seen[g.sms or (g.name,)] = g
    return tuple(seen.values())


# --------------------------------------------------------------------------- models and quantization

_FAMILY = re.compile(
    r"(qwen|meta-llama|llama|deepseek|mistral|mixtral|gemma|phi|glm|kimi|gpt-oss|yi|internlm|baichuan|falcon|"
    r"opt|granite|command|smollm|minicpm|hunyuan)[-_ ]?(v?\d+(?:\.\d+)?)?",
    re.IGNORECASE,
)
_QUANT = [
    ("awq", re.compile(r"\bawq\b|awq[-_]|[-_]awq", re.IGNORECASE | re.ASCII)),  # "AWQ模型" too
    ("gptq", re.compile(r"gptq", re.IGNORECASE)),
    ("nvfp4", re.compile(r"nvfp4", re.IGNORECASE)),
    ("mxfp4", re.compile(r"mxfp4", re.IGNORECASE)),
    ("fp8", re.compile(r"(?<![a-z])fp8(?![a-z])|float8|e4m3", re.IGNORECASE)),
    ("w8a8", re.compile(r"w8a8", re.IGNORECASE)),
    ("w4a16", re.compile(r"w4a16", re.IGNORECASE)),
    ("int8", re.compile(r"(?<![a-z])int8(?![a-z])", re.IGNORECASE)),
    ("int4", re.compile(r"(?<![a-z])int4(?![a-z])", re.IGNORECASE)),
    ("gguf", re.compile(r"gguf", re.IGNORECASE)),
    ("bitsandbytes", re.compile(r"bitsandbytes|\bbnb\b", re.IGNORECASE)),
]
_UNQUANTIZED = re.compile(
    r"(?<![a-z])(bf16|fp16|bfloat16|float16|fp32|unquantized|full precision|未量化|原始精度)", re.IGNORECASE
)


def _family(model: str) -> str | None:
    m = _FAMILY.search(model.rsplit("/", 1)[-1])
    if not m:
        return None
    name = m.group(1).lower().replace("meta-llama", "llama")
    return f"{name}{m.group(2).lower().lstrip('v')}" if m.group(2) else name


def _quantization(text: str) -> tuple[str, ...]:
    found = tuple(name for name, rx in _QUANT if rx.search(text))
    if found:
        return found
    return ("none",) if _UNQUANTIZED.search(text) else ()


# --------------------------------------------------------------------------- features

_NEG = r"(?:\bno\b|\bnot\b|n't|\bwithout\b|\bdisabled?\b|\boff\b|没有?|未|不|关闭了?|关掉了?|禁用了?)"


def _negated(text: str, start: int, window: int = 28) -> bool:
    """Whether the words just before `start` negate it ("no speculative decoding", "没开投机解码")."""
    before = text[max(0, start - window) : start]
    clause = re.split(r"[.;!?。；！？\n]|,\s|，|\bbut\b|但是?", before)[-1]
    return re.search(_NEG + r"[^,，]{0,22}$", clause, re.IGNORECASE) is not None


def _tri(text: str, rx: re.Pattern[str]) -> bool | None:
    """True when something is said to be on, False when every mention is negated, None when unmentioned."""
    states = [not _negated(text, m.start()) for m in rx.finditer(text)]
    if not states:
        return None
    return any(states)


_SPEC = re.compile(
    r"--speculative[-_]config|speculative[_ ]?(?:decoding|config|model|tokens)|spec(?:ulative)?[ -]decod|"
    r"num_speculative_tokens|draft model|\bdspark\b|\beagle3?\b|\bmedusa\b|\bngram\b|投机解码|推测解码|投机采样|草稿模型",
    re.IGNORECASE,
)
_SPEC_STRONG = re.compile(
    r"--speculative[-_]config|speculative[_ ]?(?:decoding|config)|spec(?:ulative)?[ -]decod|投机解码|推测解码|投机采样",
    re.IGNORECASE,
)
_ENABLING = re.compile(
    r"(开了|开启了?|启用了?|用了|使用了?|打开了?|跑|\bwith\b|\busing\b|\buse\b|\benabled?\b|turn(?:ed|ing)? on|"
    r"\bran\b|\brunning\b|\brun\b)[^,，。.;]{0,14}$",
    re.IGNORECASE,
)
_SPEC_METHOD = re.compile(r"[\"']?method[\"']?\s*[:=]\s*[\"']?([a-z0-9_]+)", re.IGNORECASE)
_SPEC_WORD = re.compile(r"\b(dspark|eagle3|eagle-3|eagle|medusa|ngram|n-gram|mtp|suffix)\b", re.IGNORECASE)
# Only an assignment states the mode in use: "switch cudagraph_mode to FULL_DECODE_ONLY?" is a plan.
_CUDAGRAPH = re.compile(
    r"cudagraph_mode[\"']?\s*(?:[:=]|(?:也|已经|都)?\s*(?:改成了?|改为了?|设成了?|设置成了?|设为|设置为|换成了?)|"
    r"(?:is|was|already|are)\s+(?:set|changed|switched)\s+to|changed to|switched to)\s*[\"']?([A-Za-z_]+)"
)
_ADAPTIVE = re.compile(r"adaptive[ _]verification|自适应验证", re.IGNORECASE)
_ADAPTIVE_VALUE = re.compile(
    r"enable_adaptive_verification[\"']?\s*(?:[:=]|关成|设成|设为|改成|set to)?\s*[\"']?(true|false)", re.IGNORECASE
)
_EAGER = re.compile(r"enforce[-_]eager|eager mode|eager 模式|eager模式", re.IGNORECASE)
_EAGER_VALUE = re.compile(r"enforce_eager\s*=\s*(True|False)")
_SO = re.compile(
    r"structured[_ ]outputs?|guided[_ ](?:json|regex|choice|grammar|decoding)|json_schema|response_format|"
    r"\bEBNF\b|\bgrammar\b|\bxgrammar\b|结构化输出|语法约束",
    re.IGNORECASE,
)
_SO_BACKEND = re.compile(r"\b(xgrammar|guidance|outlines|lm-format-enforcer|lm_format_enforcer)\b", re.IGNORECASE)
_SO_BACKEND_ARG = re.compile(
    r"(?:structured[-_]outputs[-_]config|guided[-_]decoding[-_]backend)\S*?\s*[\"']?(?:backend)?[\"']?\s*[:= ]\s*[\"']?(auto)\b",
    re.IGNORECASE,
)
_BATCH_INV = re.compile(r"VLLM_BATCH_INVARIANT(?:\s*=\s*([01]))?|batch[- ]invarian\w*|批次不变|批处理不变")
_DEEP_GEMM = re.compile(r"VLLM_USE_DEEP_GEMM\s*=\s*([01])")
_TP = re.compile(
    r"(?:--tensor[-_]parallel[-_]size|tensor_parallel_size|\s-tp|\bTP)\s*[=: ]?\s*(\d{1,2})\b|\bTP(\d{1,2})\b|张量并行\s*(\d{1,2})",
    re.ASCII,  # "设置tensor_parallel_size=2时报错"
)
_PP = re.compile(
    r"(?:--pipeline[-_]parallel[-_]size|pipeline_parallel_size|\s-pp|\bPP)\s*[=: ]?\s*(\d{1,2})\b|\bPP(\d{1,2})\b",
    re.ASCII,
)


_MULTI_GPU = re.compile(
    r"multi[- ]?gpus?|multiple gpus|(?:two|2|four|4|eight|8) (?:x )?(?:gpus|cards)|\b[2-8] ?x ?(?:A100|H100|H200|L40S?|"
    r"RTX ?\d{4}|\d{4})s?\b|多卡|多张(?:显)?卡|[两二四八]张(?:显)?卡|[2-8]\s*张(?:显)?卡|[2-8]\s*卡",
    re.IGNORECASE | re.ASCII,
)


def _multi_gpu(text: str, tp: int | None, pp: int | None) -> bool | None:
    """More than one GPU in use: a parallel size over 1, or the words; False only for a stated size of 1."""
    if (tp or 1) > 1 or (pp or 1) > 1 or any(not _negated(text, m.start()) for m in _MULTI_GPU.finditer(text)):
        return True
    if tp == 1 and pp in (None, 1):
        return False
    return None


def _first_int(rx: re.Pattern[str], text: str) -> int | None:
    for m in rx.finditer(text):
        for g in m.groups():
            if g:
                return int(g)
    return None


def _features(text: str) -> Features:
    # The flag or the words say whether it is on; a method named in passing ("is it the dspark bug?") does not
    # outweigh "no --speculative-config".
    strong = [not _negated(text, m.start()) for m in _SPEC_STRONG.finditer(text)]
    enabled = [
        m for m in _SPEC_WORD.finditer(text)
        if not _negated(text, m.start()) and _ENABLING.search(text[max(0, m.start() - 24) : m.start()])
    ]  # fmt: skip
    speculative = (any(strong) or bool(enabled) or bool(_SPEC_METHOD.search(text))) if strong else _tri(text, _SPEC)
    method = None
    if speculative:
        for m in _SPEC_METHOD.finditer(text):
            if m.group(1).lower() in SPEC_METHODS or m.group(1).lower() in ("eagle-3", "n-gram", "draft"):
                method = m.group(1).lower()
        if method is None:
            words = [m.group(1).lower() for m in _SPEC_WORD.finditer(text) if not _negated(text, m.start())]
            method = (
                words[0]
                if words
                else ("draft_model" if re.search(r"draft model|草稿模型", text, re.IGNORECASE) else None)
            )
        method = {"eagle-3": "eagle3", "n-gram": "ngram", "draft": "draft_model"}.get(method or "", method)
    eager_value = _EAGER_VALUE.search(text)
    eager = (eager_value.group(1) == "True") if eager_value else _tri(text, _EAGER)
    modes = [m.group(1).upper() for m in _CUDAGRAPH.finditer(text)]
    cudagraph = modes[-1] if modes and modes[-1] in CUDAGRAPH_MODES else None
    if cudagraph is None and eager:
        cudagraph = "NONE"  # eager mode captures no CUDA graphs
    structured = _tri(text, _SO)
    backends = [
        m.group(1).lower().replace("_", "-") for m in _SO_BACKEND.finditer(text) if not _negated(text, m.start())
    ]
    backend = backends[0] if backends else ("auto" if _SO_BACKEND_ARG.search(text) else None)
    if backend and structured is None:
        structured = True
    bi_states = [
        (m.group(1) != "0") if m.group(1) else not _negated(text, m.start()) for m in _BATCH_INV.finditer(text)
    ]
    deep_gemm = [m.group(1) == "1" for m in _DEEP_GEMM.finditer(text)]
    adaptive_value = [m.group(1).lower() == "true" for m in _ADAPTIVE_VALUE.finditer(text)]
    adaptive = adaptive_value[-1] if adaptive_value else _tri(text, _ADAPTIVE)
    return Features(
        speculative=speculative,
        speculative_method=method,
        adaptive_verification=adaptive,
        cudagraph_mode=cudagraph,
        eager=eager,
        structured_outputs=structured,
        structured_outputs_backend=backend,
        batch_invariant=any(bi_states) if bi_states else None,
        deep_gemm=deep_gemm[-1] if deep_gemm else None,
        tensor_parallel=(tp := _first_int(_TP, text)),
        pipeline_parallel=(pp := _first_int(_PP, text)),
        multi_gpu=_multi_gpu(text, tp, pp),
    )


# --------------------------------------------------------------------------- symptoms

# ASCII word boundaries: "显存OOM了", "启动时hang住了" (a Chinese character is a word character to Python's `\b`).
_SYMPTOM_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "illegal_memory_access",
        re.compile(
            r"illegal memory access|illegal address|cudaErrorIllegalAddress|非法内存访问|非法地址", re.IGNORECASE
        ),
    ),
    (
        "oom",
        re.compile(
            r"out of memory|OutOfMemoryError|\bOOMs?\b|\bOOM(?:ed|ing)\b|No available memory for the cache blocks|"
            r"not enough (?:GPU |KV cache )?memory|insufficient (?:GPU )?memory|显存不足|爆显存|显存溢出|内存不足|"
            r"显存不够|内存溢出|\bOOM了",
            re.IGNORECASE | re.ASCII,
        ),
    ),
    (
        "hang",
        re.compile(
            r"\bhang(?:s|ing)?\b|\bhung\b|\bstuck\b|\bfreez\w*|\bfroze\b|deadlock|no progress|not responding|"
            r"never (?:returns|finishes|completes)|\btimed? ?out\b|watchdog|卡住|卡死|挂起|无响应|没有?反应|一直等|死锁|超时|"
            # "卡在 NCCL 初始化" (stuck at), not a count of cards ("两张卡在跑")
            r"(?<![张块台个片\d])卡在|不动了|一动不动",
            re.IGNORECASE | re.ASCII,
        ),
    ),
    (
        "wrong_output",
        re.compile(
            r"garbled|gibberish|nonsense|\bgarbage\b(?![ -]collect)|repetiti\w*|repeat(?:s|ing|ed)? (?:itself|the same|tokens?)|token loops?|"
            r"wrong (?:output|answer|result)s?|invalid json|malformed (?:json|output)|cut off|truncated|empty (?:output|response)|"
            r"!!!!|tool_calls?\W{0,20}(?:is |are )?(?:always |still )?empty|乱码|胡言乱语|重复输出|输出重复|循环输出|"
            r"重复好几遍|重复了好几|一直重复|反复重复|不停重复|重复几遍|重复同一|"
            r"输出全是|输出不对|结果不对|答非所问|解析不出|为空|是空的|一直是空",
            re.IGNORECASE | re.ASCII,
        ),
    ),
    (
        "nondeterministic",
        re.compile(
            r"non-?deterministic|not deterministic|\bdiffer(?:s|ent)? (?:between|across|from run|per run|"
            r"depending)|(?:outputs?|results?|logprobs?) (?:still |also )?differ|different (?:outputs?|results?|logprobs?|"
            r"answers?)|inconsistent|not reproducible|irreproducible|batch[- ]invarian\w*|非确定|不确定性|"
            r"不一致|对不上|结果不同|输出不同|不能复现|无法复现|批次不变",
            re.IGNORECASE | re.ASCII,
        ),
    ),
    (
        "slow",
        re.compile(
            r"\bslow(?:er|ly|ness)?\b|throughput|latency|tok(?:ens)?/s\b|\bspeed\b|faster|performance|acceptance rate|"
            r"\bTTFT\b|\bITL\b|\bTPOT\b|time to first token|"
            r"takes? (?:\d+|several|many|a few) (?:s|sec|seconds|minutes)|吞吐|很慢|变慢|太慢|更慢|还慢|速度|性能|延迟|"
            r"接受率|等好几秒|好几秒",
            re.IGNORECASE | re.ASCII,
        ),
    ),
    (
        "install",
        re.compile(
            r"pip install|build(?:ing)? (?:from source|fails?|failed|error)|failed to build|compil(?:e|ation) (?:error|fail)|"
            r"\bwheel\b|setup\.py|\bcmake\b|ModuleNotFoundError|ImportError|undefined symbol|no matching distribution|"
            r"安装失败|编译失败|编译报错|构建失败|装不上|安装报错",
            re.IGNORECASE | re.ASCII,
        ),
    ),
    (
        "crash",
        re.compile(
            r"\bcrash(?:es|ed|ing)?\b|Traceback|\b\w+(?:Error|Exception):|EngineDeadError|\bdied\b|\bdies\b|\babort\w*|"
            r"segfault|segmentation fault|core dumped|HTTP 500|\b500 Internal|exit code \d+|崩溃|挂了|挂掉|报错|宕机|"
            # an API error response: the request was refused with an error (the OpenAI client's "Error code: 400 - {…}")
            r"\bError code: [45]\d\d\b|\bBadRequestError\b|\b400 Bad Request\b|"
            r"退出|死掉",
            re.IGNORECASE | re.ASCII,
        ),
    ),
]


# vLLM's periodic metrics line ("Engine 000: Avg prompt throughput: 1.2 tokens/s, Avg generation throughput: ...,
# Running: 3 reqs, ..."), printed every few seconds and pasted with most server logs, and the progress bar of offline
# `LLM.generate` ("Processed prompts: 100%|…| 1/1 [00:00<00:00, 3.49it/s, est. speed input: 660.00 toks/s, …]"): their
# words are not a symptom.
_STATS_LINES = ("Avg prompt throughput:", "Processed prompts:", "est. speed input:")
# "Performance" that vLLM's issue template wrote, not the user: the "[Performance]:" title tag and its headings.
_TEMPLATE_PERFORMANCE = re.compile(
    r"\[Performance\]:?|^#+\s*(?:Misc discussion on performance|Proposal to improve performance|"
    r"Report of performance regression)\s*$",
    re.IGNORECASE | re.MULTILINE,
)


def _symptoms(text: str) -> tuple[str, ...]:
    if any(s in text for s in _STATS_LINES):
        text = "\n".join(line for line in text.split("\n") if not any(s in line for s in _STATS_LINES))
    # Slowness is the user's complaint: a logger's advice ("Please install it for better performance", "may degrade
    # the performance") and the template's words do not make a report about speed.
    said = _TEMPLATE_PERFORMANCE.sub(" ", "\n".join(line for line in text.split("\n") if not is_log_line(line)))
    found = []
    for name, rx in _SYMPTOM_PATTERNS:
        where = said if name == "slow" else text
        if any(not _negated(where, m.start()) for m in rx.finditer(where)):
            found.append(name)
    # A crash named precisely (illegal memory access, OOM) is that crash, not another one.
    if "crash" in found and ({"illegal_memory_access", "oom"} & set(found)):
        found.remove("crash")
    return tuple(found)


# --------------------------------------------------------------------------- the whole setup


_NOT_A_MODEL = re.compile(r"For(?:CausalLM|ConditionalGeneration)$|^(?:phi|yi|opt|command|glm)$", re.IGNORECASE)


def _models(names: Sequence[str]) -> tuple[str, ...]:
    """Model names as users write them; class names and words that merely start like a family are dropped."""
    out = []
    for name in names:
        name = name.rstrip(".,:;")
        family = _FAMILY.search(name.rsplit("/", 1)[-1])
        if not family or _NOT_A_MODEL.search(name):
            continue
        after = name.rsplit("/", 1)[-1][family.end(1) :]
        if after[:1].isalpha() and after[:1].islower() and not family.group(2):  # "optimizations", "phil..."
            continue
        out.append(name)
    return tuple(dict.fromkeys(out))


# "no vllm", "not using vLLM", "without vllm", "never used vllm", "没用 vllm", "不是 vllm 的问题": vLLM said to be absent.
_NO_VLLM = re.compile(
    r"(?:\bno|\bnot(?: using| running| even using)?|\bwithout|\bnever used|\bdon't use|\bdo not use|"
    r"没用|没有用|没有使用|没使用|没装|不用|不是)\s*(?:the\s+)?vllm(?![A-Za-z0-9_])",
    re.IGNORECASE,
)


def _uses_vllm(text: str) -> bool | None:
    """False when every mention of vLLM says it is not involved, True when one does not, None when unmentioned."""
    mentions = [m.start() for m in vllm_mentions(text)]
    if not mentions:
        return None
    negated = {m.end() - 4 for m in _NO_VLLM.finditer(text)}  # where the "vllm" of each negation starts
    return any(start not in negated for start in mentions)


# Other inference engines, training stacks, and the apps, gateways and frameworks that call vLLM or run it, by the
# names their users, their commands and their logs use. A message that runs one of them and never mentions vLLM is
# about that software; "switched from Ollama" or "faster than TGI" is not. Names vLLM itself uses are left out (its
# GPTQ ExLlama kernels, Megatron-style checkpoints, DeepSpeedFP, the Triton compiler, Ray as its executor).
_OTHER_SOFTWARE = {
    # "llama runner process has terminated" is Ollama's own error for a model its runner could not load
    "Ollama": r"ollama|llama runner process",
    # its server and loader, not the name alone: "a GGUF converted with llama.cpp" is often a vLLM question
    "llama.cpp": (
        r"llama\.cpp(?:'s)? server|llama-server|llama-cli|llama_model_load|llama_load_model_from_file|"
        r"llama-cpp-python|hf-to-gguf"
    ),
    "Text Generation Inference": r"text-generation-inference|text_generation_server|TGI",
    "SGLang": r"sglang",
    "TensorRT-LLM": r"tensorrt[-_ ]llm|trt[-_]?llm",
    "LMDeploy": r"lmdeploy",
    "DeepSpeed": r"deepspeed(?![-_ ]?fp)",
    "the Hugging Face Trainer": r"(?:HF|Hugging ?Face|transformers)\s+Trainer|SFTTrainer|Seq2SeqTrainer",
    "ComfyUI": r"comfyui",
    "LM Studio": r"LM ?Studio",
    "LightLLM": r"lightllm",
    "MLC LLM": r"mlc[-_ ]llm",
    "mistral.rs": r"mistral\.rs|mistralrs",
    "ScaleLLM": r"scalellm",
    "KTransformers": r"ktransformers",
    "Aphrodite": r"aphrodite(?:-engine)?",
    "koboldcpp": r"kobold\.?cpp",
    "GPT4All": r"gpt4all",
    "Candle": r"huggingface/candle|candle-(?:core|nn|transformers)",
    # serving frameworks that start vLLM's engine in their own processes
    "Xinference": r"xinference",
    "Ray Serve": r"ray[ .]serve",
    "FastChat": r"fastchat",
    "BentoML": r"bentoml|openllm",
    "KServe": r"kserve",
    "Triton Inference Server": r"tritonserver|triton inference server",
    "GPUStack": r"gpustack",
    "InstructLab": r"instructlab|ilab(?= (?:serve|model|data|config)\b)",
    # fine-tuning and RL frameworks with a vLLM backend
    "LLaMA-Factory": r"llama[-_ ]?factory|llamafactory(?:-cli)?",
    "Unsloth": r"unsloth",
    "Axolotl": r"axolotl",
    "OpenRLHF": r"openrlhf",
    "verl": r"verl",
    # apps, gateways and client libraries that call a vLLM server
    "Open WebUI": r"open[-_ ]?webui",
    "LiteLLM": r"litellm",
    "text-generation-webui": r"text-generation-webui|oobabooga",
    "LocalAI": r"local-?ai",
    "Dify": r"dify",
    "AnythingLLM": r"anything-?llm",
    "LibreChat": r"librechat",
    "SillyTavern": r"sillytavern",
    "LangChain": r"langchain(?:[-_]\w+)?",
    "LlamaIndex": r"llama[-_ ]?index",
}
# ASCII boundaries, as for vLLM's name: "SGLANG报错" names SGLang (a CJK character is a word character to `\w`).
_OTHER = {
    name: re.compile(rf"(?<![A-Za-z0-9_.-])(?:{p})(?![A-Za-z0-9_-])", re.IGNORECASE)
    for name, p in _OTHER_SOFTWARE.items()
}
# "switched from Ollama", "instead of TGI", "than sglang", "what TGI gave us", "从 ollama 迁移", "和 sglang 相比": a
# comparison. "from" alone is where something comes from ("an empty response from Ollama", "the error from LocalAI"):
# it compares only after a verb of moving away (switch, migrate, move, port, convert, upgrade). Missing a
# comparison only leaves the question to the usual evidence; taking one for the subject would decline it.
_COMPARED = re.compile(
    r"(?:\b(?:switch|migrat|mov|port|convert|upgrad|transition)\w*\s+(?:over\s+)?from|\binstead of|\bthan|"
    r"\bvs\.?|\bversus|\bcompared (?:to|with)|\blike|\bwhat|\bunlike|"
    r"从|和|跟|比|换成|替代|之前用|以前用)\s*$",
    re.IGNORECASE,
)


def _filed_about(text: str) -> list[str]:
    """What a report says it is about, when it does not say vLLM: its title's opening words ("Ray Serve LLM ignores
    VLLM_API_KEY") and the products its template gives a version of ("### Open WebUI Version"). Nothing when the
    title names vLLM ("… since vLLM 0.17.1": vLLM's change may be the answer) or vLLM is given a version too."""
    title = title_subject(text)
    products = versioned_products(text)
    if VLLM_WORD.search(title) or any(VLLM_WORD.search(p) for p in products):
        return []
    return [title, *products]


def _other_software(text: str) -> str | None:
    """The other engine a message is about ("Ollama"), or None.

    A message that never mentions vLLM, or names it only as the yardstick of its question ("like vLLM's
    gpu-memory-utilization": `vllm_mentions`), is about the engine it names (unless only in a comparison). One that
    mentions vLLM is about another engine only when that engine is what it runs (the program of its command line,
    the package of its traceback's frames) or what the report is filed about (see `_filed_about`), and nothing it
    pastes runs vLLM: "SGLang and vLLM support this" under a `llama-server …` command is a
    llama.cpp question, and a "GET /v1//models 404" in vLLM's log under Open WebUI's template is Open WebUI's.
    """
    if vllm_mentions(text):
        if runs_vllm(text):
            return None
        ran = programs(text) + frame_packages(text) + log_crates(text)
        said = _filed_about(text)
        for name, pattern in _OTHER.items():
            if any(pattern.search(p) for p in ran) or any(pattern.match(s) for s in said):
                return name
        return None
    for name, pattern in _OTHER.items():
        for m in pattern.finditer(text):
            if not _COMPARED.search(text[max(0, m.start() - 30) : m.start()]):
                return name
    # A product of no list: the one whose issue template the report fills in ("### FreeToken version").
    return next(iter(template_products(text)), None)


def _chosen_by(text: str) -> str | None:
    """The other software whose command line picks vLLM as its engine (`llamafactory-cli api … --infer_backend
    vllm` is LLaMA-Factory running vLLM for the user), or None."""
    for program in programs_choosing_vllm(text):
        for name, pattern in _OTHER.items():
            if pattern.search(program):
                return name
    return None


# The products of `_OTHER_SOFTWARE` that are engines of their own: they never run vLLM's engine for the user, so a
# traceback with vLLM's frames in a message that names one is vLLM's (or a comparison), not theirs.
_ENGINES = frozenset((
    "Ollama", "llama.cpp", "Text Generation Inference", "SGLang", "TensorRT-LLM", "LMDeploy", "ComfyUI", "LM Studio",
    "LightLLM", "MLC LLM", "mistral.rs", "ScaleLLM", "KTransformers", "Aphrodite", "koboldcpp", "GPT4All", "Candle",
))  # fmt: skip


def _run_under(text: str) -> str | None:
    """The framework vLLM's engine runs under when the traceback shows vLLM's frames, nothing pasted starts vLLM
    itself (no `vllm serve`, no `import vllm`), and the message names a framework that starts vLLM's engine
    (`CUDA_VISIBLE_DEVICES="" llamafactory-cli api x_vllm.yaml` over a frame of `vllm/platforms/cuda.py`), or None.

    The frames say vLLM runs; who started it is what the user ran, and they ran the framework: its configuration is
    what sets vLLM's arguments. An engine of its own (SGLang, Ollama) never starts vLLM, so naming one says nothing.
    """
    if "vllm" not in frame_packages(text) or "vllm" in imported(text):
        return None
    if any(p == "vllm" or p.startswith("vllm.") for p in programs(text)):
        return None
    for name, pattern in _OTHER.items():
        if name in _ENGINES:
            continue
        for m in pattern.finditer(text):
            if not _COMPARED.search(text[max(0, m.start() - 30) : m.start()]):
                return name
    return None


def extract_setup(text: str, signals: Signals | None = None) -> UserSetup:
    """The setup one message states; `signals`: `extract_signals(text)` when the caller has them already."""
    signals = signals or extract_signals(text)
    gpus = _gpus(text, signals)
    models = _models(signals.models)
    families = tuple(dict.fromkeys(f for f in (_family(m) for m in models) if f))
    drives = driver(text) or _chosen_by(text) or _run_under(text)
    return UserSetup(
        vllm_version=detect_version(text),
        gpus=gpus,
        models=models,
        families=families,
        quantization=_quantization(text),
        features=_features(text),
        symptoms=_symptoms(problem_part(text)),  # what went wrong, not the install command or environment it reports
        errors=signals.messages,
        platforms=user_platforms(text, [g.name for g in gpus]),
        uses_vllm=_uses_vllm(text),
        other_software=None if drives else _other_software(text),
        driver=drives,
        runs_other=code_without_vllm(text) or toolchain_without_vllm(text),
    )


def conversation_setup(
    question: str, earlier_user_turns: Sequence[str] = (), question_signals: Signals | None = None
) -> UserSetup:
    """The setup of a whole conversation: later turns override what earlier ones said.

    "It crashes on vLLM 0.31.0" then "an H100": the follow-up adds the GPU and keeps the version. The
    symptoms are the latest turn's that names one, as a follow-up often only answers a question.
    """
    setup = UserSetup()
    last = len(earlier_user_turns)
    for i, text in enumerate([*earlier_user_turns, question]):
        turn = extract_setup(text, question_signals if i == last else None)
        setup = replace(
            setup,
            vllm_version=turn.vllm_version or setup.vllm_version,
            gpus=turn.gpus or setup.gpus,
            models=turn.models or setup.models,
            families=turn.families or setup.families,
            quantization=turn.quantization or setup.quantization,
            features=setup.features.merged(turn.features),
            symptoms=turn.symptoms or setup.symptoms,
            errors=turn.errors or setup.errors,
            platforms=turn.platforms or setup.platforms,
            uses_vllm=turn.uses_vllm if turn.uses_vllm is not None else setup.uses_vllm,
            # a turn that mentions vLLM, or names another engine, settles what the conversation is about
            other_software=turn.other_software or (None if turn.uses_vllm is not None else setup.other_software),
            driver=turn.driver or (None if turn.uses_vllm is not None else setup.driver),
            runs_other=turn.runs_other or (None if turn.uses_vllm is not None else setup.runs_other),
        )
    return setup
