"""The user's setup read from English and Chinese questions, pastes and follow-up turns."""

import pytest

from assistant.text.setup import conversation_setup, extract_setup


def test_versions_gpus_models_and_quantization_from_a_paste():
    s = extract_setup(
        "GPU: NVIDIA A100-SXM4-80GB, vllm 0.27.1\n"
        "$ VLLM_BATCH_INVARIANT=1 vllm serve hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4 -tp 2\n"
        "INFO [model.py:547] Resolved architecture: LlamaForCausalLM, with some optimizations disabled"
    )
    assert s.vllm_version == "0.27.1"
    assert [(g.name, g.sms) for g in s.gpus] == [("A100", ("SM80",))]
    assert s.models == ("hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4",)  # not the class, not "optimizations"
    assert s.families == ("llama3.1",)
    assert set(s.quantization) == {"awq", "int4"}
    assert s.features.batch_invariant is True
    assert s.features.tensor_parallel == 2


@pytest.mark.parametrize(
    "text, version",
    [
        ("vLLM API server version 0.26.0", "0.26.0"),
        ("pip install vllm==0.20.1", "0.20.1"),
        ("我们用的 vllm 版本是 0.31.0", "0.31.0"),
        ("on vLLM v0.21.0 with torch 2.13.0", "0.21.0"),
        ("torch 2.13.0, CUDA 12.8, python 3.12", None),
        ("running the nightly build", "nightly"),
        ("xgrammar 0.1.25 crashes", None),
        ("docker run --gpus all vllm/vllm-openai:v0.10.1 --model m", "0.10.1"),  # the image tag
        ("docker run vllm/vllm-openai:latest --model m", None),
    ],
)
def test_vllm_version_is_told_apart_from_other_packages(text, version):
    assert extract_setup(text).vllm_version == version


@pytest.mark.parametrize(
    "text, sms",
    [
        ("on our old V100 cluster", ("SM70",)),
        ("卡是 L40S", ("SM89",)),
        ("Qwen3-8B-AWQ 在 3090 上输出全是感叹号", ("SM86",)),
        ("RTX PRO 6000 Blackwell", ("SM120",)),
        ("a Blackwell box", ("SM100", "SM120")),
        ("MI300X", ("gfx942",)),
    ],
)
def test_gpu_names_become_sm_codes(text, sms):
    assert extract_setup(text).sms == sms


@pytest.mark.parametrize(
    "text, expected",
    [
        ("CUDA error: an illegal memory access was encountered", {"illegal_memory_access"}),
        ("torch.OutOfMemoryError: CUDA out of memory while allocating the KV cache", {"oom"}),
        ("vllm serve has been stuck at 'Loading model' for 20 minutes", {"hang"}),
        ("the output is garbled, token loops like *75*75*75", {"wrong_output"}),
        ("same prompt gives different logprobs depending on the batch", {"nondeterministic"}),
        ("My AWQ model is slow, throughput is way lower than FP16", {"slow"}),
        ("pip install vllm fails: failed to build wheel", {"install"}),
        ("RuntimeError: not home_path.empty()", {"crash"}),
        ("A100 上 AWQ 模型吞吐很低", {"slow"}),
        ("输出全是乱码", {"wrong_output"}),
        ("启动就报错崩溃", {"crash"}),
        ("显存不足，OOM 了", {"oom"}),
        ("Structured outputs returns invalid JSON. No crash, the server keeps running.", {"wrong_output"}),
        # the OpenAI client's exception for a refused request: an error, as a 500 is
        ("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'x'}", {"crash"}),
        ("请求失败：Error code: 400 - {'message': 'At most 1 image(s) may be provided in one request.'}", {"crash"}),
        ("多卡推理一直卡在 NCCL 初始化，不继续加载模型", {"hang"}),
        ("两张卡在跑同一个模型，显存不足", {"oom"}),  # "卡在" after a count of cards is not "stuck at"
        ("I delete the LLM and call the garbage collector, but the GPU memory is not freed", set()),
    ],
)
def test_symptom_classes_in_english_and_chinese(text, expected):
    assert set(extract_setup(text).symptoms) == expected


def test_the_periodic_metrics_line_is_not_a_symptom():
    stats = (
        "INFO 03-02 10:00:01 [loggers.py:123] Engine 000: Avg prompt throughput: 512.0 tokens/s, "
        "Avg generation throughput: 40.5 tokens/s, Running: 12 reqs, Waiting: 0 reqs, GPU KV cache usage: 30.1%"
    )
    assert extract_setup(f"requests are stuck after an hour, the last log line:\n{stats}").symptoms == ("hang",)
    assert extract_setup(stats).symptoms == ()
    # the user's own words about speed still count
    assert "slow" in extract_setup(f"generation is far too slow:\n{stats}").symptoms


