"""The library call plus a line in the asked-questions log, so abstentions become a knowledge-gap list."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from assistant.feedback.store import Face, FeedbackStore
from assistant.models import Answer, Turn
from assistant.service import Assistant


@dataclass(frozen=True)
class Asked:
    answer: Answer
    question_id: int


class TrackedAssistant:
    """What every face calls: `Assistant.ask/stream`, recording each question with its abstained flag."""

    def __init__(
        self, assistant: Assistant, store: FeedbackStore, observer: Callable[[str, Answer], None] | None = None
    ):
        self.assistant = assistant
        self.store = store
        self.observer = observer  # e.g. the API's metrics: answers and abstentions by face

    def ask(self, face: Face, question: str, history: list[Turn] | None = None, k: int | None = None) -> Asked:
        answer = self.assistant.ask(question, history, k)
        return Asked(answer, self._log(face, question, answer))

    def stream(
        self, face: Face, question: str, history: list[Turn] | None = None, k: int | None = None
    ) -> Iterator[str | Asked]:
        """Deltas, then an `Asked` (answer + question id) as the last item."""
        for item in self.assistant.stream(question, history, k):
            if isinstance(item, Answer):
                yield Asked(item, self._log(face, question, item))
            else:
                yield item

    def _log(self, face: Face, question: str, answer: Answer) -> int:
        if self.observer is not None:
            self.observer(face, answer)
        top = answer.hits[0].chunk.id if answer.hits else None
        return self.store.record_question(face, question.strip(), answer.abstained, top)
