"""The binned stump engine's compiled passes, and the binning of the inputs.

A stump ``x_j > t`` only asks which side of its thresholds ``x_j`` falls.  Sort the distinct
thresholds ``T_1 < ... < T_K`` of feature j once; the *bin* of an example is
``c = #{r: T_r < x_j}`` (0 .. K), so ``x_j > T_r`` exactly when ``c >= r``: the bins give the
same voters as the raw values, ties included.  Bins are stored feature-major (one row of
``m`` unsigned codes per split feature: uint8 up to 255 thresholds).  The bins of every
feature sit side by side in one flat table: feature slot ``a`` spans
``offsets[a] .. offsets[a + 1] - 1`` (K + 1 bins).  Every pass below is one read of the codes;
the kernels keep no state between calls (operators are shared between threads) and release
the GIL, and a pass is split over up to ``engine_threads()`` threads (:mod:`._threads`) by
feature or by example.  They are compiled when this module is imported (loaded from numba's
disk cache after the first time), so no call pays a compilation; they call no BLAS.
"""
from __future__ import annotations

import numba
import numpy as np

CODE_TYPES = (np.uint8, np.uint16, np.uint32)
_SPLIT_BINS = 256       # features with at most this many bins get two half-histograms in L1


def readonly(dtype, ndim=1):
    """Numba type of a C-contiguous input array (writable arrays convert to it)."""
    return numba.types.Array(numba.from_dtype(np.dtype(dtype)), ndim, "C", readonly=True)


F64, I64, _OUT = readonly(np.float64), readonly(np.int64), numba.float64[::1]


def _kernel(*arg_types):
    """A GIL-free kernel compiled at import for every code dtype (its first argument), cached
    on disk so that later imports only load it."""
    sigs = [numba.void(readonly(t, 2), *arg_types) for t in CODE_TYPES]
    return numba.njit(sigs, nogil=True, cache=True)


@numba.njit(nogil=True, cache=True)
def _four_histograms(codes, offsets, v, out, a, h, base):
    """Cumulative histograms of features ``a .. a+3`` (each with at most ``_SPLIT_BINS`` bins)
    into ``out[offsets[f] - base + c]``.

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
        o = offsets[a + f] - base
        s = 0.0
        for c in range(offsets[a + f + 1] - offsets[a + f]):
            s += h[2 * f, c] + h[2 * f + 1, c]
            out[o + c] = s


@numba.njit(nogil=True, cache=True)
def cumsum_buffers(offsets, lo, hi):
    """Scratch of :func:`cumsums_group` for slots lo..hi-1: four features' half-histograms,
    and the two halves of the widest feature's."""
    widest = 0
    for a in range(lo, hi):
        widest = max(widest, offsets[a + 1] - offsets[a])
    return np.empty((8, _SPLIT_BINS)), np.empty((2, widest))


@numba.njit(nogil=True, cache=True)
def cumsums_group(codes, offsets, v, out, a, hi, h, one, base):
    """Running sums of ``v`` over the bins of slot ``a``, or of slots ``a .. a+3`` when they
    are all below ``hi`` and narrow (one read of ``v`` for the four), into
    ``out[offsets[s] - base + c]``; returns the next slot.  ``h``, ``one``:
    :func:`cumsum_buffers`.  Every feature's sums come out the same whatever the grouping."""
    small = a + 4 <= hi
    for f in range(a, min(a + 4, hi)):
        small = small and offsets[f + 1] - offsets[f] <= _SPLIT_BINS
    if small:
        _four_histograms(codes, offsets, v, out, a, h, base)
        return a + 4
    # the same sums as _four_histograms, so that no bit depends on the grouping
    o, row, width = offsets[a] - base, codes[a], offsets[a + 1] - offsets[a]
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
    return a + 1


@_kernel(I64, F64, _OUT, numba.int64, numba.int64)
def histogram_cumsums(codes, offsets, v, out, lo, hi):
    """``out[offsets[a] + c] = sum of v_i over the examples with codes[a, i] <= c`` for the
    feature slots ``lo .. hi-1``: one weighted histogram per feature, then its running sum."""
    h, one = cumsum_buffers(offsets, lo, hi)
    a = lo
    while a < hi:
        a = cumsums_group(codes, offsets, v, out, a, hi, h, one, 0)


@_kernel(I64, I64, F64, _OUT, numba.int64, numba.int64)
def gather_add(codes, slots, table_offsets, table, out, lo, hi):
    """``out[i] += sum_s table[table_offsets[s] + codes[slots[s], i]]`` for examples lo..hi-1."""
    part = out[lo:hi]
    for s in range(slots.size):
        row, tab = codes[slots[s], lo:hi], table[table_offsets[s]:table_offsets[s + 1]]
        for i in range(hi - lo):
            part[i] += tab[row[i]]


@numba.njit(numba.void(F64, I64, I64, F64, numba.float64, _OUT, numba.int64, numba.int64),
            nogil=True, cache=True)
def expand_cumsums(cum, bpos, base, sign, total, out, lo, hi):
    """``out[k] = sign[k] * (total - 2 cum[bpos[base[k]]])`` for columns lo..hi-1: ``H^T v``
    from the cumulative histograms of ``v`` (``total = sum(v)``)."""
    for k in range(lo, hi):
        out[k] = sign[k] * (total - 2.0 * cum[bpos[base[k]]])


@numba.njit(numba.void(_OUT, I64), nogil=True, cache=True)
def segment_cumsums(table, offsets):
    """Running sums of ``table`` within each segment ``offsets[s] .. offsets[s+1]-1``."""
    for s in range(offsets.size - 1):
        total = 0.0
        for b in range(offsets[s], offsets[s + 1]):
            total += table[b]
            table[b] = total


def stump_bins(X, base_feat, base_thr):
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
    dtype = next(t for t in CODE_TYPES if counts.max(initial=0) <= np.iinfo(t).max)
    codes = np.empty((slot_feature.size, X.shape[0]), dtype=dtype)
    for a, (j, s, c) in enumerate(zip(slot_feature, starts, counts)):
        codes[a] = np.searchsorted(thr[s:s + c], X[:, j], side="left")
    return codes, offsets, slot_feature, bpos, sorted_unique
