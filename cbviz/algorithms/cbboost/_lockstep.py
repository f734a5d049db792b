"""The exhaustive and gradient rules side by side: runs in lockstep, and both rules' picks
from the same votes."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import progress
from ..base import ParameterError
from ._run import CBBoost
from ._scores import DIRECTIONS

__all__ = ["lockstep", "lockstep_start", "lockstep_table", "pick_correlations", "run_in_turn"]


def lockstep(H, y, max_iter=50, H_test=None, y_test=None, describe=None, delta=0.05,
             eligible="theorem3", reuse_voters=False):
    """Run the exhaustive and gradient rules side by side from the same start.

    Both runs use the same ``eligible`` / ``reuse_voters`` rule.  Returns
    ``(exhaustive_run, gradient_run, table)`` where the table has one row per
    iteration: both choices, whether they agree, the choice the gradient rule would make
    from the exhaustive run's own vote, and both C-bounds (:func:`lockstep_table`).  The
    same in parts: :func:`lockstep_start`, :func:`run_in_turn`, :func:`lockstep_table`.
    """
    ex, gr = lockstep_start(H, y, max_iter, H_test, y_test, describe, delta, eligible,
                            reuse_voters)
    run_in_turn([ex, gr])
    return ex, gr, lockstep_table(ex, gr)


def lockstep_start(H, y, max_iter=50, H_test=None, y_test=None, describe=None, delta=0.05,
                   eligible="theorem3", reuse_voters=False):
    """The exhaustive and the gradient runs of :func:`lockstep`, started, not stepped."""
    # the exhaustive run notes the gradient pick from its own vote (not every candidate's
    # scores: those cost O(n) per step and a page recomputes them for the one vote it shows)
    return tuple(CBBoost(max_iter, d, delta, keep_candidates="picks" if d == "exhaustive"
                         else False, eligible=eligible,
                         reuse_voters=reuse_voters).start(H, y, H_test, y_test, describe)
                 for d in DIRECTIONS)


def run_in_turn(runs):
    """Step each run in turn (one iteration of each) until all have stopped.

    Each step is reported to :mod:`cbviz.progress` first (the share of the runs' ``max_iter``
    iterations taken); a cancel leaves every run at a whole iteration.
    """
    total = max(sum(r.max_iter for r in runs), 1)
    while not all(r.done for r in runs):
        for run in runs:
            if not run.done:
                taken = sum(len(r.history) for r in runs)
                progress.report(taken / total, f"iteration {len(run.history) + 1}")
                run.step()


def lockstep_table(ex, gr):
    """One row per iteration of the exhaustive and the gradient runs (see :func:`lockstep`)."""
    rows = []
    for i in range(max(len(ex.history), len(gr.history))):
        e = ex.history[i] if i < len(ex.history) else None
        g = gr.history[i] if i < len(gr.history) else None
        same_state = None if e is None else _picks(e)[1]
        rows.append({
            "iteration": i + 1,
            "exhaustive_index": None if e is None else e.index,
            "exhaustive_label": None if e is None else e.label,
            "gradient_index": None if g is None else g.index,
            "gradient_label": None if g is None else g.label,
            "agree": e is not None and g is not None and e.index == g.index,
            "gradient_from_exhaustive_state": same_state,
            "exhaustive_c_bound": None if e is None else e.c_bound,
            "gradient_c_bound": None if g is None else g.c_bound,
        })
    return pd.DataFrame(rows)


def _picks(rec):
    """``(exhaustive pick, gradient pick, their decreases)`` of a record (None for the first)."""
    c = rec.candidates
    if c is not None:
        e, g = c.exhaustive_pick, c.gradient_pick
        return e, g, {e: float(c.decrease[e]) if e >= 0 else np.nan,
                      g: float(c.decrease[g]) if g >= 0 else np.nan}
    x = rec.extra
    if "gradient_pick" not in x:
        return None, None, {}
    e, g = x["exhaustive_pick"], x["gradient_pick"]
    return e, g, {e: x["exhaustive_pick_decrease"], g: x["gradient_pick_decrease"]}


def pick_correlations(run):
    """Both rules' picks from the same votes of a run kept with ``keep_candidates="picks"``
    (or ``True``).

    One row per iteration t >= 2: the voter the run took (``exhaustive`` for the exhaustive
    rule), the voter the gradient rule would have taken from the same vote, whether they
    differ, each pick's exact C-bound decrease, and each pick's correlation with the vote,
    ``rho(h) = tau(F, h) / sqrt(nu(F) nu(h))`` (the cosine of h and F on the sample).  The
    exhaustive score is ``g^2 / (nu(F)^2 nu(h) (1 - rho^2))`` with ``g = gamma(h) nu(F) -
    gamma(F) tau(F, h)`` the gradient rule's score,
    so it favours voters correlated with the vote.
    """
    rows = []
    m = run.y.size
    for rec in run.history[1:]:
        e, g, decrease = _picks(rec)
        if e is None:
            raise ParameterError("the run kept no picks: start it with keep_candidates='picks'")
        # the cosine is scale-free: from the scaled vote and pool (scaled arithmetic)
        F = run._normalized(run.H.matvec(run.weights_at(rec.iteration - 1)))[0]
        nu_F = float(F @ F) / m
        row = {"iteration": rec.iteration}
        for rule, k in (("exhaustive", e), ("gradient", g)):
            if k < 0:
                row.update({f"{rule}_index": None, f"{rule}_decrease": np.nan,
                            f"{rule}_correlation": np.nan})
                continue
            h = run._S.column(k)
            tau, nu_h = float(F @ h) / m, float(h @ h) / m
            row.update({f"{rule}_index": int(k), f"{rule}_decrease": decrease[k],
                        f"{rule}_correlation": tau / np.sqrt(nu_F * nu_h)})
        row["differ"] = row["exhaustive_index"] != row["gradient_index"]
        rows.append(row)
    return pd.DataFrame(rows)
