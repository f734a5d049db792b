"""Figures comparing algorithms: one curve per algorithm, the final bound panel."""
from __future__ import annotations

import numpy as np

from ._figures import Bar, Scatter, new_figure, styled
from ._values import float_column, iteration_numbers, title_number
from .style import (
    BLACK,
    BLUE,
    FULL_WIDTH,
    GREEN,
    GREY,
    ITERATION_AXIS,
    ORANGE,
    PURPLE,
    SKY,
    VERMILION,
    YELLOW,
    history_frame,
)

PALETTE = (BLUE, VERMILION, GREEN, ORANGE, PURPLE, SKY, BLACK, YELLOW, GREY)
DASHES = ("solid", "dash", "dot", "dashdot", "longdash")


def _style_of(i):
    """Color and dash of the i-th algorithm (distinct beyond the palette's length)."""
    return PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)]


def compare_figure(frames, column, *, title, y_title, x_column="iteration", x_title=ITERATION_AXIS,
                   log_y=False, uirevision=None):
    """``column`` of every algorithm's records against ``x_column`` (one line each).

    ``frames``: display name -> per-iteration DataFrame.  Algorithms without the column
    (e.g. the C-bound of a scikit-learn baseline) are left out and named in the subtitle; one
    with a single value (MinCq's one program) is a large diamond labelled with that value.

    Examples
    --------
    >>> from cbviz.algorithms import AdaBoost, CBBoost
    >>> from cbviz.data import make_toy, prepare
    >>> from cbviz.voters import StumpPool
    >>> split = prepare(make_toy("moons", n_samples=200, seed=0), train_ratio=0.7, seed=0)
    >>> H = StumpPool(n_thresholds=5).fit(split.X_train).operator(split.X_train)
    >>> runs = {name: algo.start(H, split.y_train).run().history
    ...         for name, algo in (("CB-Boost", CBBoost(max_iter=10)),
    ...                            ("AdaBoost", AdaBoost(max_iter=10)))}
    >>> fig = compare_figure(runs, "train_error", title="Training error", y_title="error")
    >>> fig.show()  # doctest: +SKIP
    """
    frames = {name: history_frame(f) for name, f in frames.items()}
    fig = new_figure()
    missing = []
    for i, (name, frame) in enumerate(frames.items()):
        y = float_column(frame, column)
        if not np.isfinite(y).any():
            missing.append(name)
            continue
        x = iteration_numbers(frame) if x_column == "iteration" else float_column(frame, x_column)
        color, dash = _style_of(i)
        hover = f"{name}<br>{x_title} = %{{x}}<br>{y_title} = %{{y:.4g}}<extra></extra>"
        known = np.flatnonzero(np.isfinite(y))
        if known.size == 1:  # a one-shot solver (MinCq): one point, drawn large and labelled
            k = known[0]
            fig.add_trace(Scatter(
                x=x[known], y=y[known], mode="markers+text", name=name, hovertemplate=hover,
                marker=dict(symbol="diamond", size=14, color=color,
                            line=dict(color=BLACK, width=1.5)),
                text=[f"{name} {title_number(y[k])}"], textposition="middle right",
                cliponaxis=False,
                textfont=dict(color=color, size=12)))
            continue
        fig.add_trace(Scatter(
            x=x, y=y, mode="lines+markers" if len(x) <= 40 else "lines", name=name,
            line=dict(color=color, width=2, dash=dash), marker=dict(size=4),
            hovertemplate=hover))
    if missing:
        title += f"<br><sup>not defined for: {', '.join(missing)}</sup>"
    fig = styled(fig, title=title, x_title=x_title, y_title=y_title,
                 uirevision=uirevision or f"compare_{column}", legend_width=FULL_WIDTH)
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def bound_panel_figure(panel, uirevision="compare_panel"):
    """Grouped bars: per algorithm, its C-bound, PAC-Bayes bounds and errors at the end.

    Examples
    --------
    >>> from cbviz.compare import Comparison
    >>> from cbviz.problem import Settings, build_problem
    >>> problem = build_problem(Settings(source="toy", toy="moons"))
    >>> comparison = Comparison(problem, [("cbboost", {}), ("adaboost", {})], max_iter=10)
    >>> comparison.step(10)
    >>> fig = bound_panel_figure(comparison.final_panel())
    >>> fig.show()  # doctest: +SKIP
    """
    fig = new_figure()
    for i, (quantity, rows) in enumerate(panel.groupby("quantity", sort=False)):
        color, _ = _style_of(i)
        fig.add_trace(Bar(
            x=rows["algorithm"], y=rows["value"], name=quantity, marker=dict(color=color),
            hovertemplate=f"%{{x}}<br>{quantity} = %{{y:.4g}}<extra></extra>"))
    fig = styled(fig, title="Bounds and errors at each algorithm's last iteration<br><sup>each "
                 "PAC-Bayes bound holds with probability ≥ 1 − δ; all four together ≥ 1 − 4δ</sup>",
                 x_title="algorithm", y_title="risk bound / error (fraction)", uirevision=uirevision,
                 legend_width=FULL_WIDTH)
    fig.update_layout(barmode="group")
    fig.update_yaxes(range=[0.0, 1.02])
    return fig
