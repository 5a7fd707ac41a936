"""The declared sources (`corpus/sources.yaml`): a typed list, validated with messages that name the file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from assistant.errors import ConfigError
from assistant.release.fetch import release_version
from assistant.settings import REPO_ROOT
from assistant.text.vocab import RELEASE_TAG

_NAME = r"^[a-z0-9][a-z0-9._-]{0,63}$"
_REPO = r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"


class _Source(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=_NAME, description="What `python -m assistant sync NAME` calls it.")
    enabled: bool = Field(True, description="Synced by a plain `sync`; a disabled source still syncs when named.")


class EntriesSource(_Source):
    """A folder of curated entries (one YAML file per known problem)."""

    kind: Literal["entries"]
    path: Path


class QaPagesSource(_Source):
    """A folder of pages in the pitfall guide's Q&A format ("Question N" / "Accepted Answer")."""

    kind: Literal["qa_pages"]
    path: Path


class DocsSource(_Source):
    """A repository's docs/ folder at a git ref, read from the repository archive of that ref."""

    kind: Literal["docs"]
    repo: str = Field("vllm-project/vllm", pattern=_REPO)
    ref: str = Field(min_length=1, description="A tag or branch, e.g. v0.31.0 or main.")
    folder: str = Field("docs", description="The folder inside the repository that holds the Markdown.")
    archive: Path | None = Field(None, description="A local tar.gz of the repository at that ref (offline).")
    package_index: bool = Field(
        False,
        description="Read the docs from the release's source distribution (vllm-X.Y.Z.tar.gz) on the package "
        "index instead of GitHub; the ref must be a release tag (v0.33.0).",
    )
    url_template: str = Field(
        "https://docs.vllm.ai/en/{version}/{page}",
        description="The rendered page of a file: {version} is the ref ('latest' for main), {page} its path.",
    )

    @model_validator(mode="after")
    def _one_origin(self) -> DocsSource:
        if self.package_index and self.archive is not None:
            raise ValueError("give either archive or package_index, not both")
        if self.package_index and not re.fullmatch(rf"v?{RELEASE_TAG}", self.ref):
            raise ValueError(f"package_index needs a release tag as ref (v0.33.0), not {self.ref!r}")
        return self


def release_docs_source(release: str) -> DocsSource | None:
    """The docs of a vLLM release (`0.33.0` or `vllm==0.33.0`) from its source distribution on the package index;
    None for a release named by a wheel file or a source tree (their docs are not on the index)."""
    version = release_version(release)
    if not re.fullmatch(RELEASE_TAG, version):
        return None
    return DocsSource(name=f"vllm-docs-{version}", kind="docs", ref=f"v{version}", package_index=True)


class GitHubIssuesSource(_Source):
    """Issues of a repository, through the REST API."""

    kind: Literal["github_issues"]
    repo: str = Field(pattern=_REPO)
    state: Literal["open", "closed", "all"] = "all"
    labels: list[str] = Field(default_factory=list, description="Only issues carrying every one of these labels.")
    max_age_days: int | None = Field(None, ge=1, description="Only issues updated within this many days.")
    full_every_hours: float = Field(
        24.0, gt=0, description="How often a full listing runs to notice deleted or transferred issues."
    )

    @field_validator("labels")
    @classmethod
    def _no_commas(cls, v: list[str]) -> list[str]:
        bad = [label for label in v if "," in label or not label.strip()]
        if bad:
            raise ValueError(f"labels must be non-empty and contain no commas: {bad}")
        return v


class GitHubDiscussionsSource(_Source):
    """Answered discussions of a repository, through the GraphQL API (needs a token)."""

    kind: Literal["github_discussions"]
    repo: str = Field(pattern=_REPO)
    categories: list[str] = Field(default_factory=list, description="Only these categories (e.g. Q&A); all when empty.")
    full_every_hours: float = Field(24.0, gt=0, description="How often a full listing notices deleted discussions.")


class ReleaseSource(_Source):
    """A vLLM release read from its own source: `vllm==X`, a wheel, a source tree or the installed package."""

    kind: Literal["vllm_release"]
    spec: str = Field(min_length=1, description="vllm==X.Y.Z, a .whl path, a source folder, or 'installed'.")
    as_version: str | None = Field(None, description="The version of a source tree that does not state one.")
    force: bool = Field(False, description="Read the release again even when it is indexed.")


Source = Annotated[
    EntriesSource | QaPagesSource | DocsSource | GitHubIssuesSource | GitHubDiscussionsSource | ReleaseSource,
    Field(discriminator="kind"),
]
KINDS = ("entries", "qa_pages", "docs", "github_issues", "github_discussions", "vllm_release")


class SourcesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sources: list[Source] = Field(default_factory=list)


def _resolve(source: Source, base: Path) -> Source:
    """Relative paths in the file are relative to the repository root (where `make run` runs)."""
    updates = {}
    for field in ("path", "archive"):
        value = getattr(source, field, None)
        if isinstance(value, Path) and not value.is_absolute():
            updates[field] = (base / value).resolve()
    return source.model_copy(update=updates) if updates else source


def parse_sources(text: str, origin: str, base: Path = REPO_ROOT) -> list[Source]:
    """The sources a YAML text declares, or ConfigError saying which one is wrong and what is accepted."""
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{origin}: invalid YAML: {str(exc).splitlines()[0]}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{origin}: expected a mapping with a 'sources' list")
    for i, item in enumerate(data.get("sources") or []):
        kind = item.get("kind") if isinstance(item, dict) else None
        if kind not in KINDS:
            raise ConfigError(f"{origin}: source {i + 1}: unknown kind {kind!r}; choose one of: {', '.join(KINDS)}")
    try:
        parsed = SourcesFile.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors(include_url=False)[:5]
        )
        raise ConfigError(f"{origin}: {problems}") from exc
    names = [s.name for s in parsed.sources]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"{origin}: source names must be unique; repeated: {', '.join(dupes)}")
    return [_resolve(s, base) for s in parsed.sources]


def load_sources(path: Path, base: Path = REPO_ROOT) -> list[Source]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the sources file {path}: {exc.strerror or exc}") from exc
    return parse_sources(text, str(path), base)


def select(sources: list[Source], names: list[str]) -> list[Source]:
    """The named sources (disabled ones included), or every enabled one when no name is given."""
    if not names:
        return [s for s in sources if s.enabled]
    by_name = {s.name: s for s in sources}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        known = ", ".join(by_name) or "(none declared)"
        raise ConfigError(f"unknown source {', '.join(map(repr, unknown))}; the sources file declares: {known}")
    return [by_name[n] for n in names]


SOURCE_ADAPTER: TypeAdapter[Source] = TypeAdapter(Source)
