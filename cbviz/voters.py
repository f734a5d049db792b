"""Voter pools and the voter-matrix operators the algorithms consume.

A pool is fitted on training inputs (``fit(X)``) and turns any inputs into the voter
matrix ``H`` (``transform(X)``, ``H[i, k] = h_k(x_i)``).  ``operator(X)`` gives the same
matrix as a :class:`VoterOperator`, which iterative algorithms use through ``rmatvec``
(``H^T v``), ``matvec`` (``H a``) and ``column(k)``.  For decision stumps the operator never
builds ``H``: the inputs are binned once on the pool's thresholds, and ``H^T v`` for every
threshold of every feature is one pass over the bins (a weighted histogram per feature and
its running sum), O(m d) per call whatever the number of thresholds (DESIGN.md).  The
kernels are compiled with numba at import (cached on disk) and release the GIL.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from itertools import pairwise

import numba
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_array

from .data.core import MAX_SEED, _short

__all__ = ["VoterOperator", "DenseOperator", "StumpOperator", "as_operator",
           "StumpPool", "HyperplanePool", "RBFPool", "BINNINGS", "ENGINE_THREADS",
           "engine_threads", "use_engine_threads"]


class VoterOperator:
    """The voter matrix ``H`` (m x n) seen through products.

    Subclasses define ``shape``, :meth:`rmatvec`, :meth:`column` and ``col_sq_sums``
    (``sum_i H[i, k]**2`` per voter).
    """

    shape: tuple[int, int]
    col_sq_sums: np.ndarray

    def rmatvec(self, v):
        """``H^T v`` (length n)."""
        raise NotImplementedError

    def column(self, k):
        """``H[:, k]``: the outputs of voter ``k`` on every example."""
        raise NotImplementedError

    def columns(self, idx):
        """``H[:, idx]`` as a dense (m x len(idx)) array."""
        idx = np.asarray(idx, dtype=int)
        return np.column_stack([self.column(k) for k in idx]) if idx.size else np.zeros((self.shape[0], 0))

    def matvec(self, a):
        """``H a`` for a weight vector ``a`` (cost proportional to its non-zeros)."""
        a = np.asarray(a, dtype=float)
        nz = np.flatnonzero(a)
        return self.columns(nz) @ a[nz]

    def toarray(self):
        """The dense matrix ``H`` (for tests and small problems)."""
        return self.columns(np.arange(self.shape[1]))

    def restrict(self, idx):
        """The operator of the columns ``idx`` only (a view: no data is copied here)."""
        return _Restricted(self, np.asarray(idx, dtype=int))

    def is_self_complemented(self):
        """True when the pool is laid out as the papers' self-complemented sets: voters
        ``0 .. n/2-1`` then their complements ``h_{k + n/2} = -h_k`` in the same order
        (the layout of every pool here with ``complements=True``)."""
        n = self.shape[1]
        if n == 0 or n % 2:
            return False
        half = n // 2
        step = max(1, 2**22 // max(1, self.shape[0]))  # columns per block: bounded memory
        for lo in range(0, half, step):
            idx = np.arange(lo, min(half, lo + step))
            if not np.allclose(self.columns(idx), -self.columns(idx + half), rtol=0, atol=1e-12):
                return False
        return True


class _Restricted(VoterOperator):
    """Columns ``idx`` of a parent operator, through the parent's products."""

    def __init__(self, parent, idx):
        self.parent, self.idx = parent, idx
        self.shape = (parent.shape[0], idx.size)
        self.col_sq_sums = parent.col_sq_sums[idx]

    def rmatvec(self, v):
        return self.parent.rmatvec(v)[self.idx]

    def column(self, k):
        return self.parent.column(self.idx[k])


class DenseOperator(VoterOperator):
    """A :class:`VoterOperator` over an explicit matrix."""

    def __init__(self, H):
        self.H = np.ascontiguousarray(H, dtype=float)
        if self.H.ndim != 2:
            raise ValueError(f"voter matrix must be 2-D, got shape {self.H.shape}")
        self.shape = self.H.shape
        self.col_sq_sums = np.einsum("ij,ij->j", self.H, self.H)

    def rmatvec(self, v):
        return self.H.T @ np.asarray(v, dtype=float)

    def column(self, k):
        return self.H[:, k]

    def columns(self, idx):
        return self.H[:, np.asarray(idx, dtype=int)]

    def toarray(self):
        return self.H


