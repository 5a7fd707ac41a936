"""Fixed wording of answers in each language (labels and the abstention guidance)."""

from __future__ import annotations

LABELS = {
    "en": {
        "root_cause": "Root cause",
        "fix": "Fix",
        "workarounds": "Workarounds",
        "affected": "Affected versions",
        "fixed_in": "Fixed in",
        "introduced_in": "Began in",
        "renamed": "Renamed or removed",
        "hardware": "Hardware",
        "models": "Models",
        "references": "References",
        "see_also": "Also relevant",
        "sources": "Sources",
        "from_docs": "From the vLLM documentation",
        "from_release_docs": "From the vLLM {version} documentation",
        "other_release_docs": "These are vLLM {version}'s docs and you run {yours}: check that what they describe is "
        "in your release.",
        "from_qa": "From a known Q&A",
        "known_issue": "Known issue",
        "open_issue": "Known open issue",
        "problem": "Problem",
        "resolution": "Resolution",
        "status": "Status",
        "open_status": "open, no resolution recorded yet",
    },
    "zh": {
        "root_cause": "根本原因",
        "fix": "解决方法",
        "workarounds": "变通方法",
        "affected": "受影响版本",
        "fixed_in": "修复版本",
        "introduced_in": "开始于",
        "renamed": "已改名或移除",
        "hardware": "硬件",
        "models": "模型",
        "references": "参考",
        "see_also": "其他相关内容",
        "sources": "来源",
        "from_docs": "来自 vLLM 官方文档（英文）",
        "from_release_docs": "来自 vLLM {version} 官方文档（英文）",
        "other_release_docs": "以上出自 vLLM {version} 的文档，而你用的是 {yours}：请确认你的版本里有这些参数和行为。",
        "from_qa": "来自已知问答",
        "known_issue": "已知问题",
        "open_issue": "尚未解决的已知问题",
        "problem": "问题",
        "resolution": "解决方案",
        "status": "状态",
        "open_status": "未关闭，尚无解决方案",
    },
}

ABSTAIN = {
    "en": "I could not find this problem in the knowledge base or the vLLM documentation I have, so I will not "
    "guess at a fix.",
    "zh": "在知识库和现有的 vLLM 文档中没有找到这个问题，我不会猜测解决方法。",
}
# An abstention on a message with an error message: the issue tracker, searched for it (`collect.issue_search`).
SEARCH = {
    "en": "If this is a bug in vLLM, it may already be reported: {url}",
    "zh": "如果这是 vLLM 的 bug，可能已经有人报告过：{url}",
}
# An abstention for a user on an older minor release than the newest one indexed (`scope.older_minor`): the usual
# first step of a bug report, said as that, not as a fix.
OLDER = {
    "en": "You run vLLM {have}, an older release than {newest}, the newest one I have. Bugs reported against an older "
    "release are often fixed in a later one, so first try {newest} (or the newest release); if the problem persists "
    "there, the details below will help.",
    "zh": "你使用的是 vLLM {have}，比我掌握的最新版本 {newest} 旧。旧版本上报告的 bug 常在后续版本中修复，建议先试用 {newest}"
    "（或最新版本）；如果问题仍然存在，下面的信息有助于定位。",
}
# An abstention on a message that shows no sign of vLLM (`software.names_vllm`), which needs stronger evidence
# (`Settings.min_confidence_unnamed`): how to get the ordinary bar.
UNNAMED = {
    "en": "Your message does not say it is about vLLM, and other engines and tools report problems in the same words, "
    "so I answer such a message only on strong evidence. If you run vLLM, say so (with your vLLM version or the vLLM "
    "command) and ask again.",
    "zh": "你的消息没有说明它是关于 vLLM 的，而其他推理引擎和工具也会用同样的说法描述问题，所以这类消息只有在证据很充分时我才回答。"
    "如果你用的是 vLLM，请说明（附上 vLLM 版本或启动命令）后再问一次。",
}
# What the user's message was read as (`UserSetup.describe()`), so they can see it was read.
READ = {"en": "From your message: {setup}.", "zh": "从你的消息中读到：{setup}。"}
# The details to collect (`answer/collect.py` keeps the ones the message does not give).
COLLECT_HEAD = {"en": "To narrow it down, please collect and share:", "zh": "为了进一步定位，请收集并提供："}
COLLECT = {
    "en": {
        "environment": "the output of `vllm collect-env` (or `python collect_env.py` from the vLLM repository on older "
        "versions);",
        "log": "the full traceback or server log, from the first `Traceback` line to the last error line;",
        "versions": "your vLLM, PyTorch and CUDA versions, and the GPU model(s);",
        "command": "the exact command or code that starts vLLM, with its flags and environment variables;",
        "model": "the model name and, if it is quantized, the quantization method.",
    },
    "zh": {
        "environment": "`vllm collect-env` 的输出（旧版本可使用 vLLM 仓库中的 `python collect_env.py`）；",
        "log": "完整的 traceback 或服务日志，从第一行 `Traceback` 到最后一行错误；",
        "versions": "vLLM、PyTorch、CUDA 的版本，以及 GPU 型号；",
        "command": "启动 vLLM 的完整命令或代码，包括参数和环境变量；",
        "model": "模型名称，如果是量化模型，请说明量化方法。",
    },
}
# Nothing left to ask for: the message has the environment, the log, the command and the model.
COLLECTED = {
    "en": "Your message already has the details I would ask for, so this may be a problem I do not know yet. Search "
    "vLLM's GitHub issues (https://github.com/vllm-project/vllm/issues) for its error line, or open one with what you "
    "pasted here.",
    "zh": "你的消息已经包含了我会询问的信息，这可能是一个我还不了解的问题。可以用报错行搜索 vLLM 的 GitHub issue"
    "（https://github.com/vllm-project/vllm/issues），或者用这里粘贴的内容新建一个 issue。",
}
# A hang names no error to search for: where the vLLM docs say how to make vLLM log where it is stuck.
HANG = {
    "en": "For a hang, the “Enable more logging” section of vLLM's troubleshooting guide "
    "(docs/usage/troubleshooting.md#enable-more-logging) says how to make vLLM log where it is stuck.",
    "zh": "如果是卡住（hang），vLLM 排障指南的 “Enable more logging” 一节"
    "（docs/usage/troubleshooting.md#enable-more-logging）说明了如何让 vLLM 记录卡在哪里。",
}

