# Sparring: `make run` runs the main job end to end, `make test` runs the test suite.
# Both bootstrap .venv from uv.lock on a fresh machine (uv is installed with pip if missing).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
UV := $(shell command -v uv 2>/dev/null || echo "$(PYTHON) -m uv")
# The optional extras a sync installs. A cluster node has its own (cluster.yaml's setup: aws),
# and its `make mlflow-server` passes them, or the sync behind it would remove boto3.
SYNC_EXTRAS ?= --extra pettingzoo --extra openspiel

export RAY_USAGE_STATS_ENABLED := 0
export RAY_AUTH_MODE ?= token
# MLflow 3's usage telemetry off (the MLflow servers and UI below too; =false turns it on)
export MLFLOW_DISABLE_TELEMETRY ?= true
export PYTHONUNBUFFERED := 1
# MkDocs' banner about its successor, printed on every build
export NO_MKDOCS_2_WARNING := 1
# Python's bytecode caches, kept on even where the environment turns them off: without them every
# process (each Ray worker, each pipeline) compiles all it imports again (`import mlflow`: 7.7 s
# against 2.6 s). The locked packages are compiled once, at sync.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help setup sandbox-tool run test test-fast lint bench docs docs-serve mlflow-ui mlflow-server clean clean-cache

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(VENV)/.synced: pyproject.toml uv.lock
	@command -v uv >/dev/null 2>&1 || $(PYTHON) -m uv --version >/dev/null 2>&1 \
		|| $(PYTHON) -m pip install --quiet uv
	$(UV) sync --locked --compile-bytecode $(SYNC_EXTRAS)
	@touch $@

# The sandbox of outside programs (docs/operations/security.md): bubblewrap, installed where we may.
sandbox-tool:
	@command -v bwrap >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) >/dev/null \
			|| echo "(could not install bubblewrap: sudo apt-get install bubblewrap)"; \
		else echo "(outside programs need bubblewrap for their sandbox: sudo apt-get install bubblewrap)"; fi; }

setup: $(VENV)/.synced sandbox-tool  ## create .venv from the lock file (and install bubblewrap where root)

# bwrap where the sandbox runs here; else none, said in one line (the example programs then run
# with your rights: `make run` still shows every step)
SANDBOX = $(shell $(PY) -c 'from sparring.runtime.programs import jail; print("bwrap" if jail.problem() is None else "none")')

run: setup  ## the main job end to end on the local Ray head and sqlite:///mlflow.db
	@if [ "$(SANDBOX)" = none ]; then echo "sandbox: bubblewrap cannot run here (sudo apt-get install bubblewrap): the example programs below run unsandboxed, with your rights"; fi
	$(PY) pipelines/equity.py trials=4000
	$(PY) pipelines/handgen.py deals=200 seed=1 output_root=file://$(CURDIR)/data/deals  # any storage URI: s3://, gs://
	$(PY) -m sparring.cli poker replay --deals "$$(ls -td data/deals/*/ | head -1)" --deal 0 --rotation 0 | tail -n 8
	$(PY) pipelines/evolve.py ga.population=16 ga.generations=3 deals.train=60 deals.heldout=150
	$(PY) pipelines/validate.py seeds=3 'hands=[25,50,100,200]' reference_hands=2000 drift.runs=4 match.games=20 match.series=1
	$(PY) pipelines/flagbots_bench.py depths=[1,2,3] time_s=0.5 match.seeds=2
	printf 'b2-b3\nquit\n' | $(PY) -m sparring.cli play flagbots --position "5/1NNN1/5/1SSS1/5 s 20" --depth 2 | tail -n 7
	$(PY) -m sparring.cli mus simulate --matches 10 --bluff 0.8
	yes $$'no mus\npaso\nquiero' | head -n 300 | $(PY) -m sparring.cli play mus --hands 2 --store data/player_models.db --player demo | tail -n 2
	$(PY) -m sparring.cli mus profile --store data/player_models.db --player demo
	$(PY) pipelines/eleusis_bench.py seeds=8 cap=20000 'scientists=[frequency,beta_thompson,em_greedy,kl_ucb,oracle]'
	$(PY) -m sparring.cli eleusis referee --sandbox $(SANDBOX) --deck spike:alpha=0.5 --seed 1 -- $(PY) -m sparring.cli eleusis scientist --name em_greedy
	$(PY) -m sparring.cli eleusis referee --sandbox $(SANDBOX) --deck spike:alpha=0.5 --seed 1 -- $(PY) -m sparring.cli eleusis scientist --name informed --deck spike:alpha=0.5
	$(PY) pipelines/retrain.py ga.population=16 ga.generations=2 deals.train=60 deals.heldout=150 retrain.test=sprt  # exit 0 promoted or kept (a rerun today repeats today's decision)
	$(PY) -m sparring.cli retrain history
	$(PY) pipelines/league.py deals.heldout=150 league.bootstrap=50
	$(PY) pipelines/league.py deals.heldout=20 league.bootstrap=50 league.baselines=[calling_station,mixed] \
		'league.agents=["cmd:python3 examples/agents/random_bot.py"]' league.tag_versions=false league.limits.sandbox=$(SANDBOX)  # an outside program enters
	$(PY) pipelines/compare.py experiment=evolve metric=champion_bb100 metrics=[best_fitness,generations_per_min]
	$(PY) -m sparring.cli tune hparams_search=ga_smoke trials=4 concurrency=2 search_id=make-run-$$(date +%Y%m%d-%H%M%S)  # ~2 min on 2 cores
	$(PY) -m sparring.cli compare --model sparring-holdem-champion --metric champion_bb100
	set -o pipefail; $(PY) -m sparring.cli arena game=flagbots 'agent=cmd:python3 examples/agents/random_bot.py' \
		'field=[random,"cmd:sh examples/agents/first_bot.sh"]' units=4 block=2 limits.sandbox=$(SANDBOX) | tail -n 4
	set -o pipefail; $(PY) -m sparring.cli arena game=poker agent=champion@champion 'field=[poker@calling_station,poker@maniac]' \
		units=20 block=10 | sed -n '/gauntlet in poker/,/└/p'  # evolve's champion vs two baselines
	set -o pipefail; $(PY) -m sparring.cli arena game=poker 'agent=acpc:python3 examples/agents/acpc_caller.py' \
		'field=[champion@champion,poker@tight_aggressive]' units=6 block=3 limits.sandbox=$(SANDBOX) | sed -n '/gauntlet in poker/,/└/p'  # an ACPC program over TCP
	set -o pipefail; $(PY) examples/train_pettingzoo.py --game poker --episodes 500 | tail -n 2  # a learner through PettingZoo's API
	$(PY) -m sparring.cli results
	$(PY) -m sparring.cli ray status  # the one local Ray every step above joined
	$(PY) -m sparring.cli cluster config --image ami-0abc12345def67890 -o data/cluster.example.yaml
	$(PY) -m sparring.cli submit --dry-run evolve deals.root=s3://my-bucket/deals checkpoint_root=s3://my-bucket/checkpoints
	@if command -v chromium >/dev/null; then $(PY) -m sparring.launch.screenshots --out data/ui; \
	else echo "(apt-get install chromium for screenshots of the MLflow UI: python -m sparring.launch.screenshots)"; fi
	$(VENV)/bin/mkdocs build --strict --quiet  # the documentation site, into site/
	@echo
	@echo "Results: data/ (Parquet), mlflow.db + mlartifacts/ (MLflow)$$(ls data/ui/*.png >/dev/null 2>&1 && echo ', data/ui/*.png (the MLflow UI)'); the docs: site/index.html (make docs-serve)."
	@echo "Open the MLflow UI with: make mlflow-ui   (or: $(VENV)/bin/mlflow ui --backend-store-uri sqlite:///mlflow.db)"
	@echo "The local Ray head stays up for later pipelines (10 idle minutes); end it now with: $(PY) -m sparring.cli ray stop"

