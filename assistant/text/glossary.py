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
    # --- general vocabulary of the docs, in the words Chinese users type (derived from the docs' frequent terms)
    # turning things on and off, forcing, choosing
    "强制": "force forced enforce", "强行": "force forced", "指定": "specify specified specific",
    "切换": "switch switching", "开关": "switch toggle option flag", "选择": "select choose selection",
    "打开": "enable enabled open", "关掉": "disable off", "去掉": "remove disable", "手动": "manual manually",
    "自动": "automatic automatically auto", "优先级": "priority precedence",
    # passing values and arguments
    "传入": "pass passed", "传参": "pass arguments", "设为": "set", "标志": "flag flags", "命令": "command commands",
    "配置项": "config option setting", "阈值": "threshold",
    # whether a setting takes effect
    "生效": "effect applied", "不生效": "no effect ignored", "覆盖": "override overridden", "忽略": "ignore ignored",
    "跳过": "skip skipped",
    # changing and adjusting
    "修改": "change modify modified", "调整": "adjust tune", "替换": "replace replaced", "删除": "remove removed",
    "清除": "clear cleared remove", "添加": "add adding", "增加": "increase add", "调大": "increase larger",
    "调高": "increase higher", "提高": "improve increase higher", "提升": "improve increase",
    "减少": "reduce decrease fewer", "降低": "reduce lower decrease", "调小": "reduce smaller decrease",
    "调低": "reduce lower decrease",
    # running, stopping, retrying
    "运行": "run running", "执行": "execute execution run", "跑不起来": "cannot run failed", "起服务": "launch server serve",
    "启动不了": "cannot start failed", "起不来": "cannot start failed", "重试": "retry",
    "取消": "abort stop", "终止": "abort terminates stop", "运行时": "runtime", "运行时间": "running time",
    "初始化": "initialize init initializing", "释放": "free release",
    # installing, upgrading, removing
    "卸载": "uninstall", "重装": "install again uninstall", "重新安装": "install again",
    "装不上": "install failed cannot install", "更新": "update updated upgrade", "回退": "older version falls back",
    "预下载": "pre-download", "拉取": "pull fetch", "导入": "import imported", "注册": "register registered",
    "修复": "fix fixed fixes",
    # building from source
    "重新编译": "rebuild recompile compile", "预编译": "precompiled pre-compiled", "预构建": "pre-built",
    "编译不过": "compile failed build", "交叉编译": "cross-compilation", "工具链": "toolchain", "可编辑": "editable",
    # dependencies, packages, libraries
    "依赖": "dependency dependencies", "冲突": "conflict incompatible", "兼容": "compatible compatibility",
    "不兼容": "incompatible incompatibility", "匹配": "match matches", "安装包": "package wheel", "轮子": "wheel wheels",
    "动态库": "shared library lib", "头文件": "header headers file", "符号": "symbol", "未定义": "undefined",
    "虚拟环境": "virtual environment", "环境": "environment",
    # versions and releases
    "夜间版": "nightly", "稳定版": "stable release", "发布": "release released", "最新": "latest recent",
    "旧版": "older version old", "弃用": "deprecation", "废弃": "deprecation removed", "实验性": "experimental",
    # permissions, security, credentials
    "权限": "permissions privileges", "管理员": "admin administrator root", "特权": "privileged privileges",
    "密钥": "key secret", "令牌": "token", "安全": "security safe", "信任": "trust", "远程代码": "remote code",
    # containers and deployment
    "宿主机": "host machine", "挂载": "mount volumes", "上线": "production deploy", "服务器": "server",
    "扩容": "scale-out scaling", "脚本": "script",
    # components of the engine
    "后端": "backend", "前端": "frontend", "执行器": "executor", "工作进程": "worker process", "调度器": "scheduler",
    "调度": "scheduling schedule", "解析器": "parser", "解析": "parse parsing parser", "引擎": "engine", "队列": "queue",
    "排队": "queue waiting pending", "操作系统": "operating system linux", "架构": "architecture arch",
    "模块": "module modules", "插件": "plugin plugins", "内置": "built-in", "原生": "native", "自定义": "custom",
    # processes and threads
    "主进程": "main process parent", "子进程": "subprocess child process", "线程": "thread threads", "核数": "cores",
    "同步": "synchronize synchronization", "异步": "async", "阻塞": "blocking",
    # networking
    "连接": "connection connect", "连不上": "cannot connect connection", "断开": "connection closing",
    "监听": "bind host port", "访问": "access", "地址": "address ip", "端点": "endpoint endpoints", "主机": "host machine",
    "本机": "localhost local", "内网": "internal private network", "外网": "internet external",
    "联网": "internet network online", "端口占用": "port already used", "负载": "load workload", "负载均衡": "load balancing",
    # requests and responses
    "请求头": "request header headers", "状态码": "status code", "状态": "state status", "每个请求": "per request each request",
    "每秒": "per second", "限流": "rate limit",
    # cluster and multi-GPU
    "集群": "cluster", "实例": "instance instances", "副本": "replica replicated", "主节点": "head node master",
    "工作节点": "worker node", "并行": "parallel parallelism", "并行度": "parallel size degree", "卡数": "number of gpus",
    "单卡": "single GPU", "每张卡": "per GPU each", "跨节点": "cross-node inter-node multi-node",
    "跨机": "cross-node multi-node", "卡间": "gpu-to-gpu peer-to-peer", "点对点": "peer-to-peer",
    # hardware and vendors
    "算力": "compute capability", "计算能力": "compute capability", "消费级": "consumer", "数据中心": "datacenter",
    "英特尔": "intel",
    # model families and hubs, as Chinese users name them
    "千问": "qwen", "通义千问": "qwen", "深度求索": "deepseek", "智谱": "glm zai-org", "月之暗面": "kimi moonshotai",
    "混元": "hunyuan tencent", "文心": "ernie baidu", "羊驼": "llama", "魔搭": "modelscope",
    "抱抱脸": "hugging face huggingface",
    # memory, disk and other resources
    "共享内存": "shared memory shm", "共享": "shared share", "交换": "swap swapping exchange", "空间": "space",
    "磁盘": "disk storage", "空闲": "idle free", "峰值": "peak", "占满": "full maxed usage", "拉满": "full maxed",
    "耗尽": "exhaustion", "剩余": "remainder free rest", "可用": "available", "爆内存": "out of memory OOM",
    "资源": "resource resources",
    # sizes, counts and limits
    "大小": "size", "数量": "number count", "上限": "limit maximum cap", "下限": "minimum", "最大": "max maximum",
    "最小": "min minimum", "最多": "at most maximum", "至少": "at least minimum", "比例": "fraction percentage",
    "超过": "exceeds exceeding", "超出": "exceeds out of", "不足": "insufficient not enough", "足够": "enough sufficient",
    "太多": "too many excessive", "太小": "too small", "过大": "too large excessive", "过长": "too long exceeds",
    "大于": "greater than", "小于": "less than", "以上": "above", "以下": "below following",
    # cost and performance
    "太慢": "too slow", "变慢": "slow slower slowing", "更快": "faster", "卡顿": "slow latency stuck", "瓶颈": "bottleneck",
    "开销": "overhead cost", "权衡": "trade-off tradeoff", "耗时": "time latency slow", "时间": "time",
    "冷启动": "startup time first", "响应时间": "response time latency", "高并发": "high-concurrency concurrency",
    "基准测试": "benchmark benchmarking", "压测": "benchmark load test", "评测": "evaluation benchmark eval",
    "统计": "statistics stats", "性能分析": "profiling profiler", "追踪": "trace tracing tracking",
    # tensors, values and types
    "张量": "tensor tensors", "形状": "shape", "动态": "dynamic dynamically", "静态": "static statically", "序列": "sequence",
    "浮点": "float floating-point", "字符串": "string", "函数": "function", "类型": "type types", "数据类型": "dtype data type",
    "变量": "variable", "计算图": "graph compute", "图模式": "graph mode cudagraph",
    # quantization
    "反量化": "dequantizes quantization", "缩放": "scale scaling scales", "比特": "bit bits", "稀疏": "sparse",
    "无损": "lossless", "校准": "calibration calibrated",
    # model internals
    "检查点": "checkpoint checkpoints", "分片": "shard sharded shards", "层数": "layers number", "注意力": "attention",
    "专家": "expert experts moe", "混合专家": "mixture of experts moe", "激活": "activation activations",
    "分词": "tokenize tokenization", "词元": "token tokens", "编码器": "encoder", "解码器": "decoder",
    "编码": "encoding encode", "池化": "pooling", "特殊标记": "special tokens", "结束符": "eos stop token",
    "终止符": "eos stop token", "前缀": "prefix",
    # inputs, chat and tasks
    "输入": "input inputs", "对话": "chat conversations", "多轮": "multi-turn", "角色": "role roles", "用户": "user users",
    "补全": "completion completions", "打分": "score scores", "相似度": "similarity cosine", "排序": "sorted rank",
    "概率": "probabilities probs", "对数概率": "logprobs", "数据集": "dataset datasets", "数据": "data",
    "训练": "training train", "思维链": "reasoning thinking", "工具": "tool tools",
    # sampling and caching
    "贪心": "greedy", "贪婪": "greedy", "惩罚": "penalty penalties", "命中": "hit", "失效": "invalidate invalid",
    "分块": "chunked chunking chunk", "分段": "piecewise segment", "分批": "batches batched",
    # multimodal and text
    "图像": "image images", "帧数": "frames", "分辨率": "resolution", "像素": "pixels", "语音": "speech audio",
    "转录": "transcription transcriptions", "翻译": "translation translate", "文本": "text",
    "纯文本": "plain text text-only", "中文": "non-english language", "英文": "english", "多语言": "languages non-english",
    # empty, malformed, missing or unrecognized things
    "空输出": "empty output", "为空": "empty", "空值": "null empty", "不完整": "truncated not complete",
    "停不下来": "never stops stop", "死循环": "loop unbounded hang", "格式错误": "malformed invalid format",
    "符合": "conforming valid match", "有效": "valid effective", "无效": "invalid", "非法": "invalid illegal",
    "正确": "correct correctly", "损坏": "corrupted broken", "缺失": "missing", "缺少": "missing lack", "丢失": "missing",
    "不存在": "non-existing missing", "未找到": "not found", "没找到": "not found", "未知": "unknown",
    "识别": "identify recognizing", "无法识别": "unrecognized cannot", "未识别": "unrecognized unknown",
    "多余": "extra unnecessary excess", "额外": "extra additional",
    # errors and diagnostics
    "抛出": "raise raised thrown", "警告": "warning warnings", "信息": "information info message",
    "消息": "message messages", "堆栈": "stack traceback trace", "调用栈": "stack trace traceback",
    "日志级别": "log level logging", "详细": "detailed verbose", "断点": "breakpoint breakpoints",
    "定位": "identify locating debug", "原因": "reason cause", "导致": "cause causes lead", "取决于": "depends depending",
    "故障": "fault issue", "打印": "print", "检测": "detect detected check", "验证": "verify validation",
    "校验": "validation verify check",
    # files and storage
    "文件夹": "folder directory", "子目录": "subdirectory", "主目录": "home directory", "家目录": "home directory",
    "绝对路径": "absolute path", "文件系统": "filesystem", "存储": "storage store", "保存": "save saved store",
    "读取": "read reading load", "写入": "write writing", "映射": "map mapping", "转换": "convert conversion",
    # scope, timing and frequency
    "每个": "each per every", "全局": "global", "完整": "complete full entire", "之前": "before previously",
    "之后": "after later", "同时": "simultaneously concurrently", "多次": "multiple times repeatedly", "频繁": "frequently",
    "总是": "always", "始终": "always", "期间": "during", "阶段": "phase stage", "相同": "same identical",
    "一样": "same identical", "不一样": "different differ",
    # kinds of things and requirements
    "通用": "generic general", "特定": "specific particular", "独立": "standalone independent separate",
    "单独": "separate individually alone", "可选": "optional", "必须": "must required mandatory",
    "必填": "required mandatory", "推荐": "recommended recommend", "建议": "recommend recommended",
    # documentation and ways of solving
    "文档": "documentation docs", "官方": "official", "教程": "guide quickstart", "示例": "example examples",
    "步骤": "steps step", "流程": "workflow steps flow", "方案": "solution workaround", "办法": "solution way workaround",
    "模式": "mode", "策略": "strategy policy",
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
