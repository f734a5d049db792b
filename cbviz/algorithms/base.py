"""The step protocol shared by every algorithm: records, and runs that keep a history.

A run is built from a training voter matrix (dense array or :class:`~cbviz.voters.VoterOperator`),
labels in {-1, +1} and optional test data.  Each ``step()`` advances one iteration and
returns an immutable :class:`Record`; ``done`` and ``stop_reason`` say when and why it stopped.
"""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import bounds
from ..constraints import Interval, ParameterError, validate
from ..voters import as_operator
from ._history import Vote, WeightLog, frozen
from ._inputs import check_labels, check_outputs, own_trees

__all__ = ["ParameterError", "Candidates", "Record", "Run", "MAX_ITER", "MAX_ITER_OR_NONE", "DELTA",
           "check_params"]

# a run snapshots its vote after at least this many weight changes (:meth:`Run._vote`)
SNAPSHOT_MIN = 64

# the two parameters every algorithm takes (declared in each factory's _parameter_constraints)
MAX_ITER = Interval(int, 1, None, closed="left")
# an algorithm whose paper has a stopping rule of its own also takes None: no cap, run to that rule
MAX_ITER_OR_NONE = Interval(int, 1, None, closed="left", none=True)
DELTA = Interval(float, 0, 1, closed="right")   # the confidence parameter of the bounds


def check_params(factory, **values):
    """``values`` checked against ``factory``'s (a class or an instance)
    ``_parameter_constraints`` and converted (ints, floats, bools); refused with the
    class's name as the owner (:func:`cbviz.constraints.refusal`)."""
    cls = factory if isinstance(factory, type) else type(factory)
    return validate(cls._parameter_constraints, values, cls.__name__)


@dataclass(frozen=True)
class Candidates:
    """Per-candidate quantities of one step (kept only on request: they cost O(n) memory).

    ``gradient``: descent rate ``-dC/da_k`` at ``a_k = 0``; ``decrease``: exact C-bound
    decrease of the optimal step (CB-Boost paper, Property 1), 0 where no progress;
    ``alpha``: the Theorem 3 optimal weight, 0 where no progress; ``valid``: the voter is
    a legal, improving direction.
    """

    gradient: np.ndarray
    decrease: np.ndarray
    alpha: np.ndarray
    valid: np.ndarray

    @property
    def gradient_pick(self):
        """Index the gradient rule takes (GB-CB-Boost), or -1."""
        return first_argmax(np.where(self.valid, self.gradient, -np.inf))

    @property
    def exhaustive_pick(self):
        """Index the exhaustive rule takes (CB-Boost), or -1."""
        return first_argmax(np.where(self.valid, self.decrease, -np.inf))


def first_argmax(score, rtol=1e-12):
    """Lowest index whose score is within ``rtol`` of the maximum (-1 if none is finite).

    The tolerance makes ties between voters that are identical on the sample resolve
    the same way whatever product (dense or prefix sums) computed the scores.
    """
    best = np.max(score) if score.size else -np.inf
    if not np.isfinite(best):
        return -1
    return int(np.flatnonzero(score >= best - rtol * max(abs(best), 1e-300))[0])


@dataclass(frozen=True)
class Record:
    """One iteration of a run; the same field names across algorithms where they exist.

    ``iteration`` is the number of steps taken (for CB-Boost without ``reuse_voters``: the
    voters in the vote);
    ``support`` / ``weights`` are the non-zero entries of the (unnormalized) weight vector;
    the bound fields follow :func:`cbviz.bounds.bound_panel` (``pac_bound`` is Roy et al.
    2016, Theorem 2); ``objective`` is what the algorithm minimizes.
    """

    iteration: int
    index: int | None
    label: str | None
    alpha: float | None
    n_voters: int
    c_bound: float
    mu1: float
    mu2: float
    gibbs_risk: float
    disagreement: float
    joint_error: float
    train_error: float
    test_error: float | None
    kl: float
    pac_bound: float
    first_order_bound: float
    pac_bound_1: float
    tandem_bound: float
    objective: float
    seconds: float
    predicted_decrease: float | None = None
    actual_decrease: float | None = None
    extra: dict = dataclasses.field(default_factory=dict)
    candidates: Candidates | None = None
    # the weight vector after this iteration, kept as the run's log of weight changes
    # (:class:`Vote`): ``support`` / ``weights`` are rebuilt from it on demand
    _vote: Vote | None = dataclasses.field(default=None, kw_only=True)

    @property
    def support(self):
        """Indices of the voters with a non-zero weight after this iteration, increasing
        (read-only int64 array)."""
        return self._vote.arrays()[0]

    @property
    def weights(self):
        """Their (unnormalized) weights, aligned with ``support`` (read-only float64 array)."""
        return self._vote.arrays()[1]

    def as_row(self):
        """Scalar fields (and ``extra``) as a flat dict, for DataFrames and CSV."""
        row = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name not in ("_vote", "extra", "candidates")}
        row.update(self.extra)
        return row


