"""Gradio's own error output, without the user's input in it.

When a UI call fails before our callback runs (its payload does not fit a component, e.g. a chat history
that is not a list of messages), Gradio prints the traceback with `traceback.print_exc()`. The last line of
that traceback is pydantic's message, which quotes the input (`input_value={'content': 'HF_TOKEN=hf_…'}`):
a pasted secret would land in the server log unmasked. `mask_gradio_errors` points the `traceback` that
Gradio's request modules call at a copy whose `print_exc` logs the frames and a description of the error
with inputs left out (pydantic) or masked (anything else) instead.
"""

from __future__ import annotations

import importlib
import logging
import sys
import traceback
import types

from pydantic import ValidationError

from assistant.text.redact import redact

log = logging.getLogger("assistant.ui")
# The Gradio modules that print a failing call's traceback (queueing: queued calls; routes/utils: direct ones).
_GRADIO_MODULES = ("gradio.queueing", "gradio.routes", "gradio.utils", "gradio.route_utils")
_MESSAGE_CHARS = 500


def describe_error(exc: BaseException) -> str:
    """The error's type and message, inputs excluded: a pydantic error lists where and what, never the value."""
    if isinstance(exc, ValidationError):
        parts = [
            f"{'.'.join(str(p) for p in e.get('loc', ())) or 'value'}: {e.get('msg', 'invalid')}"
            for e in exc.errors(include_input=False, include_url=False, include_context=False)
        ]
        return f"{type(exc).__name__}: {exc.title}: " + "; ".join(parts)
    return f"{type(exc).__name__}: {redact(str(exc))[:_MESSAGE_CHARS]}"


def _print_exc(limit: int | None = None, file: object = None, chain: bool = True) -> None:
    exc = sys.exc_info()[1]
    if exc is None:
        return
    frames = "".join(traceback.format_tb(exc.__traceback__, limit=limit)).rstrip()
    log.error("gradio call failed: %s", describe_error(exc), extra={"error": describe_error(exc), "frames": frames})


def _masked_traceback() -> types.ModuleType:
    shim = types.ModuleType("traceback", "The standard traceback module, with print_exc masked for Gradio.")
    shim.__dict__.update({k: v for k, v in vars(traceback).items() if not k.startswith("__")})
    shim.print_exc = _print_exc  # type: ignore[attr-defined]
    return shim


_SHIM = _masked_traceback()


def mask_gradio_errors() -> None:
    """Make Gradio's failing-call tracebacks go through the masked logger (idempotent)."""
    for name in _GRADIO_MODULES:
        module = importlib.import_module(name)
        if getattr(module, "traceback", None) is traceback:
            module.traceback = _SHIM  # type: ignore[attr-defined]