def as_operator(H):
    """Wrap a dense matrix in a :class:`DenseOperator`; pass operators through."""
    return H if isinstance(H, VoterOperator) else DenseOperator(H)


# --------------------------------------------------------------------------- binned stump engine
#
# A stump ``x_j > t`` only asks which side of its thresholds ``x_j`` falls.  Sort the distinct
# thresholds ``T_1 < ... < T_K`` of feature j once; the *bin* of an example is
# ``c = #{r: T_r < x_j}`` (0 .. K), so ``x_j > T_r`` exactly when ``c >= r``: the bins give the
# same voters as the raw values, ties included.  Bins are stored feature-major (one row of
# ``m`` unsigned codes per split feature: uint8 up to 255 thresholds).  The bins of every
# feature sit side by side in one flat table: feature slot ``a`` spans
# ``offsets[a] .. offsets[a + 1] - 1`` (K + 1 bins).  Every pass below is one read of the codes;
# the kernels keep no state between calls (operators are shared between threads) and release
# the GIL, and a pass is split over up to ``engine_threads()`` threads by feature or by example.
# They are compiled when this module is imported (loaded from numba's disk cache after the
# first time), so no call pays a compilation; they call no BLAS.

_CODE_TYPES = (np.uint8, np.uint16, np.uint32)
_SPLIT_BINS = 256       # features with at most this many bins get two half-histograms in L1
_MIN_SPLIT_WORK = 1 << 18   # codes per thread below which a pass stays on one thread
_MAX_THREADS = 4
_LOCAL = threading.local()


def _new_pool():
    """The helper threads of split passes (a forked child gets its own: threads do not fork)."""
    global _POOL
    _POOL = ThreadPoolExecutor(max_workers=_MAX_THREADS - 1, thread_name_prefix="cbviz-engine")


_new_pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_pool)


def _default_threads():
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(_MAX_THREADS, cores or 1))


ENGINE_THREADS = _default_threads()


def engine_threads():
    """Threads a stump-engine pass uses in the calling thread (see :func:`use_engine_threads`)."""
    return getattr(_LOCAL, "threads", ENGINE_THREADS)


