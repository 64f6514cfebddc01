"""The specs of a campaign's runs and their ids: a pair, a configured task, a subject file, one run.

What the config loader builds (:class:`PairSpec`, :class:`TaskSpec`), what the parent reads
(:class:`Subject`, :func:`read_subject`) and what crosses to a worker (:class:`RunSpec`, with its
deterministic :func:`run_id`: stored run ids depend on it, so its key never changes).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.limits import Limits
from harness.core.record import dumps
from harness.errors import InputError

RACE = "race"  # the plugin and variant a race's records carry (its backend and formulation columns)


RANK_BY = ("auto", "cpu", "wall")
"""What a report may rank pairs by (config ``[report] rank_by``, ``report --rank-by``; the rule for ``auto``:
:func:`harness.report.data.pair_measures`)."""

CONTROL_SUFFIX = "~aa"
"""The end of an A/A control's label: the pair's second copy, run interleaved with it (config ``[report]
controls``), from which the report measures the machine's run-to-run noise."""


@dataclass(frozen=True)
class PairSpec:
    """A pair: the task's plugin (a backend, counter or strategy: :attr:`TaskType.plugin` names it per task) x
    its variant (a formulation, what is counted, an announcement rule: :attr:`TaskType.variant`) x options,
    with its deterministic label.  The record keeps them in its ``backend`` and ``formulation`` columns."""

    plugin: str
    variant: str
    options: tuple[tuple[str, Any], ...] = ()  # as configured (not the defaults), sorted
    params: tuple[tuple[str, Any], ...] = ()  # the task's own settings of this pair (play: games)
    legs: tuple["PairSpec", ...] = ()  # a race (plugin = variant = "race"): its pairs, in order
    control: bool = False  # an A/A control: the same pair again, labelled with CONTROL_SUFFIX

    @property
    def label(self) -> str:
        if self.legs:
            own = "race[" + ",".join(leg.label for leg in self.legs) + "]"
        else:
            opts = ",".join(f"{k}={_text(v)}" for k, v in self.options)
            own = f"{self.plugin}[{opts}]/{self.variant}" if opts else f"{self.plugin}/{self.variant}"
        return own + CONTROL_SUFFIX if self.control else own

    @property
    def backend(self) -> str:
        """The old name of :attr:`plugin`, read-only: kept for plugin tasks written before (the house says plugin)."""
        return self.plugin

    @property
    def formulation(self) -> str:
        """The old name of :attr:`variant`, read-only: kept for plugin tasks written before (the house says variant)."""
        return self.variant

    @property
    def option_dict(self) -> dict[str, Any]:
        return dict(self.options)

    @property
    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class TaskSpec:
    """A configured task: the registered task (``name``), what its runs' ``question`` column says (``label``) and
    its parameters (the solve task's ``k``)."""

    name: str
    label: str
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)


@dataclass(frozen=True)
class Subject:
    """One subject file as the parent read it: the value (None when it did not parse), its name, the hash of
    its content (of the file's bytes when it did not parse) and the one-line error."""

    path: str  # as shown (relative to the working directory where it can be)
    value: Any
    name: str
    digest: str
    error: str = ""


@dataclass(frozen=True)
class RunSpec:
    """One run to execute: everything a worker (local or on a cluster) needs, picklable."""

    run_id: str
    campaign: str
    config_hash: str
    instance_path: str
    instance_name: str
    instance_hash: str
    instance: Any  # the subject (a puzzle, a deployment instance, a board); None: the file did not parse
    load_error: str
    pair: PairSpec
    task: TaskSpec
    seed: int | None
    repetition: int
    limits: Limits

    @property
    def options(self) -> dict[str, Any]:
        """The pair's options, with the run's seed."""
        opts = self.pair.option_dict
        if self.seed is not None:
            opts["seed"] = self.seed
        return opts


def run_id(shown: str, digest: str, pair: PairSpec, task: TaskSpec, seed: int | None, rep: int,
           limits: Limits) -> str:
    """The deterministic id of a run: same file and content, pair, question, seed, repetition and limits."""
    key = dumps([shown, digest, pair.label, task.label, seed, rep, limits.time_s, limits.memory_mb])
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def interleaved(pairs: tuple[PairSpec, ...] | list[PairSpec], i: int) -> list[PairSpec]:
    """``pairs`` in the order they run on the ``i``-th subject: an A/A control (listed right after its pair)
    runs after it on even subjects and before it on odd ones, so that neither copy always runs first."""
    order = list(pairs)
    if i % 2:
        for k in range(1, len(order)):
            if order[k].control and not order[k - 1].control:
                order[k - 1], order[k] = order[k], order[k - 1]
    return order


def make_spec(subject: Subject, pair: PairSpec, task: TaskSpec, seed: int | None, rep: int, limits: Limits,
              campaign: str = "", config_hash: str = "") -> RunSpec:
    return RunSpec(run_id(subject.path, subject.digest, pair, task, seed, rep, limits), campaign, config_hash,
                   subject.path, subject.name, subject.digest, subject.value, subject.error, pair, task, seed,
                   rep, limits)



def read_subject(path: Path, read: Any, shown: str) -> Subject:
    """``read(path)`` as a :class:`Subject`; an InputError is kept as the subject's error (its runs are
    recorded as ``error``, the campaign goes on)."""
    try:
        value = read(path)
        return Subject(shown, value, value.name, value.content_hash())
    except InputError as exc:
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        except OSError:
            digest = "missing"
        return Subject(shown, None, path.stem, digest, str(exc))