def test_the_install_command_and_the_environment_a_report_shows_are_not_its_symptom():
    report = (
        "[Bug]: Qwen3 MoE crashes at start-up\n\n### Your current environment\n\n```text\nPyTorch version: 2.7.0\n"
        "Is debug build: False\nCUDA used to build PyTorch: 12.6\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
        "Python version: 3.12.3\n```\n\n### How you are installing vllm\n\n```sh\npip install vllm==0.9.0\n```\n\n"
        "### Describe the bug\n\nThe server crashes while loading the weights."
    )
    assert extract_setup(report).symptoms == ("crash",)
    assert extract_setup("pip install vllm==0.9.0\nthen the server crashes at start-up").symptoms == ("crash",)
    assert extract_setup("pip install vllm fails: failed to build wheel").symptoms == ("install",)  # its own problem


def test_features_on_off_and_unmentioned():
    on = extract_setup(
        '--speculative-config \'{"method":"dspark","num_speculative_tokens":5}\' '
        '--compilation-config \'{"cudagraph_mode":"FULL_AND_PIECEWISE"}\' structured outputs with guidance'
    ).features
    assert (on.speculative, on.speculative_method, on.cudagraph_mode) == (True, "dspark", "FULL_AND_PIECEWISE")
    assert (on.structured_outputs, on.structured_outputs_backend) == (True, "guidance")
    assert on.eager is None and on.batch_invariant is None

    off = extract_setup("no speculative decoding, no structured outputs involved, with --enforce-eager").features
    assert (off.speculative, off.structured_outputs, off.eager, off.cudagraph_mode) == (False, False, True, "NONE")
    zh = extract_setup("没开投机解码，--tool-call-parser 用的是 hermes").features
    assert zh.speculative is False


def test_a_planned_change_is_not_the_current_setting():
    s = extract_setup("Is it safe to switch cudagraph_mode to FULL_DECODE_ONLY with DSpark?")
    assert s.features.cudagraph_mode is None
    assert s.features.speculative_method == "dspark"


def test_unquantized_only_when_no_method_is_named():
    assert extract_setup("the bf16 Qwen3-8B is fine").quantization == ("none",)
    assert extract_setup("bf16 is fine but the AWQ version differs").quantization == ("awq",)
    assert extract_setup("Qwen3-8B differs").quantization == ()


def test_the_conversation_adds_up_later_turns_override():
    s = conversation_setup("A100", ["VLLM_BATCH_INVARIANT=1 with an AWQ model on vLLM 0.27.1, outputs differ"])
    assert s.sms == ("SM80",)
    assert s.vllm_version == "0.27.1" and s.quantization == ("awq",)
    assert s.symptoms == ("nondeterministic",)  # the follow-up names none: the earlier turn's stays
    again = conversation_setup("and on an H100?", ["crash on an A100"])
    assert again.sms == ("SM90",)


@pytest.mark.parametrize(
    "text, uses",
    [
        ("my own training script, no vllm involved: CUDA error: an illegal memory access", False),
        ("没用 vllm，直接用 transformers 推理也报这个错", False),
        ("not using vLLM here, plain HF generate: OOM", False),
        ("vllm serve crashes with an illegal memory access", True),
        ("RuntimeError: not home_path.empty() when vllm serve loads DeepGEMM", True),  # "not" belongs to the error
        ("it's not vllm's fault I think: vllm serve dies after the driver update", True),  # one mention is not negated
        ("CUDA error: an illegal memory access was encountered", None),
    ],
)
def test_the_user_can_say_vllm_is_not_involved(text, uses):
    assert extract_setup(text).uses_vllm is uses
    assert conversation_setup("and on an H100?", [text]).uses_vllm is uses  # kept over a follow-up that is silent


