# Two commands a newcomer needs:
#   make run    serve the assistant (UI + API) on the embedded default: no GPU, no API key, no network
#   make test   run the test suite (installs the test-only extras: headless Chromium, llama.cpp server, PostgreSQL)
# Both create .venv and install exactly the versions in the lock files, checked against their hashes.
#   make lock     re-resolve the lock files after a change to pyproject.toml (keeps the other pins)
#   make upgrade  re-resolve everything to the newest versions pyproject.toml allows

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
export HF_HUB_OFFLINE := 1
export GRADIO_ANALYTICS_ENABLED := False

# requirements.lock: what `make run` needs; requirements-dev.lock: that plus the `dev` extra (a superset,
# with the same pins). Both carry a hash for every file, so a file that changed on the index fails the install.
RUN_LOCK := requirements.lock
DEV_LOCK := requirements-dev.lock
# torch 2.13.0's CPU build lies in this folder on these machines (pip's find-links); a torch from the index
# would be a CUDA build of several GB. The lock files name the folder, so pip finds it without pip.conf too.
FIND_LINKS ?= /opt/wheels
# The resolver behind `make lock`, in a venv of its own so that it is not part of what it locks.
UV_VERSION := 0.13.8
LOCK_VENV := .venv-lock
UV := $(LOCK_VENV)/bin/uv
UV_COMPILE := $(UV) pip compile pyproject.toml --quiet --generate-hashes --python-version 3.11 \
	--find-links $(FIND_LINKS) --emit-find-links --custom-compile-command "make lock"

.PHONY: run test install install-dev lock upgrade eval bench clean-index

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(RUN_LOCK) pyproject.toml | $(PY)
	$(PIP) install --require-hashes --no-deps -r $(RUN_LOCK)
	$(PIP) install --no-deps -e .
	$(PIP) check
	touch $@

# llama-cpp-python has no binary wheel for this platform: pip builds it from the locked source. Without its
# multimodal library (mtmd: images and audio, which the tests never send; imported only by the handlers that use
# it), the build took 2.5 min on 2 cores instead of 5.5. Override LLAMA_CMAKE_ARGS for another build of it.
# The tests start their own PostgreSQL server (tests/postgres_server.py) from Debian's package, whose binaries
# are not on PATH (/usr/lib/postgresql/N/bin).
LLAMA_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF
$(VENV)/.installed-dev: $(VENV)/.installed $(DEV_LOCK)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install --require-hashes --no-deps -r $(DEV_LOCK)
	$(PIP) check
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null)
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq postgresql >/dev/null)
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

run: install
	$(PY) app.py

test: install-dev
	$(PY) -m pytest

$(UV):
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip --disable-pip-version-check -q install uv==$(UV_VERSION)

# dev first; requirements.lock is then constrained by it, so the two never pin a package differently.
lock: | $(UV)
	$(UV_COMPILE) --extra dev $(if $(UPGRADE),--upgrade) -o $(DEV_LOCK)
	$(UV_COMPILE) --constraint $(DEV_LOCK) $(if $(UPGRADE),--upgrade) -o $(RUN_LOCK)

upgrade:
	$(MAKE) lock UPGRADE=1

eval: install-dev
	$(PY) -m assistant eval

bench: install-dev
	$(PY) benchmarks/bench_latency.py

clean-index:
	rm -rf .index