@contextmanager
def use_engine_threads(n):
    """Run the stump engine's passes on ``n`` threads (1 .. 4) inside the block, for the calling
    thread only (default :data:`ENGINE_THREADS`: the usable cores, at most 4).  Results do not
    depend on it: every feature's histogram and every example's sum is computed whole by one
    thread, in the same order."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= _MAX_THREADS:
        raise ValueError(f"engine threads must be an integer in [1, {_MAX_THREADS}], got {n!r}")
    before = engine_threads()
    _LOCAL.threads = int(n)
    try:
        yield
    finally:
        _LOCAL.threads = before


def _split(kernel, n_items, work, *args):
    """``kernel(*args, lo, hi)`` over contiguous ranges of ``range(n_items)`` that cover it,
    one per thread (the calling thread takes the first); ``work`` codes in all."""
    t = int(max(1, min(engine_threads(), n_items, work // _MIN_SPLIT_WORK)))
    cuts = [n_items * i // t for i in range(t + 1)]
    futures = [_POOL.submit(kernel, *args, lo, hi) for lo, hi in pairwise(cuts[1:])]
    kernel(*args, cuts[0], cuts[1])
    for f in futures:
        f.result()


def _ro(dtype, ndim=1):
    """Numba type of a C-contiguous input array (writable arrays convert to it)."""
    return numba.types.Array(numba.from_dtype(np.dtype(dtype)), ndim, "C", readonly=True)


_F64, _I64, _OUT = _ro(np.float64), _ro(np.int64), numba.float64[::1]


def _kernel(*arg_types):
    """A GIL-free kernel compiled at import for every code dtype (its first argument), cached
    on disk so that later imports only load it."""
    sigs = [numba.void(_ro(t, 2), *arg_types) for t in _CODE_TYPES]
    return numba.njit(sigs, nogil=True, cache=True)


@numba.njit(nogil=True, cache=True)
def _four_histograms(codes, offsets, v, out, a, h):
    """Cumulative histograms of features ``a .. a+3`` (each with at most ``_SPLIT_BINS`` bins).

    Each feature's histogram is kept in two halves (even and odd examples) so that
    consecutive updates of one bin do not wait on each other; ``v`` is read once for the
    four features.
    """
    m = codes.shape[1]
    h[:, :] = 0.0
    r0, r1, r2, r3 = codes[a], codes[a + 1], codes[a + 2], codes[a + 3]
    h0, h1, h2, h3, h4, h5, h6, h7 = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
    even = m - m % 2
    for i in range(0, even, 2):
        p, q = v[i], v[i + 1]
        h0[r0[i]] += p
        h1[r0[i + 1]] += q
        h2[r1[i]] += p
        h3[r1[i + 1]] += q
        h4[r2[i]] += p
        h5[r2[i + 1]] += q
        h6[r3[i]] += p
        h7[r3[i + 1]] += q
    if even < m:
        p = v[even]
        h0[r0[even]] += p
        h2[r1[even]] += p
        h4[r2[even]] += p
        h6[r3[even]] += p
    for f in range(4):
        o = offsets[a + f]
        s = 0.0
        for c in range(offsets[a + f + 1] - o):
            s += h[2 * f, c] + h[2 * f + 1, c]
            out[o + c] = s


@_kernel(_I64, _F64, _OUT, numba.int64, numba.int64)
def _bin_cumsums(codes, offsets, v, out, lo, hi):
    """``out[offsets[a] + c] = sum of v_i over the examples with codes[a, i] <= c`` for the
    feature slots ``lo .. hi-1``: one weighted histogram per feature, then its running sum."""
    h = np.empty((8, _SPLIT_BINS))
    widest = 0
    for a in range(lo, hi):
        widest = max(widest, offsets[a + 1] - offsets[a])
    one = np.empty((2, widest))  # one feature's half-histograms, whatever its width
    a = lo
    while a < hi:
        small = a + 4 <= hi
        for f in range(a, min(a + 4, hi)):
            small = small and offsets[f + 1] - offsets[f] <= _SPLIT_BINS
        if small:
            _four_histograms(codes, offsets, v, out, a, h)
            a += 4
            continue
        # the same sums as _four_histograms, so that no bit depends on the grouping
        o, row, width = offsets[a], codes[a], offsets[a + 1] - offsets[a]
        even, odd = one[0], one[1]
        even[:width] = 0.0
        odd[:width] = 0.0
        for i in range(0, row.size - 1, 2):
            even[row[i]] += v[i]
            odd[row[i + 1]] += v[i + 1]
        if row.size % 2:
            even[row[-1]] += v[row.size - 1]
        s = 0.0
        for c in range(width):
            s += one[0, c] + one[1, c]
            out[o + c] = s
        a += 1


@_kernel(_I64, _I64, _F64, _OUT, numba.int64, numba.int64)
def _gather_add(codes, slots, table_offsets, table, out, lo, hi):
    """``out[i] += sum_s table[table_offsets[s] + codes[slots[s], i]]`` for examples lo..hi-1."""
    part = out[lo:hi]
    for s in range(slots.size):
        row, tab = codes[slots[s], lo:hi], table[table_offsets[s]:table_offsets[s + 1]]
        for i in range(hi - lo):
            part[i] += tab[row[i]]


@numba.njit(numba.void(_F64, _I64, _I64, _F64, numba.float64, _OUT, numba.int64, numba.int64),
            nogil=True, cache=True)
def _expand(cum, bpos, base, sign, total, out, lo, hi):
    """``out[k] = sign[k] * (total - 2 cum[bpos[base[k]]])`` for columns lo..hi-1: ``H^T v``
    from the cumulative histograms of ``v`` (``total = sum(v)``)."""
    for k in range(lo, hi):
        out[k] = sign[k] * (total - 2.0 * cum[bpos[base[k]]])


@numba.njit(numba.void(_OUT, _I64), nogil=True, cache=True)
def _segment_cumsums(table, offsets):
    """Running sums of ``table`` within each segment ``offsets[s] .. offsets[s+1]-1``."""
    for s in range(offsets.size - 1):
        total = 0.0
        for b in range(offsets[s], offsets[s + 1]):
            total += table[b]
            table[b] = total


def _bins(X, base_feat, base_thr):
    """Bins of the distinct thresholds of every split feature (see the section comment).

    Returns ``(codes, offsets, slot_feature, bpos, sorted_unique)``: ``slot_feature[a]`` is
    the input column of feature slot ``a``; ``bpos[b]`` the flat-table position of base stump
    ``b``'s boundary (its "below" sum, bins ``0 .. r-1`` for its threshold ``T_r``);
    ``sorted_unique`` is True when the base stumps are the boundaries in table order
    (feature-major, increasing thresholds, each once).
    """
    step_f, step_t = np.diff(base_feat), np.diff(base_thr)
    sorted_unique = bool(np.all((step_f > 0) | ((step_f == 0) & (step_t > 0))))
    if sorted_unique:
        feat, thr, boundary = base_feat, base_thr, np.arange(base_feat.size)
    else:  # general stump sets: sort, and merge repeated (feature, threshold) pairs
        order = np.lexsort((base_thr, base_feat))
        f, t = base_feat[order], base_thr[order]
        first = np.concatenate([[True], (f[1:] != f[:-1]) | (t[1:] != t[:-1])])
        feat, thr = f[first], t[first]
        boundary = np.empty(base_feat.size, dtype=np.int64)
        boundary[order] = np.cumsum(first) - 1
    slot_feature, starts, counts = np.unique(feat, return_index=True, return_counts=True)
    offsets = np.zeros(slot_feature.size + 1, dtype=np.int64)
    np.cumsum(counts + 1, out=offsets[1:])
    slot_of_boundary = np.repeat(np.arange(slot_feature.size), counts)
    bpos = (boundary + slot_of_boundary[boundary]).astype(np.int64)  # = offsets[slot] + rank
    dtype = next(t for t in _CODE_TYPES if counts.max(initial=0) <= np.iinfo(t).max)
    codes = np.empty((slot_feature.size, X.shape[0]), dtype=dtype)
    for a, (j, s, c) in enumerate(zip(slot_feature, starts, counts)):
        codes[a] = np.searchsorted(thr[s:s + c], X[:, j], side="left")
    return codes, offsets, slot_feature, bpos, sorted_unique


class StumpOperator(VoterOperator):
    """Stump outputs ``sign_k * (+1 if x[feature_k] > threshold_k else -1)`` without ``H``.

    The inputs are binned once on the pool's thresholds (section comment above), exactly.
    With ``below_b(v)`` the sum of ``v`` over the examples on or under threshold b,
    ``(H^T v)_k = sign_k (sum(v) - 2 below(v))``: one pass over the bins
    (:meth:`bin_cumsums`: a weighted histogram per feature and its running sum) gives it for
    every threshold, O(m d + n) whatever their number.  ``H a`` is one pass too: the weights
    of each feature's stumps, summed up to every bin, are gathered at each example's bins
    (O(nnz(a) + m * features touched)).

    ``canonical`` is True for the pools' own layout: base stump ``b`` is the b-th boundary of
    the bin table (feature slot ``a``'s boundary ``r = 1 .. K_a`` is base stump
    ``bin_offsets[a] - a + r - 1``, its "below" sum at ``bin_offsets[a] + r - 1``), columns
    ``0 .. n_base-1`` are those stumps and, with complements, columns
    ``n_base .. 2 n_base - 1`` their complements: fused kernels (CB-Boost's selection) rely on
    it.  The binned arrays are read-only and shared by the views of :meth:`restrict`; no
    method stores anything on the operator (it is shared between sessions and threads).
    """

    def __init__(self, X, feature, threshold, sign, base):
        X = np.asarray(X, dtype=float)
        m = X.shape[0]
        self.feature, self.threshold, self.sign = feature, threshold, np.asarray(sign, dtype=float)
        self.shape = (m, feature.size)
        self.col_sq_sums = np.full(feature.size, float(m))
        self._base = np.asarray(base, dtype=np.int64)   # complements share their base stump
        n_base = int(self._base.max()) + 1 if self._base.size else 0
        base_feat = np.zeros(n_base, dtype=np.int64)
        base_thr = np.zeros(n_base)
        base_feat[self._base] = feature
        base_thr[self._base] = threshold
        (self._codes, self._offsets, self._slot_feature, self._bpos,
         sorted_unique) = _bins(X, base_feat, base_thr)
        self.n_base = n_base
        direct = np.array_equal(self._base[:n_base], np.arange(n_base)) and bool(
            np.all(self.sign[:n_base] == 1.0))
        tail = self._base.size - n_base
        self.canonical = sorted_unique and direct and (tail == 0 or (
            tail == n_base and np.array_equal(self._base[n_base:], np.arange(n_base))
            and bool(np.all(self.sign[n_base:] == -1.0))))
        for a in (self._codes, self._offsets, self._slot_feature, self._bpos):
            a.flags.writeable = False  # shared read-only between sessions

    @property
    def bin_offsets(self):
        """Start of each split feature's bins in the flat bin table (read-only, length d' + 1)."""
        return self._offsets

    @property
    def nbytes(self):
        """Bytes of the binned representation (codes, bin table layout, threshold positions);
        the pool's parameter arrays it refers to are not counted."""
        return sum(a.nbytes for a in (self._codes, self._offsets, self._slot_feature, self._bpos))

    def bin_cumsums(self, v, out=None):
        """Flat table: entry ``bin_offsets[a] + c`` is the sum of ``v`` over the examples in
        bins ``0 .. c`` of split feature ``a``.  One pass over the bins; ``out`` (float64,
        C-contiguous, ``bin_offsets[-1]`` long) receives it when given."""
        v = np.ascontiguousarray(v, dtype=np.float64)
        if v.shape != (self.shape[0],):
            raise ValueError(f"v has shape {v.shape}, expected ({self.shape[0]},)")
        size = int(self._offsets[-1])
        out = np.empty(size) if out is None else out
        if out.shape != (size,):
            raise ValueError(f"out has shape {out.shape}, expected ({size},)")
        _split(_bin_cumsums, self._codes.shape[0], self._codes.size, self._codes,
               self._offsets, v, out)
        return out

    def is_self_complemented(self):
        n = self.shape[1]
        if n == 0 or n % 2:
            return False
        h = n // 2
        return bool(np.array_equal(self._base[:h], self._base[h:])
                    and np.array_equal(self.sign[:h], -self.sign[h:]))

    def restrict(self, idx):
        idx = np.asarray(idx, dtype=int)
        view = object.__new__(StumpOperator)
        view.__dict__.update(self.__dict__)
        view.feature, view.threshold = self.feature[idx], self.threshold[idx]
        view.sign, view._base = self.sign[idx], self._base[idx]
        view.shape = (self.shape[0], idx.size)
        view.col_sq_sums = self.col_sq_sums[idx]
        view.canonical = False
        return view

    def rmatvec(self, v):
        v = np.ascontiguousarray(v, dtype=np.float64)
        cum = self.bin_cumsums(v)
        out = np.empty(self.shape[1])
        _split(_expand, out.size, out.size, cum, self._bpos, self._base, self.sign,
               float(v.sum()), out)
        return out

    def matvec(self, a):
        a = np.asarray(a, dtype=float)
        if a.shape != (self.shape[1],):
            raise ValueError(f"a has shape {a.shape}, expected ({self.shape[1]},)")
        nz = np.flatnonzero(a)
        w = self.sign[nz] * a[nz]
        pos = self._bpos[self._base[nz]]
        slot = np.searchsorted(self._offsets, pos, side="right") - 1
        # sum_k w_k h_k(x) = -sum(w) + 2 sum_k w_k [bin >= r_k]: per touched feature, the
        # weights at each boundary summed up to every bin, read at each example's bin
        touched = np.bincount(slot, minlength=self._codes.shape[0]) > 0
        slots = np.flatnonzero(touched)
        where = np.cumsum(touched)[slot] - 1          # rank of each weight's slot among slots
        widths = self._offsets[slots + 1] - self._offsets[slots]
        table_offsets = np.zeros(slots.size + 1, dtype=np.int64)
        np.cumsum(widths, out=table_offsets[1:])
        table = np.bincount(table_offsets[where] + pos - self._offsets[slot] + 1,
                            weights=2.0 * w, minlength=table_offsets[-1]).astype(float)
        _segment_cumsums(table, table_offsets)
        out = np.full(self.shape[0], 0.0 - w.sum())
        _split(_gather_add, out.size, slots.size * out.size, self._codes, slots,
               table_offsets, table, out)
        return out

    def _slot_rank(self, k):
        """Split-feature slot(s) and threshold rank(s) of column(s) ``k``."""
        pos = self._bpos[self._base[k]]
        slot = np.searchsorted(self._offsets, pos, side="right") - 1
        return slot, pos - self._offsets[slot] + 1

    def column(self, k):
        slot, rank = self._slot_rank(k)
        s = self.sign[k]
        return np.where(self._codes[slot] >= rank, s, -s)

    def columns(self, idx):
        idx = np.asarray(idx, dtype=int)
        slot, rank = self._slot_rank(idx)
        above = self._codes[slot] >= rank[:, None]
        return (self.sign[idx][:, None] * np.where(above, 1.0, -1.0)).T


