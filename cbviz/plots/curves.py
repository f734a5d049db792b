"""Figures over iterations: bounds, errors, KL, weights, any record column, MinCq(CB-Boost)."""
from __future__ import annotations

import math

import numpy as np

from ..bounds import PAC_BOUNDS
from ._figures import Bar, Scatter, iteration_marker, line_trace, new_figure, styled
from ._values import float_column, iteration_numbers, literal_label
from .style import (
    BLACK,
    BLUE,
    FULL_WIDTH,
    GREEN,
    GREY,
    ITERATION_AXIS,
    ORANGE,
    PURPLE,
    RISK_AXIS,
    SERIES_DASHES,
    SKY,
    SUBTITLE_COLOR,
    SYMBOLS,
    VERMILION,
    YELLOW,
    bound_look,
    history_frame,
)

# ---------------------------------------------------------------- figures over iterations

_BOUND_WIDTH = {"pac_bound": 2, "pac_bound_1": 2}  # the other two bounds: 1.5 px
#: the history columns :func:`bounds_figure` reads: its figure is drawn from them alone (a
#: cache of its figures can be keyed by their values)
BOUNDS_COLUMNS = ("iteration", "train_error", "c_bound", *PAC_BOUNDS)

def bounds_figure(frame, current=None, uirevision="bounds", *, spec=False):
    """Empirical C-bound, four PAC-Bayesian bounds and the train error vs. iteration.

    The train error (filled, dashed) stays under the empirical C-bound: the C-bound is a
    guarantee on the majority vote's error on the training set; the PAC-Bayesian bounds
    hold on the true risk with probability ``1 - delta``.  Each curve has its own dash and
    marker symbol (:data:`.style.BOUND_LOOK`): none is told by its color alone.  A bound that
    is NaN throughout (a run on fitted trees: not applicable) is left out.
    ``spec=True``: the figure as a dict, not a ``go.Figure`` (what the app's live charts
    draw; see :func:`._figures.styled`).

    Examples
    --------
    >>> from cbviz.data import make_toy
    >>> from cbviz.estimators import CBBoostClassifier
    >>> ds = make_toy("moons", n_samples=200, seed=0)
    >>> clf = CBBoostClassifier(max_iter=10).fit(ds.X, ds.y)
    >>> fig = bounds_figure(clf.history_)   # or run.history, run.to_frame()
    >>> fig.show()  # doctest: +SKIP
    """
    frame = history_frame(frame)
    it = iteration_numbers(frame)
    fig = new_figure()
    fig.add_trace(Scatter(
        x=it, y=float_column(frame, "train_error"), mode="lines", name="train error",
        line=dict(color=GREY, width=1.5, dash="dash"), fill="tozeroy",
        fillcolor="rgba(127,127,127,0.15)",
        hovertemplate="train error = %{y:.4g}<extra></extra>"))
    fig.add_trace(line_trace(it, float_column(frame, "c_bound"), "empirical C-bound", BLUE,
                             width=3, symbol="circle"))
    lows_x, lows_y, lows_name = [], [], []
    for i, (col, name) in enumerate(PAC_BOUNDS.items()):
        values = float_column(frame, col)
        if not np.isfinite(values).any():   # not applicable (voters fitted to the sample)
            continue
        color, dash, symbol = bound_look(col, i)
        fig.add_trace(line_trace(it, values, name, color, width=_BOUND_WIDTH.get(col, 1.5),
                                 dash=dash, symbol=symbol))
        k = int(np.nanargmin(values))
        lows_x.append(it[k])
        lows_y.append(values[k])
        lows_name.append(name)
    note = ("stars: where each PAC-Bayes bound is lowest" if lows_x else "no PAC-Bayes bound: "
            "they need voters fixed before the sample, and these were fitted to it")
    fig.add_trace(Scatter(
        x=lows_x, y=lows_y, mode="markers", name="lowest value of each bound",
        customdata=np.array(lows_name, dtype=object),
        marker=dict(symbol="star", size=13, color=YELLOW, line=dict(color=BLACK, width=1)),
        hovertemplate="%{customdata}: lowest %{y:.4g} at iteration %{x}<extra></extra>"))
    if current is not None:
        fig.add_trace(iteration_marker(current, 0.0, 1.02))
    return styled(fig, title="Risk bounds and train error<br><sup>train error ≤ empirical "
                  f"C-bound (Bauvin et al. 2020, Corollary 1); {note}</sup>", x_title=ITERATION_AXIS,
                  y_title="risk bound / error (fraction)", uirevision=uirevision, height=420,
                  hovermode="x unified", legend_width=FULL_WIDTH, yaxis=dict(range=[0.0, 1.02]),
                  spec=spec)


