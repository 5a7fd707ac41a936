"""Questions and strings whose answers the curated corpus fixes; shared so a test says which one it means."""

KNOWN = "RuntimeError: not home_path.empty()"  # the error of corpus/entries/deepgemm-fp8-home-path-empty.yaml
KNOWN_ENTRY = "deepgemm-fp8-home-path-empty"
KNOWN_TITLE = "DeepGEMM crash"  # how that entry's title starts
KNOWN_FIX = "VLLM_USE_DEEP_GEMM=0"
UNKNOWN = "How long should I proof sourdough bread before baking it?"  # nothing in the corpus: an abstention
SECRET = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"  # shaped like a Hugging Face token, for the masking tests