def _check_n_features(pool, X):
    X = check_array(X, dtype=float)
    if X.shape[1] != pool.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but the pool was fitted with {pool.n_features_in_}")
    return X


def _names(feature_names, d):
    if feature_names is None:
        return tuple(f"x{j}" for j in range(d))
    if len(feature_names) != d:
        raise ValueError(f"{len(feature_names)} feature names for {d} features")
    return tuple(str(n) for n in feature_names)


def _with_complements(arrays, sign, complements):
    """Append the complement of every voter (same parameters, opposite sign)."""
    base = np.arange(sign.size)
    if not complements:
        return arrays, sign, base
    return ([np.concatenate([a, a]) for a in arrays], np.concatenate([sign, -sign]),
            np.concatenate([base, base]))


BINNINGS = ("uniform", "quantile")
MAX_POOL_BYTES = 2_000_000_000
"""Memory a pool may need, checked by ``fit`` before anything is allocated: the pool's
arrays and the voter data ``operator()`` builds on the inputs it was fitted on (the stump
engine's bins, or the dense matrix of the other pools).  Many sessions share one server (a
classroom); beyond the cap a fit is refused with its estimate instead of failing with a
``MemoryError`` (or swapping) halfway.  This also caps the number of voters: 2 GB is about
50 million stumps, or 250 million voter outputs of a dense pool (voters x examples)."""