def error_figure(frame, current=None, uirevision="errors", *, spec=False):
    """Train and test 0-1 error of the majority vote vs. iteration (no test trace without test data).
    ``spec=True``: the figure as a dict, not a ``go.Figure`` (what the app's live charts
    draw; see :func:`._figures.styled`).

    Examples
    --------
    >>> from cbviz.data import make_toy
    >>> from cbviz.estimators import CBBoostClassifier
    >>> ds = make_toy("moons", n_samples=200, seed=0)
    >>> clf = CBBoostClassifier(max_iter=10).fit(ds.X, ds.y)
    >>> fig = error_figure(clf.history_)
    >>> fig.show()  # doctest: +SKIP
    """
    frame = history_frame(frame)
    it = iteration_numbers(frame)
    train = float_column(frame, "train_error")
    test = float_column(frame, "test_error")
    fig = new_figure()
    fig.add_trace(line_trace(it, train, "train error", BLUE, symbol="circle"))
    has_test = bool(np.isfinite(test).any())
    if has_test:
        fig.add_trace(line_trace(it, test, "test error", VERMILION, dash="dash", symbol="square"))
    values = np.concatenate([train, test])
    values = values[np.isfinite(values)]
    top = max(0.05, float(values.max()) * 1.12) if values.size else 1.0
    top = min(top, 1.02)
    if current is not None:
        fig.add_trace(iteration_marker(current, 0.0, top))
    title = "0-1 error of the majority vote<br><sup>" + (
        "training and test examples" if has_test else "training examples") + "</sup>"
    return styled(fig, title=title, x_title=ITERATION_AXIS, y_title=RISK_AXIS,
                  uirevision=uirevision, hovermode="x unified", yaxis=dict(range=[0.0, top]),
                  spec=spec)


def kl_figure(frame, n_voters, current=None, uirevision="kl"):
    """``KL(Q||P)`` to the uniform prior over ``n_voters`` voters, and its ceiling ``ln n``.

    Examples
    --------
    >>> from cbviz.data import make_toy
    >>> from cbviz.estimators import CBBoostClassifier
    >>> ds = make_toy("moons", n_samples=200, seed=0)
    >>> clf = CBBoostClassifier(max_iter=10).fit(ds.X, ds.y)
    >>> fig = kl_figure(clf.history_, n_voters=clf.pool_.n_voters_)
    >>> fig.show()  # doctest: +SKIP
    """
    frame = history_frame(frame)
    try:
        n = int(n_voters)
    except (TypeError, ValueError):
        n = 0
    if isinstance(n_voters, bool) or n < 1 or n != n_voters:
        raise ValueError(f"n_voters must be a positive integer (the pool size), got {n_voters!r}")
    ceiling = math.log(n)
    it = iteration_numbers(frame)
    kl = float_column(frame, "kl")
    fig = new_figure()
    fig.add_trace(line_trace(it, kl, "KL(Q‖P)", BLUE, width=2.5))
    x_ceiling = it if it.size else np.array([0.0, 1.0])
    fig.add_trace(Scatter(
        x=x_ceiling, y=np.full(x_ceiling.size, ceiling), mode="lines", name="ln n (ceiling)",
        line=dict(color=VERMILION, width=1.5, dash="dash"),
        hovertemplate="ln n = %{y:.4g}<extra></extra>"))
    top = max(ceiling, float(np.nanmax(kl)) if np.isfinite(kl).any() else 0.0) * 1.08 or 1.0
    if current is not None:
        fig.add_trace(iteration_marker(current, 0.0, top))
    return styled(fig, title=f"KL(Q‖P) to the uniform prior<br><sup>ceiling ln n = "
                  f"{ceiling:.4g} nats</sup>", x_title=ITERATION_AXIS, y_title="KL(Q‖P) (nats)",
                  uirevision=uirevision, hovermode="x unified", yaxis=dict(range=[0.0, top]))


