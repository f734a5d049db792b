"""A run's history: the log of weight changes its records share, and what it costs in memory.

A record keeps the log and the log's length at its iteration (:class:`Vote`), so a run of
``T`` steps that moves a few weights per step holds ``O(T)`` numbers, not ``T`` weight vectors;
a vote is rebuilt from the last snapshot by replaying the changes (:func:`replay`).
"""
from __future__ import annotations

import numpy as np

# What a run holds (measured by tests/algorithms/test_history.py; README, "Serving a class"): a run that
# changes a few weights per step (CB-Boost, AdaBoost, both runs of gradient vs exhaustive) grows
# by at most RECORD_BYTES per iteration (a record's numbers and its share of the log of weight
# changes), on top of work arrays of at most RUN_WORK_BYTES per voter of its pool and per
# example.  Runs that rewrite their whole support each step (MinCq, CqBoost, QuadBoost, the KL
# learner) also keep the weights they change, up to that support per iteration.
RECORD_BYTES = 2048
RUN_WORK_BYTES = 64
# the pages' iteration limits: a 5,000-step run (step page) and a 1,000-step pair (gradient vs
# exhaustive): 7,000 records
SESSION_RECORDS = 5000 + 2 * 1000


def session_ceiling(n_voters, n_examples):
    """Bytes a session's runs hold at most at the pages' iteration limits (one step-page run
    and the gradient-vs-exhaustive pair): 7,000 records (14 MiB) and three runs' work arrays."""
    return SESSION_RECORDS * RECORD_BYTES + 3 * RUN_WORK_BYTES * (n_voters + n_examples)


def frozen(a, dtype=float):
    a = np.array(a, dtype=dtype)
    a.flags.writeable = False
    return a


def replay(support, weights, idx, val):
    """The vote ``(support, weights)`` after the changes ``idx[i] := val[i]`` in order: the
    last value of each index wins, zeros leave the support, which stays sorted.  O(s + d log d)
    for s voters and d changes (never a vector over the whole pool)."""
    if idx.size == 0:
        return support, weights
    order = np.argsort(idx, kind="stable")
    idx, val = idx[order], val[order]
    last = np.empty(idx.size, dtype=bool)
    last[-1] = True
    np.not_equal(idx[1:], idx[:-1], out=last[:-1])
    idx, val = idx[last], val[last]                       # the last value of each index
    pos = np.minimum(np.searchsorted(idx, support), idx.size - 1)
    keep = idx[pos] != support                            # voters the changes do not touch
    new = val != 0.0
    support, weights, idx, val = support[keep], weights[keep], idx[new], val[new]
    at = np.searchsorted(support, idx)
    support, weights = np.insert(support, at, idx), np.insert(weights, at, val)   # new arrays
    support.flags.writeable = weights.flags.writeable = False
    return support, weights


class WeightLog:
    """The weight changes of a run after a snapshot of its vote, in order.

    ``base`` is the vote (sorted support, weights) at the snapshot; ``idx[:size]`` /
    ``val[:size]`` the changes since (voter, new weight), appended as the run moves: a prefix
    never changes once written, so a record keeps the log and its length at that iteration.
    The last vote rebuilt is cached, and a later one is rebuilt from it (a history read in
    order costs one pass over the log).
    """

    __slots__ = ("base", "idx", "val", "size", "_cache")

    def __init__(self, support, weights, idx=None, val=None):
        self.base = (support, weights)
        self.idx = np.empty(0, dtype=np.int64) if idx is None else idx
        self.val = np.empty(0) if val is None else val
        self.size = self.idx.size
        self._cache = (0, support, weights)

    def append(self, idx, val):
        end = self.size + idx.size
        if end > self.idx.size:   # grow geometrically: amortized O(1) per change
            cap = max(end, 2 * self.idx.size, 16)
            self.idx = np.concatenate([self.idx[:self.size], np.empty(cap - self.size, np.int64)])
            self.val = np.concatenate([self.val[:self.size], np.empty(cap - self.size)])
        self.idx[self.size:end] = idx
        self.val[self.size:end] = val
        self.size = end

    def trim(self, size):
        """Forget the changes after ``size`` and the spare capacity."""
        self.idx, self.val = self.idx[:size].copy(), self.val[:size].copy()
        self.size = size
        if self._cache[0] > size:
            self._cache = (0, *self.base)

    def vote(self, length):
        """``(support, weights)`` after the first ``length`` changes (read-only arrays)."""
        cache = self._cache   # one read: another thread may replace it meanwhile
        if cache[0] == length:
            return cache[1], cache[2]
        start, support, weights = cache if cache[0] < length else (0, *self.base)
        support, weights = replay(support, weights, self.idx[start:length],
                                   self.val[start:length])
        self._cache = (length, support, weights)
        return support, weights

    def nbytes(self):
        return self.base[0].nbytes + self.base[1].nbytes + self.idx.nbytes + self.val.nbytes

    def __reduce__(self):   # the changes no record reaches and the spare capacity stay out
        return (unpickle_log, (*self.base, self.idx[:self.size], self.val[:self.size]))


def unpickle_log(support, weights, idx, val):
    return WeightLog(frozen(support, np.int64), frozen(weights), idx.copy(), val.copy())


class Vote:
    """A record's weight vector: a run's :class:`WeightLog` and the log's length then."""

    __slots__ = ("log", "length")

    def __init__(self, log, length):
        self.log, self.length = log, length

    def arrays(self):
        return self.log.vote(self.length)

    def __eq__(self, other):
        if not isinstance(other, Vote):
            return NotImplemented
        return all(a.dtype == b.dtype and np.array_equal(a, b)
                   for a, b in zip(self.arrays(), other.arrays()))

    __hash__ = None

    def __repr__(self):
        support, weights = self.arrays()
        return f"support={support!r}, weights={weights!r}"

    def __reduce__(self):
        return (Vote, (self.log, self.length))
