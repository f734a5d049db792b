"""Decision-stump outputs as a :class:`~cbviz.voters.operators.VoterOperator` over binned
inputs: ``H^T v`` for every threshold in one pass, ``H a`` in one gather (no matrix)."""
from __future__ import annotations

import numpy as np

from ._kernels import histogram_cumsums, stump_bins, expand_cumsums, gather_add, segment_cumsums
from .operators import VoterOperator
from ._threads import split_work

__all__ = ["StumpOperator"]


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
         sorted_unique) = stump_bins(X, base_feat, base_thr)
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
        split_work(histogram_cumsums, self._codes.shape[0], self._codes.size, self._codes,
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
        split_work(expand_cumsums, out.size, out.size, cum, self._bpos, self._base, self.sign,
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
        segment_cumsums(table, table_offsets)
        out = np.full(self.shape[0], 0.0 - w.sum())
        split_work(gather_add, out.size, slots.size * out.size, self._codes, slots,
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