def alpha_figure(frame, current=None, uirevision="alpha"):
    """Weight given to the voter added at each iteration; the current one highlighted.

    Examples
    --------
    >>> from cbviz.data import make_toy
    >>> from cbviz.estimators import CBBoostClassifier
    >>> ds = make_toy("moons", n_samples=200, seed=0)
    >>> clf = CBBoostClassifier(max_iter=10).fit(ds.X, ds.y)
    >>> fig = alpha_figure(clf.history_, current=3)   # iteration 3 highlighted
    >>> fig.show()  # doctest: +SKIP
    """
    frame = history_frame(frame)
    it = iteration_numbers(frame)
    alpha = float_column(frame, "alpha")
    if frame is not None and "label" in frame:
        raw = frame["label"].tolist()
    else:
        raw = [None] * len(it)
    index = float_column(frame, "index")
    labels = [literal_label(lab, f"voter {int(k)}" if np.isfinite(k) else "–")
              for lab, k in zip(raw, index)]
    selected = np.isfinite(it) & (it == current) if current is not None else np.zeros(it.size, bool)
    colors = np.where(selected, VERMILION, SKY)
    # the selected bar is hatched as well as colored (not by color alone)
    pattern = dict(shape=np.where(selected, "/", "").tolist()) if selected.any() else None
    fig = new_figure(Bar(
        x=it, y=alpha, name="weight α", customdata=np.array(labels, dtype=object),
        marker=dict(color=colors.tolist(), line=dict(color=np.where(selected, BLACK, BLUE).tolist(),
                                                        width=1), pattern=pattern),
        hovertemplate="iteration %{x}<br>voter: %{customdata}<br>α = %{y:.4g}<extra></extra>"))
    title = "Weight α of each added voter"
    if current is not None and selected.any():
        k = int(np.flatnonzero(selected)[0])
        title += f"<br><sup>iteration {int(it[k])}: {labels[k]}</sup>"
    return styled(fig, title=title, x_title=ITERATION_AXIS, y_title="weight α (unnormalized)",
                  uirevision=uirevision, bargap=0.15)


_SERIES_COLORS = (BLUE, VERMILION, GREEN, ORANGE, PURPLE, SKY)


def series_figure(frame, columns, *, title, y_title, current=None, x_title=ITERATION_AXIS,
                  uirevision="series", log_y=False):
    """Per-iteration quantities of a run (``columns``: record column -> legend name).

    For what is not common to every algorithm: the objective an algorithm minimizes, CqBoost's
    edge and dual variable, the concentration of example weights.  Missing columns are skipped.

    Examples
    --------
    >>> from cbviz.data import make_toy
    >>> from cbviz.estimators import CBBoostClassifier
    >>> ds = make_toy("moons", n_samples=200, seed=0)
    >>> clf = CBBoostClassifier(max_iter=10).fit(ds.X, ds.y)
    >>> fig = series_figure(clf.history_, {"mu1": "first moment", "mu2": "second moment"},
    ...                     title="Margin moments", y_title="moment")
    >>> fig.show()  # doctest: +SKIP
    """
    frame = history_frame(frame)
    it = iteration_numbers(frame)
    fig = new_figure()
    shown = [(c, n) for c, n in columns.items() if frame is not None and c in frame]
    for i, ((col, name), color) in enumerate(zip(shown, _SERIES_COLORS * 2)):
        fig.add_trace(line_trace(it, float_column(frame, col), name, color,
                                 dash=SERIES_DASHES[i % len(SERIES_DASHES)],
                                 symbol=SYMBOLS[i % len(SYMBOLS)]))
    values = np.concatenate([float_column(frame, c) for c, _ in shown]) if shown else np.empty(0)
    values = values[np.isfinite(values)]
    if current is not None and values.size:
        fig.add_trace(iteration_marker(current, float(values.min()), float(values.max())))
    return styled(fig, title=title, x_title=x_title, y_title=y_title, uirevision=uirevision,
                  hovermode="x unified", yaxis=dict(type="log") if log_y else None)


