"""How a search resumes: the saved search it names must exist (and a new one must not), its
stored keys replace the job's, and a search that did not run all its trials ends saying how to
resume it.

A killed search resumes with Tune's restore (``search_id=... resume=true``) and reruns no
finished trial; the keys a resume keeps are the search's own state (``state``).
"""

from __future__ import annotations

import signal
from pathlib import Path

from sparring.config.tune import Algorithm, TuneConfig
from sparring.runtime.errors import EXIT_INTERRUPTED, ConfigError
from sparring.runtime.signals import StoppedSaying
from sparring.runtime.tracking.runs import command_line_overrides
from sparring.tuning import state


def stored(job: TuneConfig) -> TuneConfig:
    """The job of a resume: the saved search must exist, and its stored keys replace the
    job's (an override that would change one is one ``ConfigError``, before Ray starts)."""
    assert job.search_id is not None  # TuneConfig requires it with resume=true
    path = Path(job.storage).resolve() / job.search_id
    check_storage(path, job.search_id, True)
    saved = state.load(path)
    return state.resumed(job, saved, command_line_overrides()) if saved else job


def check_storage(path: Path, search_id: str, resume: bool) -> None:
    """A resume needs Tune's saved search at ``path``; a new search needs none there (one
    ``ConfigError`` naming ``search_id`` either way)."""
    from ray.tune import Tuner

    exists = path.exists() and Tuner.can_restore(str(path))
    if resume and not exists:
        raise ConfigError("search_id", search_id, f"a search saved in {path.parent} to resume")
    if not resume and exists:
        raise ConfigError(
            "search_id", search_id, "a new id (that search exists: add resume=true to continue it)"
        )


def stop_if_interrupted(
    client, parent: str, job: TuneConfig, records, search_id: str, received: list[int]
) -> None:
    """A search that did not run all its trials was interrupted: the parent is KILLED and the
    resume command printed (the caller exits as after Ctrl-C, or with 128 + the signal that
    stopped it: ``received``)."""
    search = job.hparams_search
    unfinished = [r for r in records if r.state == "unfinished"]
    expected = search.grid_size() if search.algorithm is Algorithm.grid else job.trials
    if unfinished or len(records) < expected:
        client.set_terminated(parent, status="KILLED")
        said = f"terminated ({signal.Signals(received[0]).name})" if received else "interrupted"
        # the launcher prints it, once (it printed its own "interrupted" after this line)
        raise StoppedSaying(
            f"{said}; resume with: sparring tune search_id={search_id} resume=true"
            + (f" storage={job.storage}" if job.storage != "data/tune" else ""),
            128 + received[0] if received else EXIT_INTERRUPTED,
        )


__all__ = ["check_storage", "stop_if_interrupted", "stored"]
