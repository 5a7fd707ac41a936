"""The library call plus a line in the asked-questions log, so abstentions become a knowledge-gap list.

The log is a side effect: when it cannot be written the answer is still served (question id None), the
failure is logged and reported to the observer (the API's metrics), and the store remembers it for /readyz.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from assistant.errors import StoreError
from assistant.feedback.store import Face, FeedbackStore
from assistant.models import Answer, Switch, Turn
from assistant.service import Assistant

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Asked:
    answer: Answer
    question_id: int | None  # None when the question was not logged (logging off, or the store failing)


class TrackedAssistant:
    """What every face calls: `Assistant.ask/stream`, recording each question with its abstained flag."""

    def __init__(
        self,
        assistant: Assistant,
        store: FeedbackStore,
        observer: Callable[[str, Answer], None] | None = None,
        on_store_error: Callable[[StoreError], None] | None = None,
    ):
        self.assistant = assistant
        self.store = store
        self.observer = observer  # e.g. the API's metrics: answers and abstentions by face
        self.on_store_error = on_store_error  # e.g. the API's metrics: feedback store failures

    def ask(
        self,
        face: Face,
        question: str,
        history: list[Turn] | None = None,
        k: int | None = None,
        vllm_version: str | None = None,
    ) -> Asked:
        answer = self.assistant.ask(question, history, k, vllm_version)
        return Asked(answer, self._log(face, question, answer))

    def stream(
        self,
        face: Face,
        question: str,
        history: list[Turn] | None = None,
        k: int | None = None,
        vllm_version: str | None = None,
    ) -> Iterator[str | Switch | Asked]:
        """Deltas (and a `Switch` when a generated answer is abandoned), then an `Asked` (answer + question id)."""
        for item in self.assistant.stream(question, history, k, vllm_version):
            if isinstance(item, Answer):
                yield Asked(item, self._log(face, question, item))
            else:
                yield item

    def _log(self, face: Face, question: str, answer: Answer) -> int | None:
        if self.observer is not None:
            self.observer(face, answer)
        top = answer.hits[0].chunk.id if answer.hits else None
        try:
            # a declined message (instructions to the assistant, another engine) is no gap in the knowledge
            gap = answer.abstained and not answer.declined
            return self.store.record_question(face, question.strip(), gap, top)
        except StoreError as exc:
            log.error("question not logged; answering anyway", extra={"face": face, "error": str(exc)})
            if self.on_store_error is not None:
                self.on_store_error(exc)
            return None