# A question or paste that instructs the assistant (assistant/text/injection.py): {found} lists what was found.
INSTRUCTIONS = {
    "en": (
        "Your message contains instructions addressed to the assistant ({found}). I do not follow instructions "
        "given in a question or in pasted text, and I state only what my sources say.\n\n"
        "If you have a vLLM problem, describe it and paste the error message or the log without such "
        "instructions; if they came in a log or an issue you pasted, they may be worth reporting to whoever "
        "runs that system."
    ),
    "zh": (
        "你的消息中包含写给助手的指令（{found}）。我不会执行问题或粘贴内容里的指令，只陈述资料来源中的内容。\n\n"
        "如果你遇到的是 vLLM 问题，请描述问题，并粘贴不含此类指令的报错信息或日志；如果这些指令来自你粘贴的日志"
        "或 issue，建议告知该系统的维护者。"
    ),
}

# The message is about another engine and never mentions vLLM (`UserSetup.other_software`): the whole answer.
OTHER_SOFTWARE = {
    "en": (
        "This looks like a problem with {name}, not with vLLM. I know vLLM problems only, so nothing I have is "
        "about it; {name}'s own documentation and issue tracker are the place to look. If you hit it while running "
        "vLLM, paste the vLLM command and its error or log."
    ),
    "zh": (
        "这看起来是 {name} 的问题，而不是 vLLM 的问题。我只了解 vLLM 的问题，因此没有与此相关的资料，"
        "请查阅 {name} 自己的文档和 issue。如果是在运行 vLLM 时遇到的，请粘贴 vLLM 的启动命令及其报错或日志。"
    ),
}

# Pasted code runs another package and the message never imports or names vLLM (`UserSetup.runs_other`).
RUNS_OTHER = {
    "en": (
        "The code you paste runs {name}, not vLLM, and your message does not mention vLLM. I know vLLM problems "
        "only, so nothing I have is about this code. If you hit it while running vLLM, paste the vLLM command or "
        "code and its error or log."
    ),
    "zh": (
        "你粘贴的代码运行的是 {name}，而不是 vLLM，消息中也没有提到 vLLM。我只了解 vLLM 的问题，因此没有与这段代码相关的资料。"
        "如果是在运行 vLLM 时遇到的，请粘贴 vLLM 的启动命令或代码及其报错或日志。"
    ),
}

