"""One CB-Boost step: the one-direction curve, every candidate, both rules side by side."""
from __future__ import annotations

import numpy as np

from ._figures import Scatter, Scattergl, line_trace, new_figure, styled
from ._values import (
    float_column,
    iteration_numbers,
    literal_label,
    literal_text,
    literal_texts,
    title_number,
    voter_namer,
    voter_names,
)
from .style import (
    BLACK,
    BLUE,
    GREEN,
    GREY,
    ITERATION_AXIS,
    ORANGE,
    PURPLE,
    SPARSE_DOT,
    VERMILION,
)

# ---------------------------------------------------------------- one step of CB-Boost

def direction_curve_figure(curve, uirevision="direction"):
    """C-bound of ``F + alpha h`` along the weight of one voter (Theorem 3's picture).

    Examples
    --------
    >>> from cbviz.algorithms import CBBoost
    >>> from cbviz.data import make_toy, prepare
    >>> from cbviz.voters import StumpPool
    >>> split = prepare(make_toy("moons", n_samples=200, seed=0), train_ratio=0.7, seed=0)
    >>> H = StumpPool(n_thresholds=5).fit(split.X_train).operator(split.X_train)
    >>> run = CBBoost(max_iter=5).start(H, split.y_train).run()
    >>> fig = direction_curve_figure(run.direction_curve())   # the last step's voter
    >>> fig.show()  # doctest: +SKIP
    """
    label = literal_label(curve.label, f"voter {curve.index}")
    alphas = np.asarray(curve.alphas, dtype=float)
    fig = new_figure()
    fig.add_trace(Scatter(
        x=alphas, y=np.asarray(curve.c_values, dtype=float), mode="lines",
        name="C-bound along α", line=dict(color=BLUE, width=2.5),
        hovertemplate="α = %{x:.4g}<br>C-bound = %{y:.4g}<extra></extra>"))
    span = [float(alphas.min()), float(alphas.max())] if alphas.size else [0.0, 1.0]
    fig.add_trace(Scatter(
        x=span, y=[curve.c_now, curve.c_now], mode="lines", name="C-bound before the step",
        line=dict(color=GREY, width=1.5, dash="dot"),
        hovertemplate="C-bound before the step = %{y:.4g}<extra></extra>"))
    title = f"Theorem 3: C-bound along one weight<br><sup>new voter {label}"
    if curve.alpha_star is not None and curve.c_star is not None:
        fig.add_trace(Scatter(
            x=[curve.alpha_star], y=[curve.c_star], mode="markers",
            name="closed-form optimum (Theorem 3)",
            marker=dict(symbol="star", size=16, color=VERMILION, line=dict(color=BLACK, width=1)),
            hovertemplate=("closed-form optimum<br>α* = %{x:.4g}<br>C-bound = %{y:.4g}<br>"
                           f"decrease = {curve.c_now - curve.c_star:.4g}<extra></extra>")))
        title += f", α* = {title_number(curve.alpha_star)}"
    else:
        title += ": no improving weight"
    return styled(fig, title=title + "</sup>",
                  x_title="weight α of the new voter (unnormalized vote)",
                  y_title="empirical C-bound", uirevision=uirevision)


def _subsample(idx, keep, limit, rng_seed=0):
    """At most ``limit`` of ``idx``: all of ``keep`` (a subset) plus a fixed random sample."""
    if idx.size <= limit:
        return idx
    rest = np.setdiff1d(idx, keep, assume_unique=True)
    rng = np.random.default_rng(rng_seed)
    take = rng.choice(rest.size, size=max(limit - keep.size, 0), replace=False)
    return np.sort(np.concatenate([keep, rest[take]]))


