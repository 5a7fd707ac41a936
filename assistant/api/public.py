"""Messages as a client may see them: without the server's folders (index, corpus, temp, home)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from urllib.parse import urlparse

from assistant.settings import REPO_ROOT, Settings


def public_text(text: str, settings: Settings) -> str:
    """`text` with the server's own paths replaced by what they are (`<index_dir>`, `corpus`, `<tmp>` …)."""
    replacements = [
        (str(settings.feedback_db), "<feedback_db>"),
        (str(settings.index_dir), "<index_dir>"),
        (str(settings.corpus_dir), "<corpus_dir>"),
        (str(REPO_ROOT) + "/", ""),
        (str(REPO_ROOT), "."),
        (tempfile.gettempdir().rstrip("/") + "/", "<tmp>/"),
        (str(Path.home()).rstrip("/") + "/", "~/"),
    ]
    if settings.chroma_url:
        replacements.append((settings.chroma_url, "<chroma_url>"))
        netloc = urlparse(settings.chroma_url).netloc
        replacements.append((netloc, "<chroma_host>"))
    if settings.database_url:
        replacements.append((settings.database_url, "<database_url>"))
        netloc = urlparse(settings.database_url).netloc
        replacements.append((netloc, "<database_host>"))
    # Longest first, so a folder inside another is named by its own placeholder.
    for old, new in sorted(replacements, key=lambda r: -len(r[0])):
        if len(old) > 1:
            text = text.replace(old, new)
    return text