# The user says vLLM is not involved (`UserSetup.uses_vllm` is False): the whole answer.
NOT_VLLM = {
    "en": (
        "You say vLLM is not involved. I know vLLM problems only, so nothing I have is about this one. If vLLM is "
        "part of it after all, say so and paste the vLLM command and its error or log."
    ),
    "zh": (
        "你提到这个问题与 vLLM 无关。我只了解 vLLM 的问题，因此没有与此相关的资料。"
        "如果问题其实涉及 vLLM，请说明，并粘贴 vLLM 的启动命令及其报错或日志。"
    ),
}

# vLLM runs inside another framework's process (`UserSetup.driver`): that framework chooses the engine's arguments,
# so the fix is its own option, which vLLM's sources do not state. Said in place of ABSTAIN's first line.
DRIVEN = {
    "en": (
        "You run vLLM through {name}, which starts vLLM's engine with the arguments it chooses: what to change is "
        "{name}'s own option for it, and my sources (vLLM's) do not state {name}'s options, so I will not guess at "
        "a fix. {name}'s documentation and issue tracker are the place to look; the vLLM sections below are only "
        "the closest matches, and none of them states a fix for this."
    ),
    "zh": (
        "你是通过 {name} 运行 vLLM 的，vLLM 引擎的参数由 {name} 决定：需要修改的是 {name} 自己的相关配置，"
        "而我的资料（vLLM 的）不包含 {name} 的配置，所以我不会猜测解决方法。请查阅 {name} 的文档和 issue；"
        "下面的 vLLM 条目只是最接近的匹配，都没有给出这个问题的解决方法。"
    ),
}

CLOSEST = {
    "en": "Closest matches (none of them states a fix for this; not confident enough to answer from)",
    "zh": "最接近的条目（都没有给出这个问题的解决方法；置信度不足，仅供参考）",
}

