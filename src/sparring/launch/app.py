"""How a pipeline script starts: Hydra composes the config, the schema checks it, ``run`` works.

``launch(__file__, "evolve", "sparring.pipelines.evolve:run")`` is the whole body of
``pipelines/evolve.py``. It keeps every Hydra feature (``--help``, ``--cfg job``, ``-m`` sweeps,
overrides) and adds what users of a command expect:

- check first, import later: the pipeline's module (and with it Ray, MLflow and numba) is
  imported only once the config is composed, typed and checked, so ``--help`` and a typo'd key
  answer in about a second instead of after ten seconds of imports;

- every expected failure (an unknown key, a wrong type, a value out of range, a missing path, a
  tracking URI that cannot be opened) prints one line, ``error: ...``, and exits 2 before any
  Ray work starts; ``SPARRING_DEBUG=1`` shows the full traceback instead;
- Ctrl-C prints one line (saying how to resume where that is possible), marks the MLflow run
  KILLED and exits 130;
- the task returns the value of the config's objective when the pipeline's results name one, so
  Hydra sweepers can drive any pipeline.
"""

from __future__ import annotations

import atexit
import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeAlias

from sparring.config.objective import objective_value
from sparring.launch.help import CHECK_ENV, CHECK_FLAG, wants_help
from sparring.launch.help import render as render_help
from sparring.launch.preflight import check_tracking
from sparring.pipelines import PIPELINES
from sparring.runtime import checkout
from sparring.runtime.errors import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    reader_gone,
    said_last,
    say_last,
)
from sparring.runtime.explain import one_line
from sparring.runtime.ray.health import when_stuck
from sparring.runtime.signals import Stopped, handle_termination, mark, termination

RESUME_HINT = "interrupted; run the same command again to resume"

# A function, or where to find it: "package.module:function", imported when first needed.
Target: TypeAlias = Callable[..., Any] | str


def resolve(target: Target) -> Callable[..., Any]:
    """The function ``target`` names (itself when it is one already)."""
    if callable(target):
        return target
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _debug() -> bool:
    return os.environ.get("SPARRING_DEBUG", "") not in ("", "0", "false", "no")


def refuse_lost_in_a_job(config: Any) -> None:
    """A pipeline started by a plain ``ray job submit`` runs in the job's temporary working
    directory (Ray's ``runtime_resources``): every relative output, the default sqlite store
    included, would be lost with it and its closing link would name a run nobody can open.
    Refuse them all in one line, as ``sparring submit`` does before it sends a job."""
    if "runtime_resources" not in Path.cwd().parts:
        return
    from sparring.launch.submit import output_problems, refuse_lost
    from sparring.runtime.config import to_container

    refuse_lost(output_problems(to_container(config)))


