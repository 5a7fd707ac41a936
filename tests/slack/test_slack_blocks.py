"""Answer → Block Kit formatting and the mode chosen by settings (pure)."""

from __future__ import annotations

import pytest

from assistant.errors import ConfigError
from assistant.models import Answer, Citation
from assistant.settings import Settings
from assistant.slack import slack_mode
from assistant.slack.blocks import answer_blocks, split_sections, to_mrkdwn


def test_markdown_to_mrkdwn() -> None:
    md = "**Fix:** see [docs](https://docs.vllm.ai/x)\n```bash\nexport A=1\n```"
    assert to_mrkdwn(md) == "*Fix:* see <https://docs.vllm.ai/x|docs>\n```\nexport A=1\n```"


def test_sections_fit_slack_limits() -> None:
    text = "\n\n".join(["para " + "x" * 1000] * 9) + "\n\n" + "\n".join(["line " + "y" * 100] * 60)
    parts = split_sections(text, 2900)
    assert all(len(p) <= 2900 for p in parts)
    assert "".join(parts).replace("\n", "") == text.replace("\n", "")


def test_blocks_show_the_body_and_link_url_sources() -> None:
    answer = Answer(
        body="**Fix** [1]",
        abstained=False,
        language="en",
        citations=(Citation(1, "d1", "Doc", "https://docs.vllm.ai/a"),),
        hits=(),
    )
    blocks = answer_blocks(answer, 42)
    assert blocks[0]["text"]["text"] == "*Fix* [1]"
    assert blocks[1]["elements"][0]["text"] == "*Sources*\n[1] <https://docs.vllm.ai/a|Doc>"
    assert [e["value"] for e in blocks[-1]["elements"]] == ["42", "42"]


def test_a_chinese_answer_lists_its_sources_once_under_a_chinese_label() -> None:
    answer = Answer(
        body="**解决方法：** 设置 `VLLM_USE_DEEP_GEMM=0` [1]",
        abstained=False,
        language="zh",
        citations=(Citation(1, "e1", "DeepGEMM 崩溃", "corpus/entries/e1.yaml"),),
        hits=(),
    )
    blocks = answer_blocks(answer, 7)
    assert blocks[0]["text"]["text"] == "*解决方法：* 设置 `VLLM_USE_DEEP_GEMM=0` [1]"
    assert blocks[1]["elements"][0]["text"] == "*来源*\n[1] DeepGEMM 崩溃 (`corpus/entries/e1.yaml`)"


@pytest.mark.parametrize(
    ("fields", "mode"),
    [
        ({}, "off"),
        ({"slack_bot_token": "xoxb", "slack_signing_secret": "s"}, "http"),
        ({"slack_bot_token": "xoxb", "slack_app_token": "xapp"}, "socket"),
    ],
)
def test_mode_follows_settings(fields: dict, mode: str) -> None:
    assert slack_mode(Settings(**fields)) == mode


def test_token_without_secret_or_app_token_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="ASSISTANT_SLACK_SIGNING_SECRET"):
        slack_mode(Settings(slack_bot_token="xoxb"))
