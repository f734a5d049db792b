"""Threads of the binned stump engine: a pass is split over up to :func:`engine_threads`
threads (a per-calling-thread setting, :func:`use_engine_threads`), by feature or by example.

The helper threads live in one small executor (re-made in a forked child: threads do not
fork).  Results never depend on the thread count: every feature's histogram and every
example's sum is computed whole by one thread, in the same order.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from itertools import pairwise

import numpy as np

__all__ = ["ENGINE_THREADS", "engine_threads", "use_engine_threads"]

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
    """Run the stump engine's passes on ``n`` threads (1 to 4) inside the block, for the calling
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


def helper_pool():
    """The engine's helper threads, or None when passes in the calling thread use one thread."""
    return _POOL if engine_threads() > 1 else None


def split_work(kernel, n_items, work, *args):
    """``kernel(*args, lo, hi)`` over contiguous ranges of ``range(n_items)`` that cover it,
    one per thread (the calling thread takes the first); ``work`` codes in all."""
    t = int(max(1, min(engine_threads(), n_items, work // _MIN_SPLIT_WORK)))
    cuts = [n_items * i // t for i in range(t + 1)]
    futures = [_POOL.submit(kernel, *args, lo, hi) for lo, hi in pairwise(cuts[1:])]
    kernel(*args, cuts[0], cuts[1])
    for f in futures:
        f.result()