def _check_size(pool, n_voters, nbytes, knob):
    """ValueError when a pool of ``n_voters`` needing ``nbytes`` is over :data:`MAX_POOL_BYTES`."""
    if nbytes > MAX_POOL_BYTES:
        raise ValueError(f"{type(pool).__name__}({knob}) would make {n_voters:,} voters and need "
                         f"about {nbytes / 1e9:,.1f} GB; the cap is {MAX_POOL_BYTES / 1e9:g} GB "
                         f"(cbviz.voters.MAX_POOL_BYTES): use fewer voters")


def _check_random_state(value):
    """``random_state`` for ``numpy.random.default_rng``: None, a NumPy generator / seed
    sequence, or an integer in [0, :data:`MAX_SEED`]; else ValueError naming the range."""
    if value is None or isinstance(value, (np.random.Generator, np.random.BitGenerator,
                                           np.random.SeedSequence)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) \
            and 0 <= value <= MAX_SEED:
        return int(value)
    raise ValueError(f"random_state must be None or an integer in [0, {MAX_SEED}] (NumPy's seed "
                     f"range); got {_short(value)}")


def _positive_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1


class StumpPool(BaseEstimator):
    """Decision stumps on every feature, with their complements (the papers' pools).

    Parameters
    ----------
    n_thresholds : int >= 1 or "all"
        Thresholds per feature (at most; constant features get none), placed by ``binning``,
        or ``"all"``: every midpoint between consecutive distinct training values (exact
        search; ``binning`` does not apply).
    binning : {"uniform", "quantile"}
        ``"uniform"``: ``n_thresholds`` equally spaced values strictly between the training
        min and max (the CB-Boost paper's pools).  ``"quantile"``: midpoints between
        consecutive distinct training values, those whose ranks (examples at or below) are
        nearest to the ``n_thresholds`` equally spaced quantiles; a feature with at most
        ``n_thresholds + 1`` distinct values keeps every midpoint, so e.g.
        ``StumpPool(255, binning="quantile")`` is exact (the ``"all"`` pool) on 8-bit
        features.  Either way a feature with at most 255 thresholds is binned in one byte per
        example (:class:`StumpOperator`).
    complements : bool
        Add ``x <= t`` for every ``x > t`` so non-negative weights express any signed vote.
        Voters ``0 .. n_base-1`` are the direct stumps, ``n_base .. 2 n_base - 1`` their
        complements in the same order.
    """

    def __init__(self, n_thresholds=10, complements=True, binning="uniform"):
        self.n_thresholds = n_thresholds
        self.complements = complements
        self.binning = binning

    def _thresholds(self, x):
        n = self.n_thresholds
        if x.min() == x.max():
            return np.empty(0)
        if n != "all" and self.binning == "uniform":
            return np.linspace(x.min(), x.max(), int(n) + 2)[1:-1]
        u, counts = np.unique(x, return_counts=True)
        mids = (u[:-1] + u[1:]) / 2.0
        if n == "all" or mids.size <= n:
            return mids
        rank = np.cumsum(counts)[:-1]                     # examples at or below each midpoint
        target = x.size * np.arange(1, n + 1) / (n + 1)   # the n equally spaced quantiles
        i = np.clip(np.searchsorted(rank, target), 1, rank.size - 1)
        nearest = np.where(target - rank[i - 1] <= rank[i] - target, i - 1, i)
        return mids[np.unique(nearest)]

    def fit(self, X, y=None, feature_names=None):
        """Learn thresholds from the training inputs ``X`` (m x d); ``y`` is ignored."""
        n = self.n_thresholds
        if not (n == "all" or _positive_int(n)):
            raise ValueError(f"n_thresholds must be a positive integer or 'all', got {n!r}")
        if self.binning not in BINNINGS:
            raise ValueError(f"binning must be one of {BINNINGS}, got {self.binning!r}")
        X = check_array(X, dtype=float)
        self.n_features_in_ = X.shape[1]
        self.feature_names_ = _names(feature_names, X.shape[1])
        uniform = n != "all" and self.binning == "uniform"
        if uniform:  # n thresholds on every non-constant feature: checked before placing them
            split = int(np.count_nonzero(np.ptp(X, axis=0) > 0)) if X.shape[0] else 0
            self._check_size(X.shape[0], [int(n)] * split)
        thr = [self._thresholds(X[:, j]) for j in range(X.shape[1])]
        if not uniform:  # at most one per distinct value (memory bounded by X's): known now
            self._check_size(X.shape[0], [t.size for t in thr if t.size])
        feature = np.repeat(np.arange(X.shape[1]), [t.size for t in thr])
        threshold = np.concatenate(thr) if thr else np.empty(0)
        if feature.size == 0:
            raise ValueError("every feature is constant on the training data: no stump can split it")
        self.n_base_ = feature.size
        (self.feature_, self.threshold_), self.sign_, self.base_ = _with_complements(
            [feature, threshold], np.ones(feature.size), self.complements)
        return self

    def _check_size(self, m, per_feature):
        """Refuse a pool over :data:`MAX_POOL_BYTES`: ``per_feature`` thresholds on each split
        feature, ``m`` fitting examples.  Per voter: its feature, threshold, sign and base
        stump, and the operator's squared norm (40 bytes); per base stump: its bin position
        and the operator's sorting copies (24 bytes); the bins: one code of 1, 2 or 4 bytes
        per example and split feature."""
        n_base = sum(per_feature)
        voters = n_base * (2 if self.complements else 1)
        widest = max(per_feature, default=0)
        code = 1 if widest <= 255 else 2 if widest <= 65535 else 4   # bytes, as _bins picks
        nbytes = 40 * voters + 24 * n_base + m * len(per_feature) * code
        _check_size(self, voters, nbytes, f"n_thresholds={self.n_thresholds!r}")

    @property
    def n_voters_(self):
        return self.sign_.size

    def transform(self, X):
        """Dense voter matrix ``H`` in {-1, +1}, shape (len(X), n_voters_)."""
        return self.operator(X).toarray()

    def operator(self, X):
        """The voter matrix of ``X`` as a :class:`StumpOperator` (no dense matrix)."""
        X = _check_n_features(self, X)
        return StumpOperator(X, self.feature_, self.threshold_, self.sign_, self.base_)

    def describe(self, k):
        """Human label of voter ``k``, e.g. ``"x3 > 0.52"`` or ``"x3 <= 0.52"``."""
        op = ">" if self.sign_[k] > 0 else "<="
        return f"{self.feature_names_[self.feature_[k]]} {op} {self.threshold_[k]:.4g}"


