"""Chinese→English domain vocabulary for cross-lingual retrieval (dictionary-based query translation).

The embedding model reads English only, and the documentation is English: a Chinese question is
given an English rendering of its domain terms, used by the dense channel and added to the lexical one.
General LLM-serving vocabulary only, never wording taken from a particular question.
"""

from __future__ import annotations

import re

from assistant.text.vocab import CJK_CHARS, CJK_PUNCT

_CJK_TEXT = re.compile(f"[{CJK_CHARS}{CJK_PUNCT}]+")

GLOSSARY: dict[str, str] = {
    # failures
    "崩溃": "crash", "挂掉": "crash", "挂了": "crash", "宕机": "crash dead", "报错": "error", "错误": "error",
    "异常": "exception error", "失败": "failed", "卡住": "hang stuck", "卡死": "hang", "挂起": "hang",
    "无响应": "hang not responding", "死锁": "deadlock", "超时": "timeout", "段错误": "segmentation fault",
    "非法内存访问": "illegal memory access", "内存访问": "memory access", "越界": "out of bounds",
    "显存不足": "out of memory CUDA OOM", "内存不足": "out of memory OOM", "爆显存": "out of memory OOM",
    "显存": "GPU memory", "内存": "memory", "溢出": "overflow", "泄漏": "leak", "泄露": "leak",
    "不支持": "not supported", "找不到": "not found", "无法": "cannot unable", "不能": "cannot",
    "重启": "restart", "退出": "exit", "被杀": "killed", "中断": "interrupted",
    # outputs and quality
    "乱码": "garbled output gibberish", "重复": "repetition repeated loop", "循环": "loop", "输出": "output",
    "结果": "result output", "不一致": "inconsistent differ", "不同": "different differ",
    "非确定性": "nondeterministic non-deterministic", "不确定": "nondeterministic", "确定性": "deterministic",
    "可复现": "reproducible", "复现": "reproduce", "随机种子": "random seed", "种子": "seed",
    "批次不变性": "batch invariance batch invariant", "批次": "batch", "批处理": "batch", "批大小": "batch size",
    "质量": "quality", "变差": "worse degraded", "精度": "accuracy precision", "准确率": "accuracy",
    # serving and performance
    "推理": "inference reasoning", "服务": "server serving", "部署": "deploy deployment", "启动": "start startup launch",
    "加载": "load loading", "下载": "download", "请求": "request", "并发": "concurrency concurrent",
    "吞吐": "throughput", "吞吐量": "throughput", "延迟": "latency", "速度": "speed", "慢": "slow",
    "性能": "performance", "优化": "optimization tuning", "调优": "tuning", "抢占": "preemption",
    "缓存": "cache", "上下文": "context", "上下文长度": "context length max model len", "长度": "length",
    "分块预填充": "chunked prefill", "预填充": "prefill", "解码": "decode decoding",
    # features
    "量化": "quantization quantized", "投机解码": "speculative decoding", "推测解码": "speculative decoding",
    "草稿模型": "draft model", "结构化输出": "structured outputs", "语法": "grammar", "工具调用": "tool calling tool call",
    "函数调用": "function calling", "思考模式": "thinking reasoning mode", "推理模式": "reasoning mode",
    "聊天模板": "chat template", "模板": "template", "编译": "compile compilation", "内核": "kernel",
    "算子": "kernel operator", "图捕获": "graph capture", "模型": "model", "权重": "weights",
    "分词器": "tokenizer", "采样": "sampling", "温度": "temperature", "日志": "log logging", "调试": "debug",
    "环境变量": "environment variable", "参数": "argument parameter", "配置": "config configuration",
    "版本": "version", "升级": "upgrade", "降级": "downgrade", "安装": "install installation",
    "源码": "source build", "构建": "build", "编译器": "compiler", "工具包": "toolkit", "驱动": "driver",
    # parallelism and hardware
    "分布式": "distributed", "多卡": "multi-GPU tensor parallel", "多机": "multi-node", "多节点": "multi-node",
    "张量并行": "tensor parallelism", "流水线并行": "pipeline parallelism", "数据并行": "data parallelism",
    "专家并行": "expert parallelism", "通信": "communication NCCL", "网络": "network", "网卡": "network interface",
    "多进程": "multiprocessing", "进程": "process", "显卡": "GPU", "多模态": "multimodal", "图片": "image",
}

_KEYS = sorted(GLOSSARY, key=len, reverse=True)


def translate_terms(text: str) -> list[str]:
    """English renderings of the domain terms found in `text`, longest match first, each once."""
    found: list[str] = []
    rest = text
    for key in _KEYS:
        if key in rest:
            found.append(GLOSSARY[key])
            rest = rest.replace(key, " ")
    return list(dict.fromkeys(found))


def english_view(text: str) -> str:
    """What an English-only embedding model can use of a Chinese text: its Latin parts and term renderings."""
    latin = " ".join(_CJK_TEXT.sub(" ", text).split())
    return " ".join([latin, *translate_terms(text)]).strip()