def launch(script: str, config_name: str, run: Target) -> None:
    """Run ``run(typed_config)`` under Hydra with the conventions above; never returns.

    ``script`` is the calling file (``__file__``): its repository's ``conf/`` holds the configs.
    ``run`` may be given as ``"module:function"``: it is imported after the checks, so nothing
    heavy is imported for ``--help`` or a bad override. The task returns the metric the config
    names as its ``objective`` (for sweepers).

    The rest is the pipeline's traits (``sparring.pipelines.PIPELINES[config_name]``):
    ``resumable`` says whether running the same command again continues an interrupted run
    (a function of the typed config where that depends on it, e.g. evolve's ``resume``);
    ``preflight`` checks the typed config further before ``run`` is imported (compare: the
    store it reads); ``exit_status`` maps the result of a single run to the process's exit
    status (retrain: 0 promoted, 10 kept), imported after the checks too; without it a
    finished run exits 0.
    """
    import hydra

    import sparring.config  # registers the schemas  # noqa: F401
    from sparring.config import to_typed
    from sparring.config.best_files import check_best_files
    from sparring.config.renamed import refuse_renamed

    traits = PIPELINES[config_name]
    resumable = traits.resumable
    preflight = traits.preflight
    exit_status = traits.function("exit_status") if traits.exit_status else None

    # Hydra re-raises instead of printing its own multi-line report; we print one line.
    os.environ["HYDRA_FULL_ERROR"] = "1"
    conf_dir = checkout.use_script_conf(script)
    typed: list[Any] = []  # the config, once it is known (for the Ctrl-C message)
    results: list[Any] = []  # what run returned (Hydra's main does not pass it on)

    @hydra.main(version_base="1.3", config_path=conf_dir, config_name=config_name)
    def task(cfg: Any) -> float | None:
        # Errors are reported here, not after Hydra's job wrapper, which would print a line of
        # its own ("Error executing job ...") before ours.
        with _reported():
            _redact_hydra_files()
            config: Any = to_typed(cfg)
            typed.append(config)
            refuse_lost_in_a_job(config)
            tracking = getattr(config, "tracking", None)
            if tracking is not None:
                check_tracking(tracking.uri)
            if checking:  # (a preflight looks at state: a champion, checkpoints; not here)
                print(f"{config_name}: the config composes and passes its checks; nothing was "
                      "run (--check)")  # fmt: skip
                return None
            if preflight is not None:
                resolve(preflight)(config)
            result = resolve(run)(config)
            results.append(result)
            return objective_value(config, result)

    # Hydra names the job (hydra.job.name: output dirs, a sweep's experiment) after the task
    # function's module; this one is defined here, so give it the pipeline's name.
    task.__wrapped__.__module__ = config_name

    checking = CHECK_FLAG in sys.argv[1:]
    if checking:  # Hydra's job directories go to a scratch directory, removed at exit
        scratch = tempfile.mkdtemp(prefix="sparring-check-")
        atexit.register(shutil.rmtree, scratch, True)
        os.environ[CHECK_ENV] = "1"
        sys.argv = [a for a in sys.argv if a != CHECK_FLAG]
        sys.argv += [f"hydra.run.dir={scratch}", f"hydra.sweep.dir={scratch}",
                     "hydra.output_subdir=null"]  # fmt: skip
    handle_termination()  # SIGTERM / SIGHUP end the run as Ctrl-C does
    began = mark()

    def hint_for(ended: Stopped | None) -> str:
        resumes = resumable(typed[-1]) if callable(resumable) and typed else resumable is True
        said = ended.said if ended else "interrupted"
        hint = RESUME_HINT.replace("interrupted", said) if resumes else said
        if ended and ended.retry and not resumes:
            hint += "; run the same command again"
        return hint

    # a driver held inside Ray when its head ends is ended by the head's watcher: the same line
    when_stuck(lambda lost: print(hint_for(lost), file=sys.stderr))
    try:
        with _reported():  # composition errors: unknown keys, wrong types, unknown options
            refuse_renamed(config_name, sys.argv[1:])  # an old key: its new name, no Hydra
            check_best_files(conf_dir, sys.argv[1:])  # a best-config file cut short: one line
            if wants_help(sys.argv[1:]):  # this pipeline's groups only (launch/help.py)
                overrides = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
                print(render_help(conf_dir, config_name, overrides))
                sys.exit(0)
            task()
    except KeyboardInterrupt as stop:
        ended = termination(stop, began)  # (a SIGTERM Ray re-raised as a plain Ctrl-C too)
        say_last(hint_for(ended))
        if ended and ended.retry:
            # Ray is gone: its shutdown at exit would wait for it, log C++ lines and exit 1
            sys.stdout.flush()
            os._exit(ended.exit_status)
        sys.exit(ended.exit_status if ended else EXIT_INTERRUPTED)
    except SystemExit as leaving:
        if leaving.code not in (0, None):  # its one line ("error: ...") is printed
            said_last()
        raise
    sys.exit(resolve(exit_status)(results[0]) if exit_status and len(results) == 1 else 0)


def _redact_hydra_files() -> None:
    """Hydra writes the job's config, its own config and the overrides into the job's output
    directory (``outputs/<date>/<time>/.hydra/``, and a sweep's ``multirun.yaml``) before the
    task runs; rewrite them with every URL's credentials and query redacted, as everything
    Sparring records is."""
    from hydra.core.hydra_config import HydraConfig

    from sparring.runtime.redact import redact_text

    hydra_cfg = HydraConfig.get()
    if not hydra_cfg.output_subdir:
        return
    written = list((Path(hydra_cfg.runtime.output_dir) / hydra_cfg.output_subdir).glob("*.yaml"))
    written.append(Path(hydra_cfg.sweep.dir) / "multirun.yaml")  # a sweep's, beside its jobs
    for path in (p for p in written if p.is_file()):
        text = path.read_text()
        clean = redact_text(text)
        if clean != text:
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(clean)
            os.replace(tmp, path)


@contextmanager
def _reported() -> Iterator[None]:
    """Turn an expected failure into one line on stderr and exit status 2."""
    began = mark()
    try:
        yield
    except (KeyboardInterrupt, SystemExit):
        raise
    except BrokenPipeError:
        sys.exit(reader_gone())
    except Exception as exc:
        ended = termination(exc, began)  # a SIGTERM a library raised as its own error
        if ended:
            raise ended from exc
        line = one_line(exc)
        if line is None or _debug():
            raise
        print(f"error: {line}", file=sys.stderr)
        sys.exit(EXIT_USAGE)
