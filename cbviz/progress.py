"""Progress of long computations, reported to a listener the caller installs.

Long loops and solvers call :func:`report` with the fraction done and a short text; nothing
happens unless a caller has installed a listener with :func:`reporting`.  The listener is
held in a :mod:`contextvars` variable, so it belongs to the thread that installed it (each
Streamlit session runs its script in its own thread: sessions never see each other's
reports) and reports made on other threads go nowhere.

A listener that returns True cancels the computation: :func:`report` raises
:class:`Cancelled` in it.  Every caller of :func:`report` in the package does so before it
changes the state it will return (a run's step is whole or not taken)::

    from cbviz import progress

    deadline = time.monotonic() + 5.0
    try:
        with progress.reporting(lambda done, text: time.monotonic() > deadline):
            run.step()              # e.g. MinCq's solve on a large pool
    except progress.Cancelled:
        ...                         # the run is as it was before the step
"""
from __future__ import annotations

import contextvars
from collections.abc import Callable
from contextlib import contextmanager

__all__ = ["Cancelled", "part", "report", "reporting"]

_listener: contextvars.ContextVar[Callable | None] = contextvars.ContextVar(
    "cbviz_progress", default=None)


class Cancelled(Exception):
    """The listener asked to stop; the message is the last progress text."""


def report(fraction, text=""):
    """Tell the listener (if any) that ``fraction`` (0 to 1) of the work is done.

    Raises :class:`Cancelled` when the listener returns True.
    """
    listener = _listener.get()
    if listener is not None and listener(min(max(float(fraction), 0.0), 1.0), text):
        raise Cancelled(text or "cancelled")


@contextmanager
def reporting(listener):
    """Send the reports made in the ``with`` body (this thread) to
    ``listener(fraction, text) -> bool``."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


@contextmanager
def part(low, high, text=""):
    """The reports of the body fill ``[low, high]`` of the enclosing listener's range, their
    text after ``text`` (e.g. one step of many: ``part(k / n, (k + 1) / n, "step 3 of 10")``).
    """
    outer = _listener.get()
    if outer is None:
        yield
        return

    def inner(fraction, inner_text):
        joined = f"{text} · {inner_text}" if text and inner_text else text or inner_text
        return outer(low + (high - low) * fraction, joined)

    token = _listener.set(inner)
    try:
        report(0.0)
        yield
    finally:
        _listener.reset(token)