def placeholder_figure(title, why):
    """An empty figure that says why the chart has nothing to show yet.

    Examples
    --------
    >>> fig = placeholder_figure("Test error", "no test examples in this split")
    >>> fig.show()  # doctest: +SKIP
    """
    note = dict(text=why, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                font=dict(size=14, color=SUBTITLE_COLOR))
    return styled(new_figure(), title=title, x_title=ITERATION_AXIS, y_title="–",
                  uirevision=title, annotations=[note])


def mincq_on_voters_figure(frame, mincq, current=None, uirevision="mincq_on_voters"):
    """CB-Boost's C-bound beside the optimal C-bound on the voters it has chosen so far
    (MinCq(CB-Boost), the CB-Boost paper's Fig. 5), with both votes' test errors.

    ``mincq`` has one row per iteration: ``iteration``, ``c_bound`` and ``test_error`` (or
    ``train_error``) of the optimal vote on the same voters.

    Examples
    --------
    >>> from cbviz.algorithms import CBBoost, mincq_on_history
    >>> from cbviz.data import make_toy, prepare
    >>> from cbviz.voters import StumpPool
    >>> split = prepare(make_toy("moons", n_samples=200, seed=0), train_ratio=0.7, seed=0)
    >>> H = StumpPool(n_thresholds=5).fit(split.X_train).operator(split.X_train)
    >>> run = CBBoost(max_iter=10).start(H, split.y_train).run()
    >>> fig = mincq_on_voters_figure(run.history, mincq_on_history(run))
    >>> fig.show()  # doctest: +SKIP
    """
    frame, mincq = history_frame(frame), history_frame(mincq)
    it = iteration_numbers(frame)
    fig = new_figure()
    fig.add_trace(line_trace(it, float_column(frame, "c_bound"), "CB-Boost: empirical C-bound",
                             BLUE, width=2.5, symbol="circle"))
    fig.add_trace(line_trace(iteration_numbers(mincq), float_column(mincq, "c_bound"),
                             "MinCq(CB-Boost): optimal C-bound on the same voters", GREEN,
                             dash="dash", symbol="square"))
    err = "test_error" if np.isfinite(float_column(frame, "test_error")).any() else "train_error"
    which = "test" if err == "test_error" else "train"
    fig.add_trace(line_trace(it, float_column(frame, err), f"CB-Boost: {which} error", VERMILION,
                             width=1.5, dash="longdash", symbol="diamond"))
    fig.add_trace(line_trace(iteration_numbers(mincq), float_column(mincq, err),
                             f"MinCq(CB-Boost): {which} error", ORANGE, width=1.5, dash="dashdot",
                             symbol="triangle-up"))
    if current is not None:
        fig.add_trace(iteration_marker(current, 0.0, 1.02))
    return styled(fig, title="CB-Boost vs. the best vote on its voters<br><sup>MinCq(CB-Boost): "
                  "the lowest C-bound any weights on the voters chosen so far reach (CB-Boost "
                  "paper, Fig. 5)</sup>", x_title=ITERATION_AXIS,
                  y_title="C-bound / 0-1 error (fraction)", uirevision=uirevision,
                  hovermode="x unified", legend_width=FULL_WIDTH, yaxis=dict(range=[0.0, 1.02]))
