from assistant.text.lang import detect_lang
from assistant.text.tokenize import tokenize


def test_env_var_kept_whole_and_by_name():
    toks = tokenize("export VLLM_USE_DEEP_GEMM=0")
    assert "vllm_use_deep_gemm=0" in toks
    assert "vllm_use_deep_gemm" in toks


def test_flag_kept_whole():
    toks = tokenize("try --enforce-eager")
    assert "--enforce-eager" in toks and "enforce-eager" in toks


def test_call_expression_kept_whole():
    toks = tokenize("RuntimeError: not home_path.empty()")
    assert "home_path.empty()" in toks
    assert "home_path" in toks
    assert "runtimeerror" in toks


def test_arch_and_model_names():
    toks = tokenize("SM80 with Qwen3-8B-AWQ")
    assert "sm80" in toks
    assert "qwen3-8b-awq" in toks
    assert "awq" in toks  # a bare "AWQ" in a question meets the model name


def test_chinese_is_segmented_and_identifiers_survive():
    toks = tokenize("在 SM80 GPU 上，VLLM_BATCH_INVARIANT=1 对 AWQ 模型不具备批次不变性")
    assert "vllm_batch_invariant=1" in toks
    assert "批次" in toks and "模型" in toks
    assert "的" not in toks
    assert not any("_" == t for t in toks)


def test_plural_folding():
    assert tokenize("crashes GPUs batches") == ["crash", "gpu", "batch"]


def test_language_detection():
    assert detect_lang("RuntimeError: not home_path.empty()") == "en"
    assert detect_lang("为什么 VLLM_USE_DEEP_GEMM=0 有用") == "zh"


def test_stopwords_are_dropped_before_plural_folding():
    # "this" and "does" are stopwords; folded first they became "thi" and "doe" and counted as words
    assert tokenize("this does not crash") == ["crash"]


def test_compute_capability_spellings_meet_the_sm_code():
    assert tokenize("Ampere to SM 8.0/8.6")[-2:] == ["sm80", "sm86"]
    assert "sm75" in tokenize("GPU: compute capability 7.5 or higher")
    assert "sm90" in tokenize("built for sm_90")
    assert tokenize("SM80") == ["sm80"]  # the compact form is not counted twice
    assert not [t for t in tokenize("smart 3.5 version") if t[:2] == "sm" and t[2:].isdigit()]
