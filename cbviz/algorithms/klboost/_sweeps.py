"""Compiled sweeps of the KL-regularized learner over a stump pool, ``BLOCK`` voters a pass.

:func:`stump_pass` runs a whole pass on a stump operator's bins (no column is built: voter
``k`` is ``sign_k`` times +1 above its threshold rank, -1 below), ``BLOCK`` = 8 coordinates
per sweep over the examples.  The sweep tags each example with its block pattern ``p`` (bit
``b`` set where the block's voter ``b`` is +1 before its sign), applies the previous block's
changes (one table look-up per example: a block's summed change of the margin depends on
``p`` only) and gathers, per pattern, what the block's line minima need from the margins;
the updates then run one after the other, each from the margins the earlier ones left:

* quadratic loss, ``r = y (M - gamma)``: ``a0`` needs ``h_k . r``; after the block's earlier
  changes ``d_a`` (times their signs) it is ``h_k . r_start + sum_a d_a (h_a . h_k)``, from
  the per-pattern sums of ``r`` and counts (``h_a . h_k = sum_p h_a(p) h_k(p) count_p``);
* exponential loss: per bucket ``(y, p)`` the log-sum-exp of ``-M / gamma``; an earlier
  change moves a bucket's value by ``-y d_a h_a(p) / gamma`` and ``W_v`` is the log-sum-exp
  of the buckets with ``y sign_k h_k(p) = v``.

Each update is the same exact line minimum as one coordinate at a time; the memory traffic
and the work per example fall about ``BLOCK`` times (a table look-up and a histogram add per
example and block instead of a compare-and-add per example and coordinate).  The patterns,
the counts per pattern and the Gram entries do not depend on the margins: they are made
``CHUNK`` blocks at a time, the next chunk's on a helper thread while the current chunk's
coordinates are updated.  With the exponential loss and ``2 / gamma <= 600`` the buckets hold
sums of ``exp(-M / gamma - 1 / gamma)`` (in ``[exp(-2 / gamma), 1]`` since ``|M| <= 1``),
scaled by ``exp(-+ d_a / gamma)`` per update and recomputed from the margins every
``_RESYNC`` blocks; otherwise they hold exact log-sum-exps.  The kernels are compiled
on first use (cached on disk), release the GIL and keep no state: every array they write is
the caller's.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from ._line_min import JIT, QUADRATIC, line_min

__all__ = ["BLOCK", "CHUNK", "stump_pass"]

BLOCK = 8  # coordinates per sweep over the examples: their patterns fit one byte


@numba.njit(**JIT)
def _patterns(codes, slot, rank, order, start, stop, pat):
    """``pat_i`` = bit ``b`` set where voter ``order[start + b]`` is +1 before its sign
    (``codes[slot] >= rank``), for the block ``order[start:stop]`` (at most 8 voters)."""
    pat[:] = 0
    for j in range(start, stop):
        k = order[j]
        row = codes[slot[k]]
        rk = rank[k]
        bit = np.uint8(1 << (j - start))
        for i in range(pat.size):
            pat[i] |= bit if row[i] >= rk else np.uint8(0)


@numba.njit(**JIT)
def _quadratic_sweep(pat, table, r, nxt, hist):
    """``r_i += table[pat_i]`` (the last block's updates), then the next block's sums of
    ``r`` per pattern ``nxt_i`` (two interleaved copies: fewer store stalls)."""
    hist[:] = 0.0
    m = r.size
    half = m - m % 2
    for i in range(0, half, 2):
        a = r[i] + table[pat[i]]
        b = r[i + 1] + table[pat[i + 1]]
        r[i] = a
        r[i + 1] = b
        hist[0, nxt[i]] += a
        hist[1, nxt[i + 1]] += b
    for i in range(half, m):
        a = r[i] + table[pat[i]]
        r[i] = a
        hist[0, nxt[i]] += a


@numba.njit(**JIT)
def _exponential_sweep(pat, table, y, margin, nxt, ybit, gamma, e, top, total):
    """``M_i += y_i table[pat_i]``, then per bucket ``(y_i, nxt_i)`` the log-sum-exp of
    ``-M_i / gamma``: ``top`` (bucket maximum) and ``total`` (sum of ``exp(. - top)``)."""
    top[:] = -np.inf
    total[:] = 0.0
    for i in range(margin.size):
        mi = margin[i] + y[i] * table[pat[i]]
        margin[i] = mi
        e[i] = -mi / gamma
        c = ybit[i] + nxt[i]
        top[c] = max(top[c], e[i])
    for i in range(margin.size):
        c = ybit[i] + nxt[i]
        total[c] += math.exp(e[i] - top[c])


_SIGNS = np.array([[1.0 if p >> b & 1 else -1.0 for p in range(256)] for b in range(BLOCK)])
_INDICATOR = (_SIGNS > 0).astype(np.float64)
_LINEAR_SPAN = 600.0  # exponential loss in linear space when 2 / gamma (-M / gamma's span) fits
_RESYNC = 32          # linear space: exp(-M / gamma) recomputed from M every this many blocks
CHUNK = 64            # blocks whose patterns are made ahead of the sequential updates


@numba.njit(fastmath={"reassoc", "contract"}, **JIT)
def _block_dots(signs, sums, width, nb, g0):
    """``g0[b] = sum_p h_b(p) sums[p]`` (``h_b . r`` at the block start), ``b < nb``."""
    for b in range(nb):
        s = 0.0
        for p in range(width):
            s += signs[b, p] * sums[p]
        g0[b] = s


@numba.njit(fastmath={"reassoc", "contract"}, **JIT)
def _block_gram(signs, counts, width, nb, gram):
    """``gram[a, b] = sum_p h_a(p) h_b(p) counts[p]`` (``h_a . h_b``, exact integers)."""
    for b in range(nb):
        for a in range(b):
            c = 0.0
            for p in range(width):
                c += signs[a, p] * signs[b, p] * counts[p]
            gram[a, b] = c


@numba.njit(fastmath={"reassoc", "contract"}, **JIT)
def _block_table(signs, steps, width, nb, table):
    """``table[p] = sum_b steps[b] h_b(p)``: the block's change of ``r`` on pattern ``p``."""
    for p in range(width):
        t = 0.0
        for b in range(nb):
            t += steps[b] * signs[b, p]
        table[p] = t


@numba.njit(fastmath={"contract"}, **JIT)
def _exponential_sweep_linear(pat, factor, table, y, ybit, margin, e, nxt, hist, gamma, ref,
                              fresh):
    """``M_i += y_i table[pat_i]`` and ``e_i = exp(-M_i / gamma - ref)``: multiplied by the
    bucket's ``factor`` (``exp(-y table[p] / gamma)``), or recomputed from ``M`` when
    ``fresh``; then the per-bucket ``(y_i, nxt_i)`` sums of ``e`` into ``hist``."""
    hist[:] = 0.0
    if fresh:
        for i in range(margin.size):
            margin[i] += y[i] * table[pat[i]]
        for i in range(margin.size):
            e[i] = math.exp(-margin[i] / gamma - ref)
        for i in range(margin.size):
            hist[ybit[i] + nxt[i]] += e[i]
    else:
        for i in range(margin.size):
            p = pat[i]
            margin[i] += y[i] * table[p]
            ei = e[i] * factor[ybit[i] + p]
            e[i] = ei
            hist[ybit[i] + nxt[i]] += ei


@numba.njit(fastmath={"reassoc", "contract"}, **JIT)
def _group_sums(cur, ind, b, width):
    """Sums of ``cur`` over the buckets ``(y, p)``: ``(y = +1, h_b = +1)``, ``(+1, -1)``,
    ``(-1, +1)``, ``(-1, -1)``."""
    pp = pm = mp = mm = 0.0
    for p in range(width):
        up = ind[b, p]
        pp += cur[256 + p] * up
        pm += cur[256 + p] * (1.0 - up)
        mp += cur[p] * up
        mm += cur[p] * (1.0 - up)
    return pp, pm, mp, mm


@numba.njit(fastmath={"contract"}, **JIT)
def _scale_buckets(cur, ind, b, width, up, down):
    """``cur`` times ``up`` on the buckets with ``y h_b(p) = +1``, ``down`` on the others."""
    for p in range(width):
        hi = ind[b, p] > 0
        cur[256 + p] *= up if hi else down
        cur[p] *= down if hi else up


@numba.njit(**JIT)
def _block_factors(ups, downs, width, nb, factor):
    """``factor[(y, p)] = prod_b (ups[b] if y h_b(p) = +1 else downs[b])``."""
    for p in range(width):
        plus = minus = 1.0
        for b in range(nb):
            if p >> b & 1:
                plus *= ups[b]
                minus *= downs[b]
            else:
                plus *= downs[b]
                minus *= ups[b]
        factor[256 + p] = plus
        factor[p] = minus


@numba.njit(**JIT)
def _block_patterns(codes, slot, rank, order, start, stop, block, pats, gram, with_gram):
    """Patterns (:func:`_patterns`) of the blocks of ``block`` coordinates that cover
    ``order[start:stop]`` into ``pats[jb]``, and with ``with_gram`` their Gram entries
    ``gram[jb]`` from the counts per pattern: what a block needs that does not depend on
    the margins (made ahead, on another thread, while earlier blocks are updated)."""
    counts = np.zeros(256)
    split = np.zeros((4, 256), np.int32)   # four interleaved counters: fewer store stalls
    for jb in range((stop - start + block - 1) // block):
        b0 = start + jb * block
        b1 = min(b0 + block, stop)
        row = pats[jb]
        _patterns(codes, slot, rank, order, b0, b1, row)
        if with_gram:
            split[:] = 0
            m = row.size
            quarter = m - m % 4
            for i in range(0, quarter, 4):
                split[0, row[i]] += 1
                split[1, row[i + 1]] += 1
                split[2, row[i + 2]] += 1
                split[3, row[i + 3]] += 1
            for i in range(quarter, m):
                split[0, row[i]] += 1
            for p in range(256):
                counts[p] = split[0, p] + split[1, p] + split[2, p] + split[3, p]
            _block_gram(_SIGNS, counts, 1 << (b1 - b0), b1 - b0, gram[jb])


@numba.njit(**JIT)
def _bucket_term(c, logs, table, sign_k, bit, width, gamma):
    """Bucket ``c`` = (y, pattern p) of the exponential loss's log-space sums for voter
    ``k`` (pattern bit ``bit``): ``(group, log term)``, group 1 where ``y sign_k h_k(p) = +1``
    and the term its log sum of exp(-M / gamma) moved by the block's changes ``-y table[p] /
    gamma``; ``(-1, -inf)`` for an empty bucket or a pattern beyond ``width``."""
    p = c & 255
    if p >= width or logs[c] == -np.inf:
        return -1, -np.inf
    yc = 1.0 if c >= 256 else -1.0
    z = yc * sign_k * (1.0 if p & bit else -1.0)
    return (1 if z > 0 else 0), logs[c] - yc * table[p] / gamma


@numba.njit(**JIT)
def _stump_blocks(pats, gram, order, start, stop, block, block0, sign, y, ybit, w, kind, C,
                  gamma, z_sq, last, table, r, e, factor, cur, hist, top, total, logs):
    """The sequential part of a stump pass over ``order[start:stop]`` (blocks ``pats``,
    ``gram``; ``block0`` is the first block's index in the pass).  ``last`` is the pattern
    of the block before, whose summed changes ``table`` are not yet applied to ``r`` (the
    quadratic loss's ``y (M - gamma)``, or the exponential loss's margins ``M``)."""
    n = w.size
    scale = 2.0 / gamma**2
    v = np.array([-1.0, 1.0])
    log_w = np.zeros(2)
    largest = 0.0
    quadratic = kind == QUADRATIC
    linear = 2.0 / gamma <= _LINEAR_SPAN
    ref = 1.0 / gamma
    steps = np.zeros(BLOCK)
    ups = np.ones(BLOCK)             # exponential, linear: per update, the factor of the
    downs = np.ones(BLOCK)           # buckets with y h = +1 and that of the others
    g0 = np.zeros(BLOCK)
    sums = np.zeros(256)
    nbk = (stop - start + block - 1) // block
    for jb in range(nbk):
        b0 = start + jb * block
        b1 = min(b0 + block, stop)
        nb = b1 - b0
        width = 1 << nb
        prev = last if jb == 0 else pats[jb - 1]
        nxt = pats[jb]
        if quadratic:
            _quadratic_sweep(prev, table, r, nxt, hist)
            for p in range(width):
                sums[p] = hist[0, p] + hist[1, p]
            _block_dots(_SIGNS, sums, width, nb, g0)
        elif linear:
            _exponential_sweep_linear(prev, factor, table, y, ybit, r, e, nxt, cur, gamma,
                                      ref, (block0 + jb) % _RESYNC == 0)
        else:
            _exponential_sweep(prev, table, y, r, nxt, ybit, gamma, e, top, total)
            for c in range(512):
                logs[c] = top[c] + math.log(total[c]) if total[c] > 0 else -np.inf
        if not quadratic:
            table[:] = 0.0
        for b in range(nb):
            k = order[b0 + b]
            bit = 1 << b
            if quadratic:
                # r . h_k now = its value at the block start + the block's earlier changes
                # times their columns' dot products with h_k: the current margins' exact sum
                g = g0[b]
                for a in range(b):
                    g += steps[a] * gram[jb, a, b]
                change = line_min(kind, scale * sign[k] * g, scale * z_sq, v, log_w, w[k], n,
                                  C, gamma)
            elif linear:
                # W_v: the buckets (y, p) with y sign_k h_k(p) = v, each sum of
                # exp(-M / gamma - ref) kept current by the block's earlier changes
                pp, pm, mp, mm = _group_sums(cur, _INDICATOR, b, width)
                plus, minus = (pp + mm, pm + mp) if sign[k] > 0 else (pm + mp, pp + mm)
                log_w[0] = math.log(minus) + ref if minus > 0 else -np.inf
                log_w[1] = math.log(plus) + ref if plus > 0 else -np.inf
                change = line_min(kind, 0.0, 0.0, v, log_w, w[k], n, C, gamma)
                up = down = 1.0
                if change != 0.0:   # M += y step h_k: -M / gamma moves by -y h_k step / gamma
                    s_k = change * sign[k] / gamma
                    up, down = math.exp(-s_k), math.exp(s_k)
                    _scale_buckets(cur, _INDICATOR, b, width, up, down)
                ups[b], downs[b] = up, down
            else:
                # bucket (y, p) holds the examples with z = y sign_k h_k(p); its
                # log sum exp(-M / gamma) moves by -y table[p] / gamma with the block's changes
                tops = np.full(2, -np.inf)
                for c in range(512):
                    gi, term = _bucket_term(c, logs, table, sign[k], bit, width, gamma)
                    if gi >= 0:
                        tops[gi] = max(tops[gi], term)
                acc = np.zeros(2)
                for c in range(512):
                    gi, term = _bucket_term(c, logs, table, sign[k], bit, width, gamma)
                    if gi >= 0:
                        acc[gi] += math.exp(term - tops[gi])
                for gi in range(2):
                    log_w[gi] = tops[gi] + math.log(acc[gi]) if acc[gi] > 0 else -np.inf
                change = line_min(kind, 0.0, 0.0, v, log_w, w[k], n, C, gamma)
            w[k] += change
            largest = max(largest, abs(change))
            step = change * sign[k]
            steps[b] = step
            if not quadratic and step != 0.0:
                for p in range(width):
                    table[p] += step if p & bit else -step
        if quadratic:
            _block_table(_SIGNS, steps, width, nb, table)
        elif linear:   # exp(-y table[p] / gamma): the product of the block's factors
            _block_factors(ups, downs, width, nb, factor)
    if nbk:
        last[:] = pats[nbk - 1]
    return largest


@numba.njit(**JIT)
def _apply_last(last, table, y, r, quadratic):
    """The last block's changes: ``r += table[last]`` (quadratic), ``M += y table[last]``."""
    for i in range(r.size):
        r[i] += table[last[i]] if quadratic else y[i] * table[last[i]]


def stump_pass(codes, slot, rank, sign, order, y, margin, w, kind, C, gamma, z_sq,
               block=BLOCK, pool=None):
    """One pass of Algorithm 1 over the direct voters ``order`` of a stump operator; returns
    the largest ``|change|``.

    Voter ``k`` outputs ``sign[k]`` where ``codes[slot[k]] >= rank[k]`` (its threshold's bin
    rank, in the codes' type) and ``-sign[k]`` elsewhere.  ``margin`` (``M = y F``) and the
    signed weights ``w`` are updated in place, one coordinate after the other, each by
    :func:`line_min`; ``z_sq`` is ``sum_i h_k(x_i)^2`` (``m`` for stumps).  ``block`` (1 ..
    ``BLOCK``) coordinates share a sweep over the examples.  The blocks' patterns (and the
    quadratic loss's Gram entries), which do not depend on the margins, are made ``CHUNK``
    blocks at a time; with an executor ``pool`` the next chunk's are made on one of its
    threads while the current chunk's coordinates are updated (the results do not depend on
    it)."""
    block = int(min(max(block, 1), BLOCK))
    m = margin.size
    quadratic = kind == QUADRATIC
    per = CHUNK * block
    cuts = list(range(0, order.size, per)) + [order.size]
    nbuf = 2 if pool is not None and len(cuts) > 2 else 1
    pats = np.zeros((nbuf, CHUNK, m), np.uint8)
    gram = np.zeros((nbuf, CHUNK, BLOCK, BLOCK))
    last = np.zeros(m, np.uint8)                  # no block before the first: all patterns 0
    table = np.zeros(256)
    hist = np.zeros((2, 256))                     # quadratic: sums of r per pattern
    cur = np.zeros(512)                           # exponential: per (y, pattern) bucket
    ybit = np.where(y > 0, 256, 0).astype(np.int64)
    e = np.zeros(m)
    factor = np.ones(512)
    top, total, logs = np.zeros(512), np.zeros(512), np.zeros(512)
    r = y * (margin - gamma) if quadratic else margin   # (M - gamma) . z = sign (r . h)

    def make(c, buf):
        _block_patterns(codes, slot, rank, order, cuts[c], cuts[c + 1], block, pats[buf],
                        gram[buf], quadratic)

    largest = 0.0
    ahead = None
    for c in range(len(cuts) - 1):
        buf = c % nbuf
        made = ahead
        ahead = (pool.submit(make, c + 1, (c + 1) % nbuf)   # the next chunk's, meanwhile
                 if nbuf == 2 and c + 2 < len(cuts) else None)
        if made is not None:
            made.result()
        else:
            make(c, buf)
        largest = max(largest, _stump_blocks(
            pats[buf], gram[buf], order, cuts[c], cuts[c + 1], block, cuts[c] // block, sign,
            y, ybit, w, kind, C, gamma, z_sq, last, table, r, e, factor, cur, hist, top,
            total, logs))
    _apply_last(last, table, y, r, quadratic)
    if quadratic:
        margin[:] = y * r + gamma
    return largest
