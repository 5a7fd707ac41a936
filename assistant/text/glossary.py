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
    "节点": "node", "单机": "single node", "机器": "machine node", "切分": "split shard", "拆分": "split",
    "整除": "divisible", "除不尽": "not divisible", "注意力头": "attention heads", "头数": "number of heads",
    "英伟达": "NVIDIA", "昇腾": "Ascend NPU", "容器": "container docker", "镜像": "image docker image",
    # progress, waiting, responses
    "卡在": "stuck hang", "停在": "stuck at hang", "不动": "stuck no progress", "没反应": "no response hang",
    "没有反应": "no response hang", "进度": "progress", "没进度": "no progress", "没有进度": "no progress",
    "等待": "waiting", "一直": "keeps always", "响应": "response", "返回": "return returns",
    # downloads, files, places
    "本地": "local locally", "离线": "offline", "在线": "online", "下载过": "downloaded cached", "文件": "file",
    "路径": "path", "目录": "directory", "端口": "port", "接口": "API endpoint", "客户端": "client", "服务端": "server",
    # variation between runs
    "波动": "variance fluctuation", "差别": "difference differ", "差异": "difference differ", "区别": "difference",
    "细微": "slight small", "每次": "each run every time", "稳定": "stable", "不稳定": "unstable",
    "随机": "random", "偶尔": "sometimes intermittent", "偶发": "intermittent", "有时": "sometimes",
    # constraining and formatting output
    "选项": "choices options", "限制": "limit constrain restrict", "约束": "constrain constraint", "固定": "fixed",
    "格式": "format", "正则": "regex", "截断": "truncated truncate", "停止": "stop", "生成": "generate generation",
    "流式": "streaming stream", "提示词": "prompt", "系统提示": "system prompt", "长文本": "long context",
    "最大长度": "max length max model len", "上下文窗口": "context window",
    # checking and working around
    "测试": "test", "检查": "check", "测一下": "test check", "排查": "troubleshoot debug", "诊断": "diagnose",
    "正常": "normal works", "绕过": "workaround bypass", "规避": "workaround avoid", "临时": "temporary workaround",
    "解决": "fix solve", "设置": "set setting", "开启": "enable enabled", "关闭": "disable disabled", "禁用": "disable",
    "启用": "enable", "默认": "default", "支持": "support supported",
    # memory and capacity
    "占用": "usage", "利用率": "utilization", "分配": "allocate allocation", "预留": "reserve", "块": "blocks",
    "容量": "capacity", "不够": "not enough insufficient", "太大": "too large", "太长": "too long",
    # models and tasks
    "嵌入": "embedding", "向量": "embedding vector", "重排": "rerank reranker", "分类": "classification",
    "微调": "fine-tune fine-tuned", "适配器": "adapter", "视觉": "vision", "视频": "video", "音频": "audio",
    "首字延迟": "time to first token TTFT", "预热": "warmup", "加速": "speedup faster", "指标": "metrics",
    "监控": "monitoring", "批量": "batch", "调用": "call",
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
