"""Figures comparing algorithms: one curve per algorithm, the final bound panel."""
from __future__ import annotations

import numpy as np

from ._figures import MAX_MARKERS, Bar, Scatter, new_figure, styled
from ._values import float_column, iteration_numbers, title_number
from .style import (
    BLACK,
    BLUE,
    DASHES,
    FULL_WIDTH,
    GREEN,
    GREY,
    ITERATION_AXIS,
    ORANGE,
    PURPLE,
    SKY,
    SYMBOLS,
    TEXT,
    VERMILION,
    YELLOW,
    history_frame,
)

PALETTE = (BLUE, VERMILION, GREEN, ORANGE, PURPLE, SKY, BLACK, YELLOW, GREY)
# the bars of a group: hatched each its own way, not told apart by color alone
PATTERNS = ("", "/", ".", "x", "\\", "+", "-", "|")


def _style_of(i):
    """Color, dash and marker symbol of the i-th algorithm: the (dash, symbol) pair differs
    between any two of the first 24 (the 8 dashes and 12 symbols cycle together), and the
    color between any two of the first 9."""
    return PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)], SYMBOLS[i % len(SYMBOLS)]


def compare_figure(frames, column, *, title, y_title, x_column="iteration", x_title=ITERATION_AXIS,
                   log_y=False, uirevision=None):
    """``column`` of every algorithm's records against ``x_column`` (one line each).

    ``frames``: display name -> per-iteration DataFrame.  Algorithms without the column
    (e.g. the C-bound of a scikit-learn baseline) are left out and named in the subtitle; one
    with a single value (MinCq's one program) is a large diamond labelled with that value.
    Each curve has its own color, dash and marker symbol (on a curve of more than 40 points,
    :data:`MAX_MARKERS` of its points carry the marker): none is told by its color alone.

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
        color, dash, symbol = _style_of(i)
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
                textfont=dict(color=TEXT, size=12)))
            continue
        many = len(x) > 40
        fig.add_trace(Scatter(
            x=x, y=y, mode="lines+markers", name=name,
            line=dict(color=color, width=2, dash=dash),
            marker=dict(size=4 if symbol == "circle" else 6, symbol=symbol,
                        maxdisplayed=MAX_MARKERS if many else None),
            hovertemplate=hover))
    if missing:
        title += f"<br><sup>not defined for: {', '.join(missing)}</sup>"
    fig = styled(fig, title=title, x_title=x_title, y_title=y_title,
                 uirevision=uirevision or f"compare_{column}", legend_width=FULL_WIDTH)
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def bound_panel_figure(panel, uirevision="compare_panel"):
    """Grouped bars: per algorithm, its C-bound, PAC-Bayes bounds and errors at the end;
    each quantity's bars in their own color and hatching pattern.

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
        color = _style_of(i)[0]
        fig.add_trace(Bar(
            x=rows["algorithm"], y=rows["value"], name=quantity,
            marker=dict(color=color, pattern=dict(shape=PATTERNS[i % len(PATTERNS)])),
            hovertemplate=f"%{{x}}<br>{quantity} = %{{y:.4g}}<extra></extra>"))
    fig = styled(fig, title="Bounds and errors at each algorithm's last iteration<br><sup>each "
                 "PAC-Bayes bound holds with probability ≥ 1 − δ; all four together ≥ 1 − 4δ</sup>",
                 x_title="algorithm", y_title="risk bound / error (fraction)", uirevision=uirevision,
                 legend_width=FULL_WIDTH)
    fig.update_layout(barmode="group")
    fig.update_yaxes(range=[0.0, 1.02])
    return fig