# Applicability of a known problem to the user's setup (assistant/answer/applicability.py).
DETAILS = {
    "en": {
        "gpu": "GPU", "platform": "platform", "version": "vLLM version", "model": "model",
        "quantization": "quantization", "symptom": "symptom", "error": "error message",
    },
    "zh": {
        "gpu": "GPU", "platform": "平台", "version": "vLLM 版本", "model": "模型", "quantization": "量化方式",
        "symptom": "现象", "error": "报错信息",
    },
}  # fmt: skip
FEATURES = {
    "en": {
        "speculative": "speculative decoding", "speculative_method": "speculative decoding method",
        "adaptive_verification": "adaptive verification",
        "cudagraph_mode": "cudagraph_mode", "eager": "eager mode (--enforce-eager)",
        "structured_outputs": "structured outputs", "structured_outputs_backend": "structured-outputs backend",
        "batch_invariant": "VLLM_BATCH_INVARIANT", "deep_gemm": "DeepGEMM kernels",
        "multi_gpu": "more than one GPU (tensor or pipeline parallel)",
    },
    "zh": {
        "speculative": "投机解码", "speculative_method": "投机解码方法", "cudagraph_mode": "cudagraph_mode",
        "adaptive_verification": "自适应验证",
        "eager": "eager 模式（--enforce-eager）", "structured_outputs": "结构化输出",
        "structured_outputs_backend": "结构化输出后端", "batch_invariant": "VLLM_BATCH_INVARIANT",
        "deep_gemm": "DeepGEMM 内核", "multi_gpu": "多张 GPU（张量并行或流水线并行）",
    },
}  # fmt: skip
SYMPTOM_NAMES = {
    "en": {
        "crash": "a crash with an error", "illegal_memory_access": "a CUDA illegal memory access",
        "oom": "running out of memory", "hang": "a hang", "wrong_output": "wrong or garbled output",
        "nondeterministic": "non-deterministic output", "slow": "slowness", "install": "an install or build failure",
    },
    "zh": {
        "crash": "报错崩溃", "illegal_memory_access": "CUDA 非法内存访问", "oom": "显存不足（OOM）", "hang": "卡住无响应",
        "wrong_output": "输出错误或乱码", "nondeterministic": "输出不确定", "slow": "速度慢", "install": "安装或编译失败",
    },
}  # fmt: skip
ON_OFF = {"en": {"on": "on", "off": "off"}, "zh": {"on": "开启", "off": "关闭"}}
QUESTIONS = {
    "en": {
        "gpu": "Which GPU do you run on?",
        "platform": "Which platform do you run vLLM on (NVIDIA CUDA, AMD ROCm, CPU, ...)?",
        "version": "Which vLLM version do you run (vllm --version)?",
        "model": "Which model (checkpoint) do you serve?",
        "quantization": "Is the model quantized, and with which method?",
        "feature": "Do you use {feature}?",
    },
    "zh": {
        "gpu": "您使用的是哪款 GPU？",
        "platform": "您在哪个平台上运行 vLLM（NVIDIA CUDA、AMD ROCm、CPU 等）？",
        "version": "您的 vLLM 版本是多少（vllm --version）？",
        "model": "您部署的是哪个模型（checkpoint）？",
        "quantization": "模型是否量化？用的是哪种量化方法？",
        "feature": "您是否使用了{feature}？",
    },
}
APPLY = {
    "en": {
        "scope": "Applies to",
        "depends": "Whether this applies depends on",
        "ask": "To confirm, tell me",
        "similar_head": "Not the fix here",
        "similar": "a similar known problem, **{title}**, needs {needs} [{n}]; you have {have}, so its fix is not offered.",
        "behind": "a similar known problem, **{title}**, was fixed in {fixed} [{n}]; you run {have}, so it is behind you.",
        "before": "a similar known problem, **{title}**, began in vLLM {began} [{n}]; you run {have}, which predates it, so "
        "its fix is not offered.",
        "you_have": "you have",
    },
    "zh": {
        "scope": "适用条件",
        "depends": "是否适用取决于",
        "ask": "请告诉我",
        "similar_head": "不适用的已知问题",
        "similar": "一个相似的已知问题 **{title}** 需要 {needs} [{n}]；而您的情况是 {have}，因此不提供它的解决方法。",
        "behind": "一个相似的已知问题 **{title}** 已在 {fixed} 修复 [{n}]；您使用的是 {have}，这个问题已不会出现在您的版本中。",
        "before": "一个相似的已知问题 **{title}** 从 vLLM {began} 开始出现 [{n}]；您使用的是 {have}，早于该版本，因此不提供它的解决方法。",
        "you_have": "您的情况",
    },
}
# Whether the user's release is affected by the entry that answers (`scope.release_line`).
RELEASE = {
    "en": {
        "head": "Your release",
        "upgrade": "you run {have}; fixed in {fixed}: upgrade to {fixed} or later.",
        "upgrade_spec": "you run {have}; fixed in releases {fixed}: upgrade.",
        "nightly": "you run {have}; the fix is on main / nightly builds, no release with it is named yet.",
        "affected": "you run {have}, which is affected ({affected}); no release with the fix is known yet.",
        "affected_fixed": "you run {have}, which is affected ({affected}).",
        "began": "this began in vLLM {began}; you run {have}, so it applies to your release.",
        "before": "this began in vLLM {began}; you run {have}, which predates it.",
        "behind": "fixed in {fixed}; you run {have}, so this is behind you: it may be a different problem.",
        "unaffected": "you run {have}; the releases reported affected are {affected}.",
    },
    "zh": {
        "head": "您的版本",
        "upgrade": "您使用的是 {have}；该问题已在 {fixed} 修复：请升级到 {fixed} 或更高版本。",
        "upgrade_spec": "您使用的是 {have}；修复所在的版本为 {fixed}：请升级。",
        "nightly": "您使用的是 {have}；修复已在 main / nightly 构建中，尚无包含它的正式版本。",
        "affected": "您使用的是 {have}，属于受影响版本（{affected}）；目前没有已知的修复版本。",
        "affected_fixed": "您使用的是 {have}，属于受影响版本（{affected}）。",
        "began": "这一行为从 vLLM {began} 开始；您使用的是 {have}，因此适用于您的版本。",
        "before": "这一行为从 vLLM {began} 开始；您使用的是 {have}，早于该版本。",
        "behind": "该问题已在 {fixed} 修复；您使用的是 {have}，您的版本已不受影响：这可能是另一个问题。",
        "unaffected": "您使用的是 {have}；报告受影响的版本为 {affected}。",
    },
}
