"""Atomic claims in the MLflow store: one holder per key, across machines.

A job that must not run twice at once (a retrain id) claims its key first. A claim is a
registered model named ``<key>.<n>``: MLflow refuses a second model of the same name in one
transaction of its store (SQLite or a tracking server's database), so of two claimants started
together exactly one creates it, wherever they run. The model's tags name the holder's driver
(``host:pid:start``) and, once it has one, its MLflow run; its description says what runs, so the
Models page shows a retrain in progress. The holder deletes its claim when done, whatever the
outcome.

A claim outlives a holder killed with ``kill -9``. It is *stale* when its run has ended (the
next run on that host marks an orphan KILLED) or its driver is certainly gone; a new claimant
then creates ``<key>.<n+1>``, which again only one claimant can do, and deletes the stale ones.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mlflow.entities.model_registry import RegisteredModel
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from sparring.runtime.errors import UsageError
from sparring.runtime.tracking.runs import driver_gone, driver_id

DRIVER = "claim.driver"
RUN = "claim.run_id"
SINCE = "claim.since"


class ClaimHeld(UsageError):
    """Another live job holds the key."""


def claim_key(*parts: str) -> str:
    """A registered-model name prefix for the key ``parts`` (MLflow forbids ``/`` and ``:`` in
    names; a part that needed changing gets a short hash of its text, so keys stay distinct)."""
    safe = []
    for part in parts:
        cleaned = re.sub(r"[^A-Za-z0-9_-]", "-", part)
        if cleaned != part:
            cleaned += "-" + hashlib.sha256(part.encode()).hexdigest()[:6]
        safe.append(cleaned)
    return ".".join(safe)


@dataclass
class Claim:
    client: MlflowClient
    name: str

    def attach_run(self, run_id: str) -> None:
        """Name the holder's MLflow run (shown to a second claimant)."""
        self.client.set_registered_model_tag(self.name, RUN, run_id)

    def release(self) -> None:
        _delete(self.client, self.name)


def _delete(client: MlflowClient, name: str) -> None:
    # already removed as stale by a later claimant, or by hand: nothing to do
    with contextlib.suppress(MlflowException):
        client.delete_registered_model(name)


def _exists(exc: MlflowException) -> bool:
    return exc.error_code == "RESOURCE_ALREADY_EXISTS" or "already exists" in str(exc).lower()


def claims_of(client: MlflowClient, key: str) -> list[tuple[int, RegisteredModel]]:
    """The claims on ``key`` as (number, model), oldest first."""
    found = client.search_registered_models(filter_string=f"name LIKE '{key}.%'")
    numbered = []
    for model in found:
        suffix = model.name[len(key) + 1 :]
        if model.name.startswith(key + ".") and suffix.isdigit():  # LIKE's _ matches any char
            numbered.append((int(suffix), model))
    return sorted(numbered, key=lambda item: item[0])


def _holder_ended(client: MlflowClient, tags: dict[str, str]) -> bool:
    run_id = tags.get(RUN)
    if run_id:
        try:
            if client.get_run(run_id).info.status != "RUNNING":
                return True
        except MlflowException:
            return True  # the run was deleted
    return bool(tags.get(DRIVER)) and driver_gone(tags[DRIVER])


def describe(tags: dict[str, str]) -> str:
    """Who holds a claim: its run (or driver) and since when."""
    who = f"run {tags[RUN]}" if tags.get(RUN) else f"driver {tags.get(DRIVER, '?')}"
    since = tags.get(SINCE)
    return who + (f" (since {since})" if since else "")


def acquire(client: MlflowClient, key: str, what: str) -> Claim:
    """Claim ``key`` for this process, or raise ``ClaimHeld`` naming the live holder.

    ``what`` names the job in the message and in the claim's description."""
    tags = {DRIVER: driver_id(), SINCE: time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    for _ in range(5):
        held = claims_of(client, key)
        if held and not _holder_ended(client, held[-1][1].tags):
            raise ClaimHeld(f"{what} is already running: {describe(held[-1][1].tags)} holds it")
        name = f"{key}.{held[-1][0] + 1 if held else 0}"
        try:
            client.create_registered_model(
                name, tags=tags, description=f"claim: {what} is running (deleted when it ends)"
            )
        except MlflowException as exc:
            if not _exists(exc):
                raise
            continue  # another claimant took this number first: look again
        for _, stale in held:
            _delete(client, stale.name)
        return Claim(client, name)
    raise ClaimHeld(f"{what}: its claim keeps changing hands; try again")


@contextmanager
def claimed(client: MlflowClient, key: str, what: str) -> Iterator[Claim]:
    """``acquire`` for the duration of a block; released however the block ends."""
    claim = acquire(client, key, what)
    try:
        yield claim
    finally:
        claim.release()