@pytest.mark.parametrize(
    "text, other",
    [
        ("ollama run llama3.1:70b Error: llama runner process has terminated", "Ollama"),
        ("llama_model_load: error loading model: unknown model architecture", "llama.cpp"),
        ("DeepSpeed ZeRO-3 run dies at step 1200: CUDA error: an illegal memory access", "DeepSpeed"),
        ("用 sglang 部署 Qwen2.5-72B，启动报 RuntimeError", "SGLang"),
        ("TGI won't start on our V100s: shard-manager exited", "Text Generation Inference"),
        ("sglang launch_server fails, and vllm serve works on the same box", None),  # vLLM is in it
        ("we switched from Ollama and now get 400s on tool calls", None),  # where they came from, not what they run
        ("migrated over from LocalAI last week, streaming stopped working", None),
        ("tool calls always come back with empty content from Ollama", "Ollama"),  # where the reply comes from
        ("the error from LocalAI says the backend is not reachable", "LocalAI"),
        ("throughput is half of what TGI gave us on the same model", None),
        ("DeepSpeedFP quantization fails to load the checkpoint", None),  # a vLLM quantization method
        ("CUDA error: an illegal memory access was encountered", None),
    ],
)
def test_a_message_about_another_engine_that_never_mentions_vllm(text, other):
    assert extract_setup(text).other_software == other
    assert conversation_setup("any idea?", [text]).other_software == other  # a silent follow-up keeps it
    assert conversation_setup("it is vllm serve actually", [text]).other_software is None


@pytest.mark.parametrize(
    "text",
    [
        "a GGUF converted with llama.cpp's convert script fails to load: ValueError: unknown tensor type",
        "GPTQ model: use_exllama is ignored and the exllama kernel asserts on my T4",
        "loading a Megatron-style sharded checkpoint fails with KeyError: 'layers.0.attn.qkv'",
    ],
)
def test_names_vllm_itself_uses_do_not_make_a_message_about_another_engine(text):
    assert extract_setup(text).other_software is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("vllm serve x --tensor-parallel-size 2 hangs", True),
        ("on 2x RTX 4090 it hangs", True),
        ("两张卡跑 TP 卡住", True),
        ("--pipeline-parallel-size 2", True),
        ("--tensor-parallel-size 1", False),
        ("it hangs on my A100", None),
        ("not using multiple GPUs, a single A100", None),
    ],
)
def test_multi_gpu(text, expected):
    assert extract_setup(text).features.multi_gpu is expected


def test_platforms_named_are_read():
    assert extract_setup("ROCm 6.2 on an MI300X").platforms == frozenset({"rocm"})
    assert extract_setup("CPU-only server, no GPU").platforms == frozenset({"cpu"})
    assert extract_setup("it crashes").platforms == frozenset()


def test_a_loggers_words_and_the_templates_are_not_a_complaint_about_speed():
    paste = (
        "[Performance]: Qwen2.5-72B fails to start on two GPUs\n\n### Misc discussion on performance\n\n"
        "WARNING 11-25 10:47:23 config.py:140] awq quantization is not fully optimized yet. The speed can be slower "
        "than non-quantized models.\n"
        "Processed prompts: 100%|██████| 1/1 [00:00<00:00, 3.49it/s, est. speed input: 660.00 toks/s]\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered"
    )
    assert extract_setup(paste).symptoms == ("illegal_memory_access",)
    assert "slow" in extract_setup(paste + "\nand before that, generation was very slow").symptoms


@pytest.mark.parametrize(
    "text, gpus, models, quantization",
    [
        ("在A100上跑Qwen2.5-7B-Instruct报错", ["A100"], ("Qwen2.5-7B-Instruct",), ()),
        ("两张4090跑vllm，显存不够", ["RTX 4090"], (), ()),
        ("用T4跑AWQ模型", ["T4"], (), ("awq",)),
        ("8卡H100上部署DeepSeek-R1，启动就报错", ["H100"], ("DeepSeek-R1",), ()),
        ("Qwen1.5-72B-Chat-GPTQ-Int4居然资源出错", [], ("Qwen1.5-72B-Chat-GPTQ-Int4",), ("gptq", "int4")),
    ],
)
def test_names_written_against_chinese_text(text, gpus, models, quantization):
    """Chinese has no spaces: a card, a model or a method ends, and starts, where the Chinese characters do."""
    setup = extract_setup(text)
    assert [g.name for g in setup.gpus] == gpus
    assert setup.models == models
    assert setup.quantization == quantization


@pytest.mark.parametrize(
    "text, symptoms, platforms",
    [
        ("显存OOM了", ("oom",), set()),
        ("启动时hang住了", ("hang",), set()),
        ("在ROCm上跑vllm报错", ("crash",), {"rocm"}),
        ("用CPU跑vllm很慢", ("slow",), {"cpu"}),
        ("CPU内存不够", (), set()),  # the host's memory, not vLLM's CPU backend
    ],
)
def test_symptoms_and_platforms_written_against_chinese_text(text, symptoms, platforms):
    setup = extract_setup(text)
    assert setup.symptoms == symptoms
    assert set(setup.platforms) == platforms


def test_a_tensor_parallel_size_written_against_chinese_text():
    assert extract_setup("设置tensor_parallel_size=2时报错").features.tensor_parallel == 2
