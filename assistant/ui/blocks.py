"""The Gradio Blocks app. Callbacks only translate between widgets and the library call."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import gradio as gr
from gradio.components.chatbot import ChatbotDataMessages
from pydantic import ValidationError

from assistant.errors import AssistantError, InputError, StoreError
from assistant.feedback.tracked import Asked, TrackedAssistant
from assistant.models import Switch
from assistant.release.fetch import release_version
from assistant.ui.error_log import mask_gradio_errors
from assistant.ui.render import entry_facts_md, history_turns, message_md, sources_md, status_md

log = logging.getLogger("assistant.ui")

EXAMPLES = [
    "RuntimeError: not home_path.empty()",
    "My FP8 model crashes on an RTX 5090 with DeepGEMM, how do I fix it?",
    "The engine died after a structured output request with an invalid grammar",
    "DeepSeek V4 Flash gives garbled output",
]

_CSS = "#status, #facts, #sources {min-height: 2em}"
AUTO_VERSION = "as the question states"


CONVERSATION_SHAPE = (
    "the conversation must be a list of messages, each an object with a 'role' ('user' or 'assistant') and a "
    "'content' text (send [] to start one)"
)


class _Conversation(ChatbotDataMessages):
    """The chat history as the UI's Gradio API takes it: a wrong shape is one clear sentence, not pydantic's
    report of every field (Gradio checks it before any callback runs)."""

    @classmethod
    def model_validate(cls, obj, *args, **kwargs):
        try:
            return super().model_validate(obj, *args, **kwargs)
        except ValidationError as exc:
            raise gr.Error(CONVERSATION_SHAPE) from exc


def _text_or_none(value: object, what: str, example: str) -> str | None:
    """A text input as the Gradio API may send it (None allowed); another type is a clear error for the
    caller, never `'int' object has no attribute 'strip'`."""
    if value is None or isinstance(value, str):
        return value
    raise gr.Error(f"the {what} must be text such as {example!r}, got {type(value).__name__}")


def release_choices(tracked: TrackedAssistant) -> list[str]:
    """The releases the selector offers: those indexed, and those start-up is about to index."""
    settings = tracked.assistant.settings
    listed = [release_version(v) for v in settings.vllm_releases]
    return list(dict.fromkeys([*tracked.assistant.releases.versions, *listed]))


def build_ui(tracked: TrackedAssistant, is_ready=lambda: True, public=lambda text: text) -> gr.Blocks:
    """`public` turns an error message into what a user may see (no server paths)."""
    mask_gradio_errors()  # a call Gradio rejects is logged without the user's input
    store = tracked.store

    def respond(question: str, messages: list[dict], vllm_version: str | None = None) -> Iterator[tuple]:
        question = _text_or_none(question, "question", "RuntimeError: not home_path.empty()") or ""
        vllm_version = _text_or_none(vllm_version, "vLLM version", "0.33.0")
        messages = list(messages or [])
        version = None if not vllm_version or vllm_version == AUTO_VERSION else vllm_version.strip()
        if not is_ready():
            yield (
                messages,
                question,
                "The index is still loading; try again in a few seconds.",
                gr.skip(),
                gr.skip(),
                gr.skip(),
            )
            return
        history = history_turns(messages)
        partial = ""
        try:
            for item in tracked.stream("ui", question, history, None, version):
                if isinstance(item, Asked):
                    answer = item.answer
                    shown = message_md(answer)
                    done = messages + [
                        {"role": "user", "content": question},
                        {"role": "assistant", "content": shown},
                    ]
                    last = {
                        "question_id": item.question_id,
                        "question": question.strip(),
                        "answer": shown,
                        "abstained": answer.abstained,
                    }
                    yield done, "", status_md(answer), entry_facts_md(answer), sources_md(answer), last
                elif isinstance(item, Switch):  # the generated text is withdrawn; the extractive answer follows
                    partial = ""
                    pending = messages + [{"role": "user", "content": question}, {"role": "assistant", "content": ""}]
                    yield pending, "", item.notice, gr.skip(), gr.skip(), gr.skip()
                else:
                    partial += item
                    pending = messages + [
                        {"role": "user", "content": question},
                        {"role": "assistant", "content": partial},
                    ]
                    yield pending, "", gr.skip(), gr.skip(), gr.skip(), gr.skip()
        except InputError as exc:
            yield messages, question, f"**Error:** {public(str(exc))}", gr.skip(), gr.skip(), gr.skip()
        except AssistantError as exc:
            log.error("ui answer failed", extra={"error": str(exc)})
            message = f"**Error:** the assistant failed: {public(str(exc))}"
            yield messages, question, message, gr.skip(), gr.skip(), gr.skip()
        except Exception:  # never a raw exception in the page; the log has the traceback
            log.exception("ui answer failed")
            message = "**Error:** the assistant failed unexpectedly; the server log has the details."
            yield messages, question, message, gr.skip(), gr.skip(), gr.skip()

    def feedback(rating: str, comment: str, last: dict | None) -> tuple[str, str]:
        comment = _text_or_none(comment, "comment", "the fix worked") or ""
        if not isinstance(last, dict) or not last:
            return "Ask a question first, then rate the answer.", comment
        try:
            fid = store.record(
                "ui",
                rating,
                last["question"],
                last["answer"],
                last["abstained"],
                comment=comment,
                question_id=last["question_id"],
            )
        except InputError as exc:
            return f"**Error:** {exc}", comment
        except StoreError as exc:
            log.error("ui feedback not saved", extra={"error": str(exc)})
            return "**Error:** the feedback could not be saved right now; please try again later.", comment
        return f"Thanks! Feedback #{fid} saved ({'helpful' if rating == 'up' else 'not helpful'}).", ""

    def clear() -> tuple:
        return [], "", "", "", "", None, ""

    with gr.Blocks(title="vLLM troubleshooting assistant") as demo:
        gr.Markdown(
            "# vLLM troubleshooting assistant\n"
            "Paste a vLLM error message or traceback, or describe the problem. Answers cite their sources; "
            "when nothing matches, the assistant says it does not know."
        )
        last = gr.State(None)
        with gr.Row():
            with gr.Column(scale=3):
                chat = gr.Chatbot(elem_id="chat", label="Conversation", height=480, feedback_options=None)
                chat.data_model = _Conversation  # checked by Gradio before `respond` runs
                box = gr.Textbox(
                    elem_id="question",
                    label="Error or question",
                    lines=3,
                    placeholder="e.g. RuntimeError: not home_path.empty()",
                )
                with gr.Row():
                    version = gr.Dropdown(
                        [AUTO_VERSION, *release_choices(tracked)],
                        value=AUTO_VERSION,
                        allow_custom_value=True,
                        label="Your vLLM version (code facts come from this release)",
                        elem_id="vllm-version",
                    )
                with gr.Row():
                    ask = gr.Button("Ask", elem_id="ask", variant="primary")
                    new = gr.Button("New conversation", elem_id="clear")
                gr.Examples(EXAMPLES, inputs=box, label="Examples")
            with gr.Column(scale=2):
                status = gr.Markdown(elem_id="status")
                facts = gr.Markdown(elem_id="facts")
                sources = gr.Markdown(elem_id="sources")
                with gr.Group():
                    gr.Markdown("**Was the last answer helpful?**")
                    with gr.Row():
                        up = gr.Button("▲ Helpful", elem_id="fb-up", size="sm")
                        down = gr.Button("▼ Not helpful", elem_id="fb-down", size="sm")
                    comment = gr.Textbox(elem_id="fb-comment", label="Comment (optional)", lines=2)
                    fb_status = gr.Markdown(elem_id="fb-status")

        outputs = [chat, box, status, facts, sources, last]
        ask.click(respond, [box, chat, version], outputs, api_name="ask")
        box.submit(respond, [box, chat, version], outputs, api_name=False)
        up.click(lambda c, s: feedback("up", c, s), [comment, last], [fb_status, comment], api_name="feedback_up")
        down.click(lambda c, s: feedback("down", c, s), [comment, last], [fb_status, comment], api_name="feedback_down")
        new.click(clear, None, outputs + [fb_status], api_name=False)
    demo.css = _CSS
    demo.queue(default_concurrency_limit=4)  # answers take milliseconds; a few users at once, not one
    return demo


def mount_ui(api, tracked: TrackedAssistant, path: str = "/ui") -> None:
    """Mount the chat UI on the API app at `path`, with `/` redirecting to it."""
    from fastapi.responses import RedirectResponse

    from assistant.api.public import public_text

    readiness = api.state.readiness
    settings = api.state.settings
    demo = build_ui(tracked, is_ready=lambda: readiness.ready, public=lambda text: public_text(text, settings))

    @api.get("/", include_in_schema=False)
    async def _root() -> RedirectResponse:
        return RedirectResponse(f"{path}/")

    gr.mount_gradio_app(api, demo, path=path, footer_links=["api"], css=_CSS)