class Run:
    """A run in progress: data, history and the record-making shared by all algorithms.

    Subclasses implement :meth:`_advance`, returning ``(index, alpha, extras)`` after
    updating the weight vector ``self._a`` and the votes, or ``None`` after setting
    ``stop_reason``.  They change the weights only through :meth:`_add`, :meth:`_put`,
    :meth:`_set_weights` or :meth:`_set_signed`: these keep the support (the indices of the
    non-zero weights, sorted) up to date, so that a step that moves a few voters costs no
    scan of the n weights (a pool of every midpoint has millions of voters).

    A run stops by its paper's rule or after ``max_iter`` records (None: no limit).  Where
    :attr:`own_rule` is None the paper runs a fixed number of iterations T, and ``max_iter`` is
    T; else reaching ``max_iter`` first is a cap: the run is ``capped`` and its reason says so.
    """

    #: the paper's own stopping rule in words when it is not a fixed number of iterations
    own_rule: str | None = None
    #: True when the run can fit its next voter (a :class:`~cbviz.voters.TreePool`'s trees)
    #: instead of choosing it from a fixed pool
    fits_voters = False

    def __init__(self, H, y, H_test=None, y_test=None, *, max_iter, delta=0.05, describe=None):
        self.H = check_outputs(as_operator(H), "H")
        m, n = self.H.shape
        self.fixed = getattr(self.H, "fixed_in_advance", True)
        if not self.fixed:   # the run fits its trees into a pool of its own
            H, H_test, describe = own_trees(self, H_test, describe)
            self.H = H
        self.y = check_labels(y, m)
        if n == 0:
            raise ParameterError("the voter pool is empty")
        if (H_test is None) != (y_test is None):
            raise ParameterError("give both H_test and y_test, or neither")
        self.H_test = None if H_test is None else check_outputs(as_operator(H_test), "H_test")
        self.y_test = None if y_test is None else check_labels(y_test, self.H_test.shape[0])
        if self.H_test is not None and self.H_test.shape[1] != n:
            raise ParameterError(f"H_test has {self.H_test.shape[1]} voters, H has {n}")
        owner = type(self).__name__.removesuffix("Run")
        self.max_iter = MAX_ITER_OR_NONE.check(max_iter, "max_iter", owner)
        self.delta = DELTA.check(delta, "delta", owner)
        self.describe = describe
        self.history: list[Record] = []
        self.stop_reason: str | None = None
        self.capped = False   # a cap (max_iter, a solver's budget) stopped it before its rule
        self._a = np.zeros(n)
        self._support = np.empty(0, dtype=np.int64)
        # the weight changes since the last snapshot (records keep it and its length)
        self._log = WeightLog(frozen(self._support, np.int64), frozen(np.empty(0)))
        self._log_used = 0   # the log's length at the last record
        self.F = np.zeros(m)
        self.F_test = None if self.H_test is None else np.zeros(self.H_test.shape[0])

    @property
    def done(self):
        """True once the run has stopped; ``stop_reason`` says why."""
        return self.stop_reason is not None

    @property
    def weights(self):
        """Current weight vector over all voters (a copy)."""
        return self._a.copy()

    @property
    def support(self):
        """Indices of the voters with a non-zero weight, increasing (a copy)."""
        return self._support.copy()

    @property
    def n_direct(self):
        """Number of direct voters of a self-complemented pool (``n / 2``).

        Algorithms with signed weights (MinCq, QuadBoost, the KL-regularized learner) work
        on these and put a negative weight on the complement (:meth:`_set_signed`).
        """
        if not self.H.is_self_complemented():
            raise ParameterError(
                f"{type(self).__name__} needs a self-complemented pool: voters 0..n/2-1 and "
                "their complements in the same order (pools with complements=True)")
        return self.H.shape[1] // 2

    def _set_signed(self, w):
        """Set the vote from signed weights ``w`` on the direct voters.

        ``w_k > 0`` goes to voter ``k``, ``w_k < 0`` to its complement ``k + n/2`` with weight
        ``|w_k|``: the same vote with non-negative weights, so Q, KL and the bounds are those of
        the self-complemented pool.
        """
        w = np.asarray(w, dtype=float)
        a = np.concatenate([np.maximum(w, 0.0), np.maximum(-w, 0.0)])
        self._set_weights(a)

    def _add(self, k, alpha):
        """Incremental update: ``a_k += alpha`` and the votes gain ``alpha h_k`` (O(m))."""
        was = self._a[k] != 0.0
        self._a[k] += alpha
        self._track(k, was)
        self._log.append(np.array([k]), self._a[k:k + 1])
        self.F = self.F + alpha * self.H.column(k)
        if self.F_test is not None:
            self.F_test = self.F_test + alpha * self.H_test.column(k)

    def _put(self, k, value):
        """Set weight ``a_k = value`` (the votes are the caller's to update)."""
        was = self._a[k] != 0.0
        self._a[k] = value
        self._track(k, was)
        self._log.append(np.array([k]), self._a[k:k + 1])

    def _track(self, k, was):
        """Keep the support sorted after weight ``k`` changed from non-zero (``was``) or zero:
        O(support) when it enters or leaves, nothing otherwise."""
        now = self._a[k] != 0.0
        if now == was:
            return
        i = int(np.searchsorted(self._support, k))
        self._support = (np.insert(self._support, i, k) if now
                         else np.delete(self._support, i))

    def _set_weights(self, a):
        """Replace the whole non-negative weight vector and recompute the votes."""
        old = self._a
        self._a = np.asarray(a, dtype=float).copy()
        self._support = np.flatnonzero(self._a)
        changed = np.flatnonzero(old != self._a)   # O(n) like the copy: log what moved
        self._log.append(changed, self._a[changed])
        self.F = self.H.matvec(self._a)
        if self.H_test is not None:
            self.F_test = self.H_test.matvec(self._a)

    def step(self):
        """Advance one iteration; return its :class:`Record`, or ``None`` when done."""
        if self.done:
            return None
        t0 = time.perf_counter()
        moved = self._advance()
        if moved is None:
            if self.done:
                self._log.trim(self._log_used)
            return None
        record = self._record(*moved, seconds=time.perf_counter() - t0)
        self.history.append(record)
        if self.max_iter is not None and len(self.history) >= self.max_iter and not self.done:
            self._stop_at_max_iter()
        if self.done:
            self._log.trim(self._log_used)
        return record

    def _fit_voter(self, labels, weights):
        """Fit the next voter to ``labels`` (+-1) under example ``weights`` (a tree pool's
        operator); its index, or None after stopping when the pool holds ``max_trees``."""
        pool = self.H.pool
        if len(pool.trees_) >= pool.max_trees:
            self.capped = True
            self.stop_reason = (f"the tree pool is full: max_trees={pool.max_trees} trees were "
                                "fitted (a cap, not the algorithm's rule)")
            return None
        return self.H.fit_voter(labels, weights)

    def _stop_at_max_iter(self):
        """Stop after ``max_iter`` records: the paper's T, its own rule if that holds now, or
        a cap that cut the run short of it."""
        n = self.max_iter
        if self.own_rule is None:
            self.stop_reason = (f"max_iter reached ({n}): the paper's rule, a fixed number of "
                                f"iterations T = {n}")
        elif (reason := self._own_stop()) is not None:
            self.stop_reason = reason
        else:
            self.capped = True
            self.stop_reason = (f"max_iter reached ({n}) before the paper's stopping rule: a cap "
                                f"cut the run short ({self.own_rule})")

    def _own_stop(self):
        """The reason :attr:`own_rule` stops the run as it stands, or None (a rule tested at
        the end of a step sets ``stop_reason`` in :meth:`_advance` itself)."""
        return None

    def run(self, callback=None):
        """Step until done; ``callback(record)`` after each step. Returns ``self``."""
        while not self.done:
            record = self.step()
            if record is not None and callback is not None:
                callback(record)
        return self

    def _record(self, index, alpha, extra, seconds):
        a = self._a
        support = self._support
        total = a[support].sum()
        M = bounds.margins(self.F, self.y, total)
        kl = bounds.kl_uniform(a[support], n=a.size) if self.fixed else 0.0
        scale = bounds.vote_scale(a[support], self.H.col_sq_sums[support], self.y.size) / total
        panel = bounds.bound_panel(M, kl, self.delta, scale)
        if not self.fixed:   # no prior was fixed before the sample: no KL term, no bound
            kl = math.nan
            panel.update(dict.fromkeys(bounds.PAC_BOUNDS, math.nan))
        test_error = None
        if self.F_test is not None:
            test_error = float(np.mean(np.where(self.F_test > 0, 1.0, -1.0) != self.y_test))
        extra = dict(extra)
        objective = extra.pop("objective", panel["c_bound"])
        fields = dict(
            predicted_decrease=extra.pop("predicted_decrease", None),
            actual_decrease=extra.pop("actual_decrease", None),
            candidates=extra.pop("candidates", None))
        return Record(
            iteration=len(self.history) + 1, index=index,
            label=None if index is None or self.describe is None else self.describe(index),
            alpha=alpha, _vote=self._vote(), n_voters=int(support.size),
            train_error=float(np.mean(np.where(self.F > 0, 1.0, -1.0) != self.y)),
            test_error=test_error, kl=kl, objective=float(objective), seconds=seconds,
            extra=extra, **panel, **fields)

    def _vote(self):
        """The current vote for a record: the log and its length, or a new snapshot.

        A snapshot is taken once the log since the last one is as long as that snapshot's
        support (and at least :data:`SNAPSHOT_MIN` changes): a record's vote is rebuilt from at
        most a snapshot and as many changes, and the snapshots cost at most as much as the
        changes themselves.  A run that adds one voter per step snapshots at sizes 64, 128, 256,
        ...; one that rewrites its whole support every step keeps one snapshot per record.
        """
        log = self._log
        if log.size - self._log_used and log.size >= max(SNAPSHOT_MIN, log.base[0].size):
            log.trim(self._log_used)   # the changes no record reaches
            log = self._log = WeightLog(frozen(self._support, np.int64),
                                         frozen(self._a[self._support]))
        self._log_used = log.size
        return Vote(log, log.size)

    def weights_at(self, iteration=None):
        """Full weight vector after ``iteration`` (default: the last one)."""
        a = np.zeros(self.H.shape[1])
        if not self.history:
            return a
        rec = self.history[-1 if iteration is None else self._position(iteration)]
        a[rec.support] = rec.weights
        return a

    def _position(self, iteration):
        if not 1 <= iteration <= len(self.history):
            raise ParameterError(f"iteration must be in 1..{len(self.history)}, got {iteration}")
        return iteration - 1

    def decision_function(self, H_new, iteration=None):
        """Raw vote ``sum_k a_k h_k(x)`` (not normalized) on new voter outputs."""
        H_new = as_operator(H_new)
        if H_new.shape[1] != self.H.shape[1]:
            raise ParameterError(f"H_new has {H_new.shape[1]} voters, expected {self.H.shape[1]}")
        return H_new.matvec(self.weights_at(iteration))

    def to_frame(self):
        """The history as a pandas DataFrame, one row per iteration."""
        return pd.DataFrame([r.as_row() for r in self.history])

