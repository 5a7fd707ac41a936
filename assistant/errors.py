"""The assistant's error hierarchy; the CLI and the faces turn these into messages and status codes."""


class AssistantError(Exception):
    """Base of every error the assistant raises on purpose."""


class ConfigError(AssistantError):
    """A setting has a value the assistant cannot use."""


class InputError(AssistantError):
    """A question or a request is malformed (empty, too long, wrong type)."""


class LoadError(AssistantError):
    """A source file cannot be turned into documents; carries the path and the reason."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class IndexError_(AssistantError):
    """The index cannot be opened or used as asked (wrong model, unreachable server)."""


class IndexMismatchError(IndexError_):
    """The index was built with another embedding model than the one configured."""


class SyncError(AssistantError):
    """A sync cannot run or a source cannot be read (bad archive, a remote that keeps failing)."""


class SyncBusy(SyncError):
    """Another sync holds the lock (this index folder's, or the shared database's): nothing was done; try later."""


class RateLimited(SyncError):
    """A remote API asked us to wait longer than we are willing to: stop cleanly, resume from the cursor later."""

    def __init__(self, message: str, retry_at: float):
        super().__init__(message)
        self.retry_at = retry_at


class StoreUnavailableError(IndexError_):
    """The vector store cannot be reached (a Chroma server down or starting); worth retrying."""


class IncompleteIndexError(IndexError_):
    """The index folder holds no finished build (empty, or an ingest was interrupted)."""


class StoreError(AssistantError):
    """The feedback store cannot be written (read-only, full, locked); the answer is still served."""


class ReleaseError(AssistantError):
    """A vLLM release cannot be fetched or read (bad spec, download failed, not a vLLM wheel or tree)."""
