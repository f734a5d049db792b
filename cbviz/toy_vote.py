"""A toy vote: the uniform majority vote of a few +-1 voters whose errors are set by hand.

Which examples each voter gets wrong (:func:`toy_wrong`, :func:`toy_preset`) gives the vote's
errors, the Gibbs risk r, the disagreement d, the joint error e and the C-bound
(:func:`toy_summary`), and what happens in it in sentences (:func:`toy_story`).  Pure NumPy on
top of :mod:`cbviz.bounds`; the page ``app_pages/cbound_explorer.py`` and the figures of
:mod:`cbviz.plots.cbound` only draw what these functions return.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from . import bounds

__all__ = ["ToySummary", "toy_wrong", "toy_summary", "toy_preset", "TOY_PRESETS", "toy_story"]


@dataclasses.dataclass(frozen=True)
class ToySummary:
    """The uniform majority vote of voters with outputs +-1 on ``m`` examples.

    ``wrong[j, i]``: voter j errs on example i.  The vote errs where at least half of the
    voters err (its margin ``1 - 2 k_i / n`` is <= 0, k_i wrong voters of n; a tie counts as an
    error, as in the C-bound's event M <= 0).  The moments are those of the uniform Q.
    """

    wrong: np.ndarray
    voter_errors: np.ndarray
    wrong_count: np.ndarray
    majority_wrong: np.ndarray
    majority_error: float
    gibbs_risk: float
    disagreement: float
    joint_error: float
    mu1: float
    mu2: float
    c_bound: float

    @property
    def first_order(self):
        """The first-order bound 2r on the vote's error."""
        return 2.0 * self.gibbs_risk

    @property
    def threshold(self):
        """The number of wrong voters from which the vote errs: ceil(n / 2)."""
        return math.ceil(self.wrong.shape[0] / 2)


def toy_wrong(errors, m):
    """The ``(n_voters, m)`` boolean matrix of ``errors`` (per voter, the 0-based indices of the
    examples it gets wrong)."""
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive integer, got {m!r}")
    if len(errors) < 1:
        raise ValueError("at least one voter is needed")
    wrong = np.zeros((len(errors), int(m)), dtype=bool)
    for j, idx in enumerate(errors):
        idx = np.asarray(list(idx), dtype=int)
        if idx.size and (idx.min() < 0 or idx.max() >= m):
            raise ValueError(f"voter {j + 1}: example indices must be in [0, {m - 1}], got "
                             f"{sorted(idx.tolist())}")
        wrong[j, idx] = True
    return wrong


def toy_summary(wrong):
    """Errors of each voter and of their uniform majority vote, r, d, e and the C-bound.

    The margins ``M_i = 1 - 2 k_i / n`` go through :mod:`cbviz.bounds`, as for any run.
    """
    wrong = np.asarray(wrong, dtype=bool)
    if wrong.ndim != 2 or 0 in wrong.shape:
        raise ValueError(f"wrong must be a non-empty (voters, examples) matrix, got shape "
                         f"{wrong.shape}")
    n = wrong.shape[0]
    k = wrong.sum(axis=0)
    M = 1.0 - 2.0 * k / n
    mu1, mu2 = bounds.moments(M)
    return ToySummary(
        wrong=wrong, voter_errors=wrong.mean(axis=1), wrong_count=k, majority_wrong=M <= 0,
        majority_error=float(np.mean(M <= 0)), gibbs_risk=bounds.gibbs_risk(M),
        disagreement=bounds.disagreement(M), joint_error=bounds.joint_error(M), mu1=mu1,
        mu2=mu2, c_bound=bounds.c_bound(mu1, mu2))


TOY_PRESETS = {
    "different": "errors on different examples",
    "same": "errors on the same examples",
    "random": "random",
}


def toy_preset(name, m=10, n_voters=3, n_errors=3, seed=0):
    """Per voter, the 0-based examples it gets wrong; each voter errs on ``n_errors`` examples.

    ``"different"``: voter j errs on examples ``j * n_errors ...`` (no two voters share an
    error; needs ``n_voters * n_errors <= m``); ``"same"``: every voter errs on the first
    ``n_errors``; ``"random"``: each voter on ``n_errors`` examples drawn without replacement
    by ``numpy.random.default_rng(seed)``.
    """
    if name not in TOY_PRESETS:
        raise ValueError(f"preset must be one of {list(TOY_PRESETS)}, got {name!r}")
    if not 0 <= n_errors <= m:
        raise ValueError(f"n_errors must be in [0, m = {m}], got {n_errors}")
    if name == "different":
        if n_voters * n_errors > m:
            raise ValueError(f"{n_voters} voters with {n_errors} errors each do not fit on "
                             f"{m} distinct examples")
        return [list(range(j * n_errors, (j + 1) * n_errors)) for j in range(n_voters)]
    if name == "same":
        return [list(range(n_errors)) for _ in range(n_voters)]
    rng = np.random.default_rng(seed)
    return [sorted(rng.choice(m, size=n_errors, replace=False).tolist()) for _ in range(n_voters)]


def _examples(idx):
    """1-based example numbers in words."""
    idx = [int(i) + 1 for i in idx]
    word = "example" if len(idx) == 1 else "examples"
    return f"{word} {', '.join(map(str, idx))}"


def toy_story(s):
    """What happens in the toy vote ``s`` (a :class:`ToySummary`), in sentences (markdown)."""
    n, m = s.wrong.shape
    bad = np.flatnonzero(s.majority_wrong)
    text = (f"The majority vote errs where at least {s.threshold} of the {n} voters err: "
            + (f"{_examples(bad)} ({bad.size} of {m})." if bad.size
               else f"nowhere (no example has {s.threshold} wrong voters)."))
    best = int(np.argmin(s.voter_errors))
    best_err = float(s.voter_errors[best])
    k = s.wrong_count
    outvoted = int(k[k < s.threshold].sum())
    total = int(k.sum())
    if s.majority_error < best_err:
        text += (f" It **beats every voter** (the best errs on {best_err:.0%}): {outvoted} of "
                 f"the voters' {total} errors fall on examples where most voters are right, "
                 "and are outvoted.")
    elif s.majority_error == best_err:
        text += f" **No gain**: the vote errs as often as the best voter ({best_err:.0%})."
        if (s.wrong == s.wrong[0]).all():
            text += (" The voters err on the same examples, so they never disagree (d = 0) and "
                     "the vote is one voter repeated.")
    else:
        lost = np.flatnonzero(s.majority_wrong & ~s.wrong[best])
        text += (f" It is **worse than the best voter** (voter {best + 1}, {best_err:.0%}): on "
                 f"{_examples(lost)} that voter is right but outvoted.")
    r, d = s.gibbs_risk, s.disagreement
    if s.mu1 <= 0:
        text += (f" Here r = {r:.3f} ≥ 1/2 (μ₁ ≤ 0): the C-bound says nothing (reported as 1); "
                 f"2r = {2 * r:.3f}.")
        return text
    text += (f" C-bound {s.c_bound:.3f} ≥ the vote's error {s.majority_error:.3f} (it holds on "
             f"these {m} examples: the CB-Boost paper's Corollary 1); 2r = {2 * r:.3f}. ")
    if math.isclose(d, r, rel_tol=1e-9, abs_tol=1e-12):
        text += f"d = r = {r:.3f}, so C = 2r."
    elif d > r:
        text += f"d = {d:.3f} > r = {r:.3f}, so C < 2r: the disagreement pays."
    else:
        text += f"d = {d:.3f} < r = {r:.3f}, so C > 2r: too little disagreement."
    return text