class _MatrixPool(BaseEstimator):
    """Shared plumbing of pools whose outputs are computed as a dense matrix."""

    def operator(self, X):
        """The voter matrix of ``X`` as a :class:`DenseOperator`."""
        return DenseOperator(self.transform(X))

    @property
    def n_voters_(self):
        return self.sign_.size

    def _fit_names(self, X, feature_names):
        X = check_array(X, dtype=float)
        self.n_features_in_ = X.shape[1]
        self.feature_names_ = _names(feature_names, X.shape[1])
        return X


class HyperplanePool(_MatrixPool):
    """Random oblique hyperplanes ``sign(w . x - b)`` and their complements.

    Directions are standard Gaussian; each offset puts the hyperplane through a random
    training point, so every voter splits the training data.
    """

    def __init__(self, n_hyperplanes=100, complements=True, random_state=0):
        self.n_hyperplanes = n_hyperplanes
        self.complements = complements
        self.random_state = random_state

    def fit(self, X, y=None, feature_names=None):
        if not _positive_int(self.n_hyperplanes):
            raise ValueError(f"n_hyperplanes must be a positive integer, got {self.n_hyperplanes!r}")
        seed = _check_random_state(self.random_state)
        X = self._fit_names(X, feature_names)
        n, (m, d) = int(self.n_hyperplanes), X.shape
        voters = n * (2 if self.complements else 1)
        # directions, the projections X W^T and the dense voter matrix on the fitting inputs
        _check_size(self, voters, 8 * (n * d + m * n + m * voters), f"n_hyperplanes={n}")
        rng = np.random.default_rng(seed)
        W = rng.standard_normal((self.n_hyperplanes, X.shape[1]))
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        anchors = X[rng.integers(0, X.shape[0], self.n_hyperplanes)]
        offset = np.einsum("kj,kj->k", W, anchors)
        idx = np.arange(self.n_hyperplanes)
        (self.hyperplane_,), self.sign_, self.base_ = _with_complements(
            [idx], np.ones(self.n_hyperplanes), self.complements)
        self.coef_, self.offset_ = W, offset
        return self

    def transform(self, X):
        """Voter matrix in {-1, +1}, shape (len(X), n_voters_)."""
        X = _check_n_features(self, X)
        above = np.where(X @ self.coef_.T > self.offset_, 1.0, -1.0)
        return above[:, self.hyperplane_] * self.sign_

    def describe(self, k):
        w = self.coef_[self.hyperplane_[k]]
        op = ">" if self.sign_[k] > 0 else "<="
        top = np.argsort(-np.abs(w))[:3]
        terms = " ".join(f"{w[j]:+.2f}*{self.feature_names_[j]}" for j in sorted(top))
        more = " ..." if w.size > 3 else ""
        return f"{terms}{more} {op} {self.offset_[self.hyperplane_[k]]:.3g}"


