# Plain make. `make test` builds .venv on first use (see the venv target).
PYTHON ?= python3
VENV   := .venv
STAMP  := $(VENV)/.dungeonrl-installed

.PHONY: venv venv-rllib test demo

venv: $(STAMP)

# torch first, pinned: 2.13.0 is a CPU wheel on this machine's disk, while an
# unpinned torch (pulled in by the train extra) would fetch a multi-GB CUDA build.
# The stamp is rebuilt only when pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install torch==2.13.0
	$(VENV)/bin/python -m pip install -e ".[train,dev]"
	touch $(STAMP)

# Ray RLlib's own virtualenv (ray pins its gymnasium): the [rllib] extra, and
# numpy/numba at the main venv's versions so both share one numba cache.
RLLIB_VENV  := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.dungeonrl-installed

venv-rllib: $(RLLIB_STAMP)

$(RLLIB_STAMP): pyproject.toml $(STAMP)
	test -x $(RLLIB_VENV)/bin/python || $(PYTHON) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/python -m pip install torch==2.13.0
	$(VENV)/bin/python -m pip freeze | grep -iE '^(numpy|numba|llvmlite)==' > $(RLLIB_VENV)/constraints.txt
	$(RLLIB_VENV)/bin/python -m pip install -c $(RLLIB_VENV)/constraints.txt -e ".[rllib]" pytest
	touch $(RLLIB_STAMP)

test: venv venv-rllib
	$(VENV)/bin/python -m pytest -q -n 2 -m "not slow" tests
	$(RLLIB_VENV)/bin/python -m pytest -q -p no:cacheprovider -m rllib tests/adapters/test_rllib.py

demo: venv
	$(VENV)/bin/dungeonrl demo
