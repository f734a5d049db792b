"""The generic runner: independent units of work, run in parallel, each saved when it finishes.

An :class:`Experiment` lists its units for a configuration (``units(config)``: small
JSON-able dicts), computes one (``compute(config, unit) -> list of row dicts``) and assembles
the rows of all units into its tables (``assemble(config, rows DataFrame) -> {name:
DataFrame}``).  :func:`run` computes the units that are not on disk yet, with joblib
(``n_jobs`` local processes, or a Dask distributed scheduler through dask's joblib backend),
writes each one as ``<out>/<name>/units/<slug>.<digest>.json`` the moment it is back
(temporary file + ``os.replace``: a unit file is whole or absent), and assembles the tables
from the unit files.  A rerun after an interruption (cancel callback, exception, Ctrl-C,
killed process) loads the saved units and computes only the others.

A unit file's name holds a digest of the experiment's name, the unit and the configuration
less its ``grid_fields`` (the fields that only enumerate units, such as the list of data
sets): growing a grid reuses every unit already computed, and changing anything else (a
preset, a seed, a size) never mixes results of two configurations.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import joblib
import numpy as np
import pandas as pd

__all__ = ["Experiment", "ProgressLine", "Results", "config_from_dict", "config_to_dict",
           "load", "run", "unit_file_name", "write_json"]

CONFIG_FILE = "config.json"
UNITS_DIR = "units"


@dataclass(frozen=True)
class Experiment:
    """One experiment of the runner.

    Attributes
    ----------
    name : str
        Command-line name and directory under ``out``.
    title : str
    config_type : type
        Frozen dataclass of the configuration.
    quick, full : config_type instances
        The presets: under a minute on 2 cores, and the paper's sizes where it states them.
    units : callable(config) -> list of dict
        The units of work, each a JSON-able dict of scalars (strings, numbers, None).
    compute : callable(config, unit) -> list of dict
        The rows of one unit (module-level, so that joblib and Dask can ship it).
    assemble : callable(config, rows) -> dict of DataFrame
        The tables from the rows of every unit that is done (``rows`` has ``columns``);
        must accept a partial set of units.
    columns : tuple of str
        The columns of a unit's rows.
    grid_fields : tuple of str
        Configuration fields that only enumerate units (left out of the unit digest).
    parallel : bool
        False for timing experiments: their units run one after the other in this process
        (parallel units would time each other's contention).
    report : callable(tables) -> str, optional
        The tables as text for the command line (default: each table but ``units`` printed
        whole).
    """

    name: str
    title: str
    config_type: type
    quick: object
    full: object
    units: Callable
    compute: Callable
    assemble: Callable
    columns: tuple
    grid_fields: tuple = ()
    parallel: bool = True
    report: Callable | None = None


@dataclass
class Results:
    """What a run (or :func:`load_results`) found: the tables and how far the units are.

    ``tables`` maps a table name to its DataFrame (``"units"``: every row of every finished
    unit, in unit order); ``done`` / ``total`` count the units on disk / in the
    configuration, ``computed`` those this call computed; ``cancelled`` is True when the
    cancel callback stopped the run; ``seconds`` is this call's wall time.
    """

    name: str
    config: object
    tables: dict
    done: int
    total: int
    computed: int = 0
    cancelled: bool = False
    seconds: float = 0.0
    directory: Path | None = None
    files: list = field(default_factory=list)

    @property
    def complete(self):
        return self.done == self.total


# --------------------------------------------------------------------------- files

def _plain(value):
    """JSON encoder's fallback: numpy scalars and arrays as Python values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _dumps(obj, **kw):
    return json.dumps(obj, default=_plain, **kw)


def write_json(path, obj):
    """Write ``obj`` as JSON to ``path`` atomically (temporary file in the same directory,
    flushed to disk, then ``os.replace``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(_dumps(obj, indent=1))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def config_to_dict(config):
    """A configuration dataclass as a JSON-able dict (tuples become lists)."""
    return json.loads(_dumps(dataclasses.asdict(config)))


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def config_from_dict(config_type, values):
    """The configuration of :func:`config_to_dict` back (lists become tuples)."""
    return config_type(**{k: _tuples(v) for k, v in values.items()})


def _slug(unit):
    text = "_".join("" if v is None else str(v) for v in unit.values())
    return re.sub(r"[^A-Za-z0-9.=-]+", "-", text).strip("-")[:80] or "unit"


def unit_file_name(experiment, config, unit):
    """``<slug>.<digest>.json``: the slug names the unit for people, the digest (SHA-256 of
    the experiment name, the unit and the configuration less ``grid_fields``) identifies it."""
    relevant = {k: v for k, v in config_to_dict(config).items()
                if k not in experiment.grid_fields}
    key = _dumps({"experiment": experiment.name, "config": relevant, "unit": unit},
                 sort_keys=True)
    return f"{_slug(unit)}.{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def _read_rows(path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))["rows"]
    except (OSError, ValueError, KeyError, TypeError):
        return None   # absent, or not a unit file: compute the unit


# --------------------------------------------------------------------------- progress

class ProgressLine:
    """A one-line terminal progress bar: ``callable(done, total)``.

    Rewrites its line with a carriage return; the time left is extrapolated from the units
    finished since the bar's first call (units loaded from disk do not count).
    """

    def __init__(self, label, stream=None, width=28):
        self.label, self.stream, self.width = label, stream or sys.stderr, width
        self._start = None

    def __call__(self, done, total):
        now = time.perf_counter()
        if self._start is None:
            self._start, self._first = now, done
        filled = self.width * done // max(total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = now - self._start
        line = f"\r{self.label}: {done}/{total} units [{bar}] {elapsed:6.1f} s"
        if done > self._first and done < total:
            line += f", ~{elapsed / (done - self._first) * (total - done):.0f} s left"
        self.stream.write(line.ljust(self.width + 48) + ("\n" if done >= total else ""))
        self.stream.flush()


# --------------------------------------------------------------------------- running

def _timed(compute, config, unit, name):
    """Run one unit (in a worker): ``(file name, rows, seconds)``."""
    t0 = time.perf_counter()
    rows = compute(config, unit)
    return name, rows, time.perf_counter() - t0


@contextmanager
def _backend(scheduler):
    """joblib's dask backend on ``scheduler`` (an address or a ``distributed.Client``)."""
    if scheduler is None:
        yield
        return
    try:
        from distributed import Client  # also registers joblib's "dask" backend
    except ImportError:
        raise ImportError('a Dask scheduler needs the "dask" extra: pip install '
                          '"cbviz[dask]"') from None
    where = {"client": scheduler} if isinstance(scheduler, Client) else \
        {"scheduler_host": str(scheduler)}
    with joblib.parallel_config(backend="dask", **where):
        yield


def _stream(experiment, config, todo, n_jobs, scheduler):
    """``(file name, rows, seconds)`` of each unit of ``todo`` as it finishes.

    Closing the generator aborts the units still queued.
    """
    calls = (joblib.delayed(_timed)(experiment.compute, config, u, n) for u, n in todo)
    if not experiment.parallel:
        for function, args, kwargs in calls:
            yield function(*args, **kwargs)
        return
    with _backend(scheduler):
        stream = joblib.Parallel(n_jobs=-1 if scheduler is not None else n_jobs,
                                 return_as="generator_unordered")(calls)
        try:
            yield from stream
        finally:
            with warnings.catch_warnings():   # joblib's note on the tasks it drops
                warnings.filterwarnings("ignore", "[0-9]+ tasks which were still being")
                stream.close()


def _save(directory, experiment, unit, name, rows, seconds):
    """Write one unit file; return its rows as read back (JSON round trip)."""
    record = {"experiment": experiment.name, "unit": unit, "rows": rows,
              "seconds": seconds, "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    write_json(directory / UNITS_DIR / name, record)
    return json.loads(_dumps(rows))


def _on_disk(directory, names):
    """``{file name: rows}`` of the units already saved in ``directory``."""
    rows = {}
    for name in names:
        found = _read_rows(directory / UNITS_DIR / name)
        if found is not None:
            rows[name] = found
    return rows


def _assemble(experiment, config, names, rows_by_name):
    rows = [r for n in names if n in rows_by_name for r in rows_by_name[n]]
    frame = pd.DataFrame(rows, columns=list(experiment.columns))
    return {**experiment.assemble(config, frame), "units": frame}


def run(experiment, config, out, n_jobs=1, scheduler=None, progress=None, cancel=None):
    """Compute the units of ``experiment`` under ``config`` that are not in ``out`` yet.

    Parameters
    ----------
    experiment : Experiment
    config : ``experiment.config_type`` instance
    out : path
        Results go to ``out/<experiment.name>/``: ``config.json``, ``units/`` and, once
        every unit is done, one ``<table>.csv`` per table.
    n_jobs : int
        joblib processes (``-1``: all cores); ignored with ``scheduler`` (the cluster's
        workers decide) and by experiments with ``parallel=False``.
    scheduler : str or distributed.Client, optional
        Hand the units to this Dask scheduler (e.g. ``"tcp://10.0.0.5:8786"``); its workers
        need cbviz installed.  Unit files are written here, by this process.
    progress : callable(done, total), optional
        Called once at the start and after every finished unit.
    cancel : callable() -> bool, optional
        Asked before the work starts and after every finished unit; True stops the run
        (units in flight are dropped; those finished stay on disk).

    Returns
    -------
    Results
    """
    t0 = time.perf_counter()
    directory = Path(out) / experiment.name
    write_json(directory / CONFIG_FILE, {"experiment": experiment.name,
                                         "config": config_to_dict(config)})
    units = experiment.units(config)
    names = [unit_file_name(experiment, config, u) for u in units]
    if len(set(names)) != len(names):   # same unit twice
        raise ValueError(f"{experiment.name}: two units of this configuration are the same")
    unit_of = dict(zip(names, units))
    rows = _on_disk(directory, names)
    todo = [(u, n) for u, n in zip(units, names) if n not in rows]
    report = progress or (lambda done, total: None)
    stop = cancel or (lambda: False)
    report(len(rows), len(units))
    computed = 0
    cancelled = bool(todo) and stop()
    if todo and not cancelled:
        stream = _stream(experiment, config, todo, n_jobs, scheduler)
        try:
            for name, unit_rows, seconds in stream:
                rows[name] = _save(directory, experiment, unit_of[name], name, unit_rows,
                                   seconds)
                computed += 1
                report(len(rows), len(units))
                if len(rows) < len(units) and stop():
                    cancelled = True
                    break
        finally:
            stream.close()
    tables = _assemble(experiment, config, names, rows)
    files = []
    if len(rows) == len(units):
        for table, frame in tables.items():
            files.append(directory / f"{table}.csv")
            frame.to_csv(files[-1], index=False)
    return Results(experiment.name, config, tables, len(rows), len(units), computed, cancelled,
                   time.perf_counter() - t0, directory, files)


def load(experiment, out, config=None):
    """The tables of the units on disk for ``config`` (default: that of the last run in
    ``out``), without computing anything; None when ``out`` holds no run of the experiment
    (or only one whose configuration this version cannot read)."""
    directory = Path(out) / experiment.name
    if config is None:
        try:
            stored = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
            config = config_from_dict(experiment.config_type, stored["config"])
        except (OSError, ValueError, TypeError, KeyError):   # none, or of an older version
            return None
    units = experiment.units(config)
    names = [unit_file_name(experiment, config, u) for u in units]
    rows = _on_disk(directory, names)
    tables = _assemble(experiment, config, names, rows)
    files = [directory / f"{t}.csv" for t in tables] if len(rows) == len(units) else []
    return Results(experiment.name, config, tables, len(rows), len(units), directory=directory,
                   files=[f for f in files if f.exists()])
