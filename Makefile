# Two commands a newcomer needs:
#   make run    serve the assistant (UI + API) on the embedded default: no GPU, no API key, no network
#   make test   run the test suite (installs the test-only extras: headless Chromium, llama.cpp server)
# Both create .venv and install what they need on a fresh machine.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
export HF_HUB_OFFLINE := 1
export GRADIO_ANALYTICS_ENABLED := False

.PHONY: run test install install-dev eval bench clean-index

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install torch==2.13.0  # the CPU build on this machine's disk; a plain `torch` pulls CUDA (GBs)
	$(PIP) install -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PIP) install -e '.[dev]'
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null)
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

run: install
	$(PY) app.py

test: install-dev
	$(PY) -m pytest

eval: install-dev
	$(PY) -m assistant eval

bench: install-dev
	$(PY) benchmarks/bench_latency.py

clean-index:
	rm -rf .index
