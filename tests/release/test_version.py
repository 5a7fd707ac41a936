"""Which vLLM release a question or paste states (`detect_version`), and which indexed release that means
(`resolve_version`): pure, tested directly on the shapes users paste."""

from __future__ import annotations

import pytest

from assistant.release.version import at_or_after, detect_version, resolve_version


@pytest.mark.parametrize(
    "text, version",
    [
        # the server's start-up banner
        ("INFO 01-05 10:00:00 api_server.py:1] vLLM API server version 0.31.0", "0.31.0"),
        # `vllm collect-env` / collect_env.py, half- and full-width colon, a dev build
        ("vLLM Version                 : 0.31.0", "0.31.0"),
        ("vLLM Version：0.9.2", "0.9.2"),
        ("vLLM Version: 0.10.1.dev5+g1234abc", "0.10.1.dev5"),
        # pip pins and wheel names, post and rc releases
        ("pip install vllm==0.8.5.post1", "0.8.5.post1"),
        ("VLLM==0.31.0", "0.31.0"),
        ("vllm-0.33.0rc1-cp38-abi3-manylinux_2_28_x86_64.whl", "0.33.0rc1"),
        # the official image's tag
        ("docker run --gpus all vllm/vllm-openai:v0.10.1 --model m", "0.10.1"),
        ("vllm/vllm-openai-rocm:v0.9.2-x86_64", "0.9.2"),
        # Chinese: 版本 (version), with or without a space, with a full-width colon
        ("我的 vllm 版本 0.31 启动报错", "0.31"),
        ("vllm版本：0.9.2", "0.9.2"),
        ("我的vllm版本0.31启动报错", "0.31"),  # vLLM written against Chinese text on both sides
        ("使用VLLM 0.9.2运行", "0.9.2"),
        # prose, with a `v` prefix, and an x.y
        ("on vllm 0.31 it crashes", "0.31"),
        ("vllm version is 0.10.0", "0.10.0"),
        ("vLLM v0.11.0 fails", "0.11.0"),
        ("vllm 0.31.0 on torch 2.9", "0.31.0"),
    ],
)
def test_each_shape_users_paste_gives_its_version(text: str, version: str) -> None:
    assert detect_version(text) == version


@pytest.mark.parametrize(
    "text",
    [
        "my GPU is an A100 with CUDA 12.8",  # versions of something else
        "PyTorch version: 2.9.0",
        "vllm 2 fails",  # not a release number
        "vllm 0.31.0abc",  # not a version that ends there
        "docker run vllm/vllm-openai:latest",  # a tag that names no release
        "### Open WebUI Version\n\nv0.5.20",  # another product's template field
        "",
    ],
)
def test_no_vllm_version_stated_is_none(text: str) -> None:
    assert detect_version(text) is None


def test_of_several_the_most_specific_then_the_last_wins() -> None:
    assert detect_version("upgraded from vllm 0.30.0 to vllm==0.31.0") == "0.31.0"  # a pin beats prose
    assert detect_version("pip install vllm==0.30.0\nvLLM Version: 0.31.0") == "0.31.0"  # collect-env beats a pin
    banner = "vLLM Version: 0.30.0\nINFO vLLM API server version 0.31.0"
    assert detect_version(banner) == "0.31.0"  # what the server printed beats all
    assert detect_version("vllm 0.30.0 worked, vllm 0.31.0 fails") == "0.31.0"  # of one kind, the last named


INDEXED = ["0.31.0", "0.31.2", "0.31.10", "0.32.0", "0.33.0rc1", "0.8.5.post1"]


@pytest.mark.parametrize(
    "wanted, resolved",
    [
        ("0.31.2", "0.31.2"),  # itself
        ("v0.31.0", "0.31.0"),  # a `v` prefix
        ("0.31", "0.31.10"),  # x.y: the newest x.y.*, by version, not by string (0.31.10 > 0.31.2)
        ("0.33", "0.33.0rc1"),  # the newest 0.33.* indexed is a release candidate
        ("0.33.0rc1", "0.33.0rc1"),
        ("0.8.5", "0.8.5.post1"),  # a post release is that release
        ("0.33.0", None),  # an rc does not stand for the final release
        ("0.3", None),  # 0.3 is not a prefix of 0.31
        ("0.9", None),  # not indexed
        (None, None),
        ("", None),
    ],
)
def test_a_stated_version_resolves_to_an_indexed_release(wanted: str | None, resolved: str | None) -> None:
    assert resolve_version(wanted, INDEXED) == resolved


def test_a_final_release_is_newer_than_its_candidates_and_nothing_resolves_without_releases() -> None:
    assert resolve_version("0.31", ["0.31.0rc1", "0.31.0"]) == "0.31.0"
    assert resolve_version("0.31", []) is None
    assert at_or_after("0.31", "0.31.0") and at_or_after("0.31.10", "0.31.2")
    assert not at_or_after("0.33.0rc1", "0.33.0") and not at_or_after("0.9.2", "0.10.0")