class RBFPool(_MatrixPool):
    """Real-valued RBF voters ``h_c(x) = y_c exp(-gamma ||x - c||^2)`` in [-1, 1], with complements.

    The centres ``c`` are training points and ``y_c`` their labels (the MinCq paper's RBF
    voters): ``n_centers`` of them drawn without replacement, every one when there are fewer.
    ``gamma="scale"`` uses ``1 / (d * var(X))`` as scikit-learn's SVC does.
    """

    def __init__(self, n_centers=100, gamma="scale", complements=True, random_state=0):
        self.n_centers = n_centers
        self.gamma = gamma
        self.complements = complements
        self.random_state = random_state

    def fit(self, X, y=None, feature_names=None):
        if y is None:
            raise ValueError("RBFPool needs the training labels: fit(X, y)")
        if not _positive_int(self.n_centers):
            raise ValueError(f"n_centers must be a positive integer, got {self.n_centers!r}")
        seed = _check_random_state(self.random_state)
        X = self._fit_names(X, feature_names)
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y has shape {y.shape}, expected ({X.shape[0]},)")
        (m, d), k = X.shape, min(int(self.n_centers), X.shape[0])
        voters = k * (2 if self.complements else 1)
        # centres, the squared distances and kernel values, and the dense voter matrix on the
        # fitting inputs
        _check_size(self, voters, 8 * (k * d + 2 * m * k + m * voters),
                    f"n_centers={self.n_centers}")
        rng = np.random.default_rng(seed)
        pick = rng.choice(X.shape[0], size=min(self.n_centers, X.shape[0]), replace=False)
        var = X.var()
        self.gamma_ = 1.0 / (X.shape[1] * var) if self.gamma == "scale" and var > 0 else (
            1.0 if self.gamma == "scale" else float(self.gamma))
        if self.gamma_ <= 0:
            raise ValueError(f"gamma must be positive, got {self.gamma!r}")
        self.centers_ = X[pick]
        self.center_label_ = np.where(y[pick] > 0, 1.0, -1.0)
        (self.center_,), self.sign_, self.base_ = _with_complements(
            [np.arange(pick.size)], np.ones(pick.size), self.complements)
        return self

    def transform(self, X):
        """Voter matrix with values in [-1, 1], shape (len(X), n_voters_)."""
        X = _check_n_features(self, X)
        sq = (np.einsum("ij,ij->i", X, X)[:, None] - 2.0 * X @ self.centers_.T
              + np.einsum("ij,ij->i", self.centers_, self.centers_)[None, :])
        K = np.exp(-self.gamma_ * np.maximum(sq, 0.0)) * self.center_label_
        return K[:, self.center_] * self.sign_

    def describe(self, k):
        c = self.center_[k]
        who = "+1" if self.center_label_[c] * self.sign_[k] > 0 else "-1"
        return f"RBF at point #{c} votes {who}"
