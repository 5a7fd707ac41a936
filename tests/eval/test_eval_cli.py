"""`python -m assistant eval` is registered with its options; bad choices are refused before any work."""

import pytest

from assistant.cli import build_parser, main
from assistant.eval.baselines import make_systems


def test_eval_subcommand_is_registered_with_its_options():
    args = build_parser().parse_args(["eval", "--set", "docs", "--json", "--backend", "openai", "--no-write"])
    assert (args.set_name, args.json, args.backend, args.write) == ("docs", True, "openai", False)
    assert build_parser().parse_args(["eval"]).set_name == "all"


def test_unknown_set_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--set", "nope"])
    assert exc.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_unknown_system_names_the_valid_ones():
    from assistant.errors import ConfigError

    with pytest.raises(ConfigError, match="choose from: full, bm25, dense"):
        make_systems(None, ["full", "bm42"])