def landscape_figure(candidates, labels, uirevision="landscape", max_points=20000,
                     max_invalid=5000):
    """Every candidate voter: gradient score vs. exact C-bound decrease, with both rules' picks.

    ``labels`` describes voter k (a sequence or a callable).  With huge pools the valid
    candidates are thinned to ``max_points`` (the ``max_points // 4`` best of each score
    always kept) and the non-improving ones to ``max_invalid``; the picks are always drawn.

    Examples
    --------
    >>> from cbviz.algorithms import CBBoost
    >>> from cbviz.data import make_toy, prepare
    >>> from cbviz.voters import StumpPool
    >>> split = prepare(make_toy("moons", n_samples=200, seed=0), train_ratio=0.7, seed=0)
    >>> pool = StumpPool(n_thresholds=5).fit(split.X_train)
    >>> run = CBBoost(max_iter=5, keep_candidates=True).start(
    ...     pool.operator(split.X_train), split.y_train).run()
    >>> fig = landscape_figure(run.history[-1].candidates, pool.describe)
    >>> fig.show()  # doctest: +SKIP
    """
    grad = np.asarray(candidates.gradient, dtype=float)
    dec = np.asarray(candidates.decrease, dtype=float)
    alpha = np.asarray(candidates.alpha, dtype=float)
    valid = np.asarray(candidates.valid, dtype=bool)
    n = grad.size
    g_pick, e_pick = candidates.gradient_pick, candidates.exhaustive_pick
    picks = np.array(sorted({p for p in (g_pick, e_pick) if p >= 0}), dtype=int)
    finite = np.isfinite(grad) & np.isfinite(dec)

    good = np.flatnonzero(valid & finite)
    n_good = good.size
    if good.size > max_points:
        top = max_points // 4
        best = np.union1d(good[np.argsort(-dec[good], kind="stable")[:top]],
                          good[np.argsort(-grad[good], kind="stable")[:top]])
        good = _subsample(good, np.union1d(best, picks).astype(int), max_points)
    rule = _rule_text(candidates)
    lowers = np.asarray(getattr(candidates, "lowers", np.zeros(n, bool)), dtype=bool)
    best = np.asarray(getattr(candidates, "best_decrease", dec), dtype=float)
    fig = new_figure()
    # the three kinds of candidate differ by symbol as well as color, each at least 3:1 on
    # white: grey crosses (cannot lower the C-bound), open grey circles (outside the rule),
    # filled blue circles (a 75 % blue, 3.3:1)
    for mask, y, name, why, color in (
            (~valid & ~lowers & finite, dec, "cannot lower the C-bound",
             "no positive weight on this voter lowers the C-bound", "rgba(127,127,127,0.9)"),
            (~valid & lowers & finite, best, "lowers it, but outside the rule",
             f"would lower the C-bound by %{{y:.4g}}, but the rule only takes {rule}", GREY)):
        idx = np.flatnonzero(mask)
        if idx.size > max_invalid:
            idx = _subsample(idx, np.empty(0, int), max_invalid)
        if not idx.size:
            continue
        fig.add_trace(Scattergl(
            x=grad[idx], y=y[idx], mode="markers", name=name,
            customdata=literal_texts(voter_names(labels, idx)),
            marker=dict(size=5, symbol="circle-open", color=color, line=dict(width=1))
            if "outside" in name else dict(size=5, symbol="x", color=color),
            hovertemplate=(f"%{{customdata}}<br>gradient score = %{{x:.4g}}<br>{why}"
                           "<extra></extra>")))
    fig.add_trace(Scattergl(
        x=grad[good], y=dec[good], mode="markers", name="candidate voters",
        customdata=np.column_stack([literal_texts(voter_names(labels, good)), alpha[good]])
        if good.size else np.empty((0, 2)),
        marker=dict(size=6, symbol="circle", color=BLUE, opacity=0.75,
                    line=dict(color=BLUE, width=0.5)),
        hovertemplate=("%{customdata[0]}<br>gradient score = %{x:.4g}<br>"
                       "C-bound decrease = %{y:.4g}<br>α* = %{customdata[1]:.4g}"
                       "<extra>candidate</extra>")))

    def pick(k, name, symbol, color, size):
        fig.add_trace(Scattergl(
            x=[grad[k]], y=[dec[k]], mode="markers", name=name,
            customdata=[[name, alpha[k]]],
            marker=dict(symbol=symbol, size=size, color=color, line=dict(color=BLACK, width=1.5)),
            hovertemplate=("%{customdata[0]}<br>gradient score = %{x:.4g}<br>"
                           "C-bound decrease = %{y:.4g}<br>α* = %{customdata[1]:.4g}"
                           "<extra></extra>")))

    label_of = voter_namer(labels)

    def name(k):
        return literal_text(label_of(k))
    if e_pick >= 0 and e_pick == g_pick:
        pick(e_pick, f"both rules pick: {name(e_pick)}", "star", VERMILION, 20)
    else:
        if e_pick >= 0:
            pick(e_pick, f"exhaustive pick: {name(e_pick)}", "star", VERMILION, 20)
        if g_pick >= 0:
            pick(g_pick, f"gradient pick: {name(g_pick)}", "diamond", ORANGE, 15)
    admissible = getattr(candidates, "admissible", None)
    n_eligible = int(admissible().sum()) if admissible else n
    shown = f"{n_good} of {n_eligible} eligible voters improve (eligible: {rule})"
    if lowers.any():
        shown += f"; {int(lowers.sum())} of the {n} voters lower the C-bound"
    if good.size < n_good:
        shown += f"; {good.size} shown"
    fig = styled(fig, title=f"Which voter next?<br><sup>{shown}</sup>",
                 x_title="gradient score −∂C/∂a_k at a_k = 0",
                 y_title="exact C-bound decrease (Property 1)", uirevision=uirevision)
    fig.update_yaxes(rangemode="tozero")
    return fig


