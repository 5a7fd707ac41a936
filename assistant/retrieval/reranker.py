"""The rerank call (I/O): POST the fused candidates to a cross-encoder's `/rerank` API, within one deadline.

Any failure (unreachable, slow past `rerank_timeout`, an HTTP error, an answer that is not a full ranking)
keeps the fused order and says so in the outcome; the answer is never lost to the reranker.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import httpx

from assistant.models import Hit, RerankOutcome
from assistant.retrieval.rerank import BadRerankResponse, build_request, fallback, parse_scores, reorder
from assistant.settings import Settings

log = logging.getLogger(__name__)

# Rerank calls in flight at once; each waits on the network only.
_WORKERS = 16


class Reranker:
    """Built once per Assistant; the HTTP client and its thread pool are created on the first call."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.url = settings.rerank_url
        self._client: httpx.Client | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _resources(self) -> tuple[httpx.Client, ThreadPoolExecutor]:
        with self._lock:
            if self._client is None or self._pool is None:
                t = self.settings.rerank_timeout
                # The deadline below bounds the whole call; httpx's own timeout ends an abandoned request too.
                self._client = httpx.Client(
                    timeout=httpx.Timeout(t),
                    headers={"Authorization": f"Bearer {self.settings.rerank_api_key}"},
                    limits=httpx.Limits(max_connections=_WORKERS, max_keepalive_connections=_WORKERS),
                )
                self._pool = ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="rerank")
            return self._client, self._pool

    def _post(self, body: dict) -> object:
        client, _ = self._resources()
        response = client.post(self.url, json=body)
        response.raise_for_status()
        return response.json()

    def rerank(self, query: str, hits: Sequence[Hit]) -> tuple[list[Hit], RerankOutcome]:
        """`hits` re-ordered by the cross-encoder, or as given with a fallback outcome."""
        s = self.settings
        started = time.perf_counter()
        _, pool = self._resources()
        future = pool.submit(self._post, build_request(s.rerank_model, query, hits))
        try:
            payload = future.result(timeout=s.rerank_timeout)
            scores = parse_scores(payload, len(hits))
        except (FutureTimeout, httpx.TimeoutException):
            outcome = fallback("timeout", time.perf_counter() - started, timeout=s.rerank_timeout)
        except httpx.HTTPStatusError as exc:
            outcome = fallback("http_error", time.perf_counter() - started, str(exc.response.status_code))
        except httpx.TransportError:
            outcome = fallback("unreachable", time.perf_counter() - started)
        except httpx.HTTPError as exc:  # e.g. a body that cannot be decoded
            outcome = fallback("malformed", time.perf_counter() - started, type(exc).__name__)
        except ValueError as exc:  # not JSON (json.JSONDecodeError), or not a full ranking (BadRerankResponse)
            status = exc.status if isinstance(exc, BadRerankResponse) else "malformed"
            detail = exc.detail if isinstance(exc, BadRerankResponse) else "not JSON"
            outcome = fallback(status, time.perf_counter() - started, detail)
        else:
            return reorder(hits, scores), RerankOutcome("ok", time.perf_counter() - started)
        future.cancel()
        log.warning("rerank fell back to the fused order", extra={"status": outcome.status, "url": self.url})
        return list(hits), outcome

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
            if self._client is not None:
                self._client.close()
            self._client = self._pool = None
