"""Fixed wording of answers in each language (labels and the abstention guidance)."""

from __future__ import annotations

LABELS = {
    "en": {
        "root_cause": "Root cause",
        "fix": "Fix",
        "workarounds": "Workarounds",
        "affected": "Affected versions",
        "fixed_in": "Fixed in",
        "hardware": "Hardware",
        "models": "Models",
        "references": "References",
        "see_also": "Also relevant",
        "sources": "Sources",
        "from_docs": "From the vLLM documentation",
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
        "hardware": "硬件",
        "models": "模型",
        "references": "参考",
        "see_also": "其他相关内容",
        "sources": "来源",
        "from_docs": "来自 vLLM 官方文档（英文）",
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
    "en": (
        "I could not find this problem in the knowledge base or the vLLM documentation I have, so I will not "
        "guess at a fix.\n\n"
        "To narrow it down, please collect and share:\n"
        "- the output of `vllm collect-env` (or `python collect_env.py` from the vLLM repository on older versions);\n"
        "- the full traceback or server log, from the first `Traceback` line to the last error line;\n"
        "- your vLLM, PyTorch and CUDA versions, and the GPU model(s);\n"
        "- the exact command or code that starts vLLM, with its flags and environment variables;\n"
        "- the model name and, if it is quantized, the quantization method."
    ),
    "zh": (
        "在知识库和现有的 vLLM 文档中没有找到这个问题，我不会猜测解决方法。\n\n"
        "为了进一步定位，请收集并提供：\n"
        "- `vllm collect-env` 的输出（旧版本可使用 vLLM 仓库中的 `python collect_env.py`）；\n"
        "- 完整的 traceback 或服务日志，从第一行 `Traceback` 到最后一行错误；\n"
        "- vLLM、PyTorch、CUDA 的版本，以及 GPU 型号；\n"
        "- 启动 vLLM 的完整命令或代码，包括参数和环境变量；\n"
        "- 模型名称，如果是量化模型，请说明量化方法。"
    ),
}

CLOSEST = {"en": "Closest matches (not confident enough to answer from)", "zh": "最接近的条目（置信度不足，仅供参考）"}