def _rule_text(candidates):
    """The voters a CB-Boost rule may take, in words."""
    theorem3 = getattr(candidates, "eligible", "theorem3") == "theorem3"
    reuse = getattr(candidates, "reuse_voters", False)
    return {(True, False): "γ(h) > 0 and not in the vote", (True, True): "γ(h) > 0",
            (False, False): "not in the vote", (False, True): "every voter"}[(theorem3, reuse)]


def lockstep_figure(table, uirevision="lockstep", marks=True):
    """C-bound of the exhaustive (CB-Boost) and gradient (GB-CB-Boost) rules run side by side;
    with ``marks``, a tick at each iteration where the two runs (each from its own vote) add
    different voters, and their count.

    Examples
    --------
    >>> from cbviz.algorithms import lockstep
    >>> from cbviz.data import make_toy, prepare
    >>> from cbviz.voters import StumpPool
    >>> split = prepare(make_toy("moons", n_samples=200, seed=0), train_ratio=0.7, seed=0)
    >>> H = StumpPool(n_thresholds=5).fit(split.X_train).operator(split.X_train)
    >>> exhaustive, gradient, table = lockstep(H, split.y_train, max_iter=10)
    >>> fig = lockstep_figure(table)
    >>> fig.show()  # doctest: +SKIP
    """
    it = iteration_numbers(table)
    ex = float_column(table, "exhaustive_c_bound")
    gr = float_column(table, "gradient_c_bound")
    agree = (table["agree"].fillna(False).astype(bool).to_numpy() if table is not None
             and "agree" in table else np.zeros(it.size, bool))

    def labels(col):
        if table is None or col not in table:
            return ["–"] * it.size
        return [literal_label(v, "– (stopped)") for v in table[col].tolist()]

    ex_lab, gr_lab = labels("exhaustive_label"), labels("gradient_label")
    fig = new_figure()
    fig.add_trace(Scatter(
        x=it, y=ex, mode="lines+markers", name="exhaustive (CB-Boost)",
        customdata=np.array(ex_lab, dtype=object), line=dict(color=BLUE, width=2.5),
        marker=dict(size=5, symbol="circle"),
        hovertemplate="exhaustive: C-bound = %{y:.4g}, added %{customdata}<extra></extra>"))
    fig.add_trace(Scatter(
        x=it, y=gr, mode="lines+markers", name="gradient (GB-CB-Boost)",
        customdata=np.array(gr_lab, dtype=object), line=dict(color=ORANGE, width=2, dash="dash"),
        marker=dict(size=6, symbol="square"),
        hovertemplate="gradient: C-bound = %{y:.4g}, added %{customdata}<extra></extra>"))
    for extra_col, name, color, dash, symbol in (
            ("exhaustive_all_c_bound", "exhaustive, every voter eligible", GREEN, "dot",
             "diamond"),
            ("gradient_all_c_bound", "gradient, every voter eligible", PURPLE, SPARSE_DOT,
             "triangle-up")):   # both dotted (the page says so), each its own dots
        if table is not None and extra_col in table:
            fig.add_trace(line_trace(it, float_column(table, extra_col), name, color, width=1.5,
                                     dash=dash, symbol=symbol))
    if not marks:
        return styled(fig, title="Exhaustive vs. gradient rule, each run on its own",
                      x_title=ITERATION_AXIS, y_title="empirical C-bound",
                      uirevision=uirevision, hovermode="x unified")
    off = np.flatnonzero(~agree)
    both = np.concatenate([ex, gr])
    low = float(np.nanmin(both)) if np.isfinite(both).any() else 0.0
    high = float(np.nanmax(both)) if np.isfinite(both).any() else 1.0
    rug = low - 0.06 * max(high - low, 1e-3)  # a tick row under the curves, not on them
    fig.add_trace(Scatter(
        x=it[off], y=np.full(off.size, rug), mode="markers", name="rules disagree (tick)",
        customdata=np.column_stack([np.array(ex_lab, dtype=object)[off],
                                    np.array(gr_lab, dtype=object)[off]]) if off.size
        else np.empty((0, 2)),
        marker=dict(symbol="line-ns", size=12, color=VERMILION, line=dict(color=VERMILION, width=2)),
        hovertemplate=("iteration %{x}: exhaustive added %{customdata[0]}, "
                       "gradient added %{customdata[1]}<extra></extra>")))
    if it.size:
        rate = f"agree on {int(agree.sum())} of {it.size} steps ({agree.mean():.0%})"
    else:
        rate = "no steps yet"
    fig = styled(fig, title=f"Exhaustive vs. gradient rule<br><sup>{rate}</sup>", x_title=ITERATION_AXIS,
                 y_title="empirical C-bound", uirevision=uirevision, hovermode="x unified")
    return fig
