# Plain make. `make test` builds .venv on first use (see the venv target).
PYTHON ?= python3
VENV   := .venv
STAMP  := $(VENV)/.dungeonrl-installed

.PHONY: venv venv-rllib precompile browser test lint typecheck-tree demo docs

venv: $(STAMP)

# torch first, pinned: 2.13.0 is a CPU wheel on this machine's disk, while an
# unpinned torch (pulled in by the train extra) would fetch a multi-GB CUDA build.
# The stamp is rebuilt only when pyproject.toml or setup.py changes.
$(STAMP): pyproject.toml setup.py
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
	$(RLLIB_VENV)/bin/python -m pip install -c $(RLLIB_VENV)/constraints.txt -e ".[rllib]" "pytest>=9" pytest-timeout
	touch $(RLLIB_STAMP)

# every game's numba kernels compiled ahead of use, two processes at a time
# (seconds when numba's cache is already warm), so tests and the demo start warm
precompile: venv
	$(VENV)/bin/python -m dungeonrl.precompile --jobs 2

# Debian's Chromium and its driver for the web app's browser suite (tests/web/test_browser.py,
# Playwright drives /usr/bin/chromium; no browser is downloaded). Needs root for apt-get;
# without it the browser tests skip and say why.
browser:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		(apt-get install -y -q chromium chromium-driver || \
		 (apt-get update -q && apt-get install -y -q chromium chromium-driver)) >/dev/null && \
		echo "installed Debian's chromium for the browser tests"; \
	else echo "warning: no /usr/bin/chromium and no root for apt-get: the browser tests will skip"; fi

test: venv venv-rllib precompile browser
	$(VENV)/bin/python -m pytest -q -n 2 -m "not slow" tests
	$(RLLIB_VENV)/bin/python -m pytest -q -p no:cacheprovider -m rllib tests/adapters/test_rllib.py

# Lint and type-check (configuration in pyproject.toml): ruff's rules, ruff's
# formatter in check mode, mypy over the whole package (not tests). The
# package's folders are mapped (pyproject.toml package-dir), so mypy reads
# them through a link tree that mirrors the installed layout:
# build/typecheck/dungeonrl/ holds dungeonrl/*, envs, encoders, agents and
# benchmarks (keep the folder list in step with package-dir).
TYPECHECK := build/typecheck/dungeonrl

typecheck-tree:
	rm -rf $(TYPECHECK) && mkdir -p $(TYPECHECK)
	for f in dungeonrl/*; do ln -s ../../../$$f $(TYPECHECK)/; done
	for d in envs encoders agents benchmarks; do ln -s ../../../$$d $(TYPECHECK)/$$d; done

lint: venv typecheck-tree
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

demo: venv precompile
	$(VENV)/bin/dungeonrl demo

# The documentation site (mkdocs.yml, pages in docs/) into build/site; --strict turns
# every warning (a broken link, a page missing from the nav) into an error
docs: venv
	$(VENV)/bin/python -m mkdocs build --strict -d build/site
