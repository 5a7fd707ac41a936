"""Every secret shape in secret_shapes.yaml is masked, and ordinary vLLM text comes out unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assistant.text.redact import MASK, redact

SHAPES = yaml.safe_load((Path(__file__).with_name("secret_shapes.yaml")).read_text(encoding="utf-8"))


@pytest.mark.parametrize("shape", SHAPES["secrets"], ids=[s["name"] for s in SHAPES["secrets"]])
def test_secret_shape_is_masked(shape: dict) -> None:
    out = redact(shape["input"])
    assert MASK in out, out
    for secret in shape["gone"]:
        assert secret not in out, f"{secret!r} survived: {out!r}"
    for part in shape.get("kept", []):
        assert part in out, f"{part!r} was mangled: {out!r}"


@pytest.mark.parametrize("text", SHAPES["same"])
def test_ordinary_vllm_text_is_not_mangled(text: str) -> None:
    assert redact(text) == text


def test_masking_is_idempotent() -> None:
    for shape in SHAPES["secrets"]:
        once = redact(shape["input"])
        assert redact(once) == once