# Two test processes (pytest-xdist, a file each at a time, the long folders first) on the
# session's one local Ray head, faster than one on 2 cores (benchmarks/RESULTS.md has the
# times). TEST_WORKERS=0: one process, the collected order.
TEST_WORKERS ?= 2

test: setup  ## the whole test suite (slow exhaustive checks included)
	$(PY) -m pytest -n $(TEST_WORKERS) $(if $(filter-out 0,$(TEST_WORKERS)),--dist loadfile --no-loadscope-reorder) --durations=15

test-fast: setup  ## the test suite without the slow exhaustive checks
	$(PY) -m pytest -n $(TEST_WORKERS) $(if $(filter-out 0,$(TEST_WORKERS)),--dist loadfile --no-loadscope-reorder) -m "not slow"

lint: setup  ## ruff and mypy (type checks over src/)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench: setup  ## benchmarks against their baselines (quick mode); see benchmarks/RESULTS.md
	$(PY) benchmarks/evaluator.py --quick
	$(PY) benchmarks/equity.py --quick
	$(PY) benchmarks/table_engine.py --quick
	$(PY) benchmarks/evolve.py --quick
	$(PY) benchmarks/eleusis.py --quick
	$(PY) benchmarks/search.py --quick
	$(PY) benchmarks/mus_engine.py --quick
	$(PY) benchmarks/player_model.py --quick
	$(PY) benchmarks/storage.py --quick

DOCS_PORT ?= 8000
docs: setup  ## the documentation site into site/ (generated pages refreshed; no broken link)
	$(PY) docs/generate.py
	$(VENV)/bin/mkdocs build --strict
	@echo "The site: $(CURDIR)/site/index.html (or: make docs-serve)"

docs-serve: setup  ## serve the documentation site on http://127.0.0.1:8000, rebuilt on every edit
	$(VENV)/bin/mkdocs serve --strict --dev-addr 127.0.0.1:$(DOCS_PORT)

MLFLOW_PORT ?= 5000
mlflow-server: setup  ## an MLflow tracking server on 127.0.0.1 (sqlite backend, served artifacts)
	@# without MLflow's job runner (seven processes for GenAI jobs Sparring never submits; sparring.runtime.tracking.servers)
	MLFLOW_SERVER_ENABLE_JOB_EXECUTION=$${MLFLOW_SERVER_ENABLE_JOB_EXECUTION:-false} \
		$(VENV)/bin/mlflow server --host 127.0.0.1 --port $(MLFLOW_PORT) \
		--backend-store-uri sqlite:///mlflow-server.db --artifacts-destination ./mlartifacts-server

mlflow-ui: setup  ## browse the local MLflow store on http://127.0.0.1:5000
	MLFLOW_SERVER_ENABLE_JOB_EXECUTION=$${MLFLOW_SERVER_ENABLE_JOB_EXECUTION:-false} \
		$(VENV)/bin/mlflow ui --backend-store-uri sqlite:///mlflow.db --host 127.0.0.1 --port 5000

clean-cache:  ## drop numba's compiled kernels (frees disk; never needed for correctness)
	find src tests -name '*.nbi' -o -name '*.nbc' | xargs rm -f
	rm -rf "$${SPARRING_KERNEL_CACHE:-$$HOME/.cache/sparring/kernels}"

clean:  ## remove outputs of runs (keeps .venv)
	rm -rf outputs multirun data mlartifacts mlflow.db .pytest_cache site
