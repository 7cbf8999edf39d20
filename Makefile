# Plain make. `make test` builds .venv on first use (see the venv target).
PYTHON ?= python3
VENV   := .venv
STAMP  := $(VENV)/.dungeonrl-installed

.PHONY: venv test demo

venv: $(STAMP)

# torch first, pinned: 2.13.0 is a CPU wheel on this machine's disk, while an
# unpinned torch (pulled in by the train extra) would fetch a multi-GB CUDA build.
# The stamp is rebuilt only when pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install torch==2.13.0
	$(VENV)/bin/python -m pip install -e ".[train,dev]"
	touch $(STAMP)

test: venv
	$(VENV)/bin/python -m pytest -q -n 2 -m "not slow" tests

demo: venv
	$(VENV)/bin/dungeonrl demo
