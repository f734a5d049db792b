"""Plotly figures of a run: pure functions from run data to ``go.Figure``.

Nothing here imports Streamlit or keeps state: each function takes plain data (a
history frame from :meth:`Run.to_frame`, a :class:`Candidates`, a :class:`DirectionCurve`,
arrays) and returns a figure, so the app, notebooks and tests share the same pictures.

Conventions kept by every figure: template ``plotly_white``; a title that says what is
drawn; axis titles with their meaning or unit; a horizontal legend above the plot when
there is more than one trace; hover templates with 4 significant digits; a stable
``layout.uirevision`` (the ``uirevision`` keyword) so zoom survives app reruns; a height
that leaves two figures readable side by side on a 1280 x 800 screen.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from .bounds import PAC_BOUNDS

__all__ = [
    "bounds_figure", "error_figure", "kl_figure", "alpha_figure", "margin_figure",
    "decision_figure", "direction_curve_figure", "landscape_figure", "lockstep_figure",
    "series_figure", "mincq_on_voters_figure", "projection_figure", "placeholder_figure",
    "weights_table",
]

# Colors (Okabe-Ito palette: distinguishable with the common color-vision deficiencies).
BLUE, ORANGE, GREEN, VERMILION = "#0072B2", "#E69F00", "#009E73", "#D55E00"
PURPLE, SKY, YELLOW, GREY, BLACK = "#CC79A7", "#56B4E9", "#F0E442", "#7F7F7F", "#222222"
POS, NEG = VERMILION, BLUE  # label +1 / -1, matching the ends of the vote colorscale
VOTE_SCALE = "RdBu_r"  # -1 blue, 0 white, +1 red

ITERATION_AXIS = "iteration (voters in the vote)"
RISK_AXIS = "0-1 error (fraction of examples)"
HEIGHT = 380


# ---------------------------------------------------------------- shared helpers

def _column(frame, name, n=None):
    """Column ``name`` as floats (None -> NaN); all-NaN when the column is missing."""
    n = len(frame) if n is None else n
    if frame is None or name not in frame:
        return np.full(n, np.nan)
    return pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)


def _iterations(frame):
    if frame is not None and "iteration" in frame:
        return pd.to_numeric(frame["iteration"], errors="coerce").to_numpy(dtype=float)
    return np.arange(1, 0 if frame is None else len(frame) + 1, dtype=float)


def _labeler(labels):
    """A function ``k -> description`` from a callable, a sequence or None."""
    if labels is None:
        return lambda k: f"voter {int(k)}"
    if callable(labels):
        return lambda k: str(labels(int(k)))
    return lambda k: str(labels[int(k)])


def _labels_of(labels, idx):
    """Descriptions of the voters ``idx`` (vectorized when ``labels`` is a sequence)."""
    idx = np.asarray(idx, dtype=int)
    if labels is not None and not callable(labels):
        arr = labels if isinstance(labels, np.ndarray) else np.asarray(labels, dtype=object)
        return np.asarray(arr[idx], dtype=object).astype(str)
    name = _labeler(labels)
    return np.array([name(k) for k in idx], dtype=object)


def _text(value, fallback):
    return fallback if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def _g(x):
    """A number with 4 significant digits for titles (dash when missing)."""
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:.4g}"


_TEMPLATE = pio.templates["plotly_white"]


def _figure(*traces):
    """A new figure that skips Plotly's re-validation of every update.

    Each trace object is validated when it is built (``go.Scatter(...)``); the figure-level
    checks repeat that work and cost about 3/4 of a figure's build time, which a Step pays for
    every chart on screen.  The tests serialize every figure, so a wrong property still fails.
    """
    fig = go.Figure(_validate=False)
    for trace in traces:
        fig.add_trace(trace)
    return fig


def _style(fig, *, title, x_title, y_title, uirevision, height=HEIGHT, hovermode="closest",
           legend_width=400):
    """Apply the layout every figure shares; legend shown when more than one trace has one."""
    shown = [t for t in fig.data if t.showlegend is not False]
    multi = len(shown) > 1
    legend_room = _legend_rows(shown, legend_width) * 21 if multi else 0
    title, title_lines = _readable_title(title, legend_width)
    fig.update_layout(
        template=_TEMPLATE,
        title=dict(text=title, x=0.0, xref="paper", xanchor="left",
                   y=1.0, yref="container", yanchor="top", pad=dict(t=12),
                   font=dict(size=15)),
        height=height + legend_room,
        uirevision=uirevision,
        hovermode=hovermode,
        showlegend=multi,
        legend=dict(orientation="h", x=0.0, xanchor="left", y=0.0, yref="container",
                    yanchor="bottom", font=dict(size=11), itemsizing="constant"),
        margin=dict(l=64, r=18, t=50 + 18 * title_lines, b=60 + legend_room),
        font=dict(size=12),
    )
    fig.update_xaxes(title_text=x_title, automargin=True)
    fig.update_yaxes(title_text=y_title, automargin=True)
    if x_title == ITERATION_AXIS:  # whole iterations only: no 1.5 ticks on short runs
        last = max((np.nanmax(np.asarray(t.x, dtype=float)) for t in fig.data
                    if t.x is not None and len(t.x)), default=1.0)
        fig.update_xaxes(tickformat="d", dtick=1 if last <= 12 else None)
    return fig


SUBTITLE_STYLE = "font-size:12px;color:#444"


def _readable_title(title, width):
    """Subtitle (after ``<br><sup>``) at 12 px instead of Plotly's ~9 px superscript, wrapped
    on "; " so it fits a plot about ``width`` px wide; returns ``(text, subtitle lines)``."""
    head, sep, sub = title.partition("<br><sup>")
    if not sep:
        return title, 1
    sub = sub.removesuffix("</sup>")
    per_line = max(40, int(width / 6.2))
    lines, line = [], ""
    for part in sub.split("; "):
        candidate = f"{line}; {part}" if line else part
        if line and len(candidate) > per_line:
            lines.append(line + ";")
            line = part
        else:
            line = candidate
    lines.append(line)
    body = "<br>".join(f"<span style='{SUBTITLE_STYLE}'>{x}</span>" for x in lines)
    return f"{head}<br>{body}", 1 + len(lines)


def _legend_rows(traces, width=400):
    """Rows of the horizontal legend under the plot, so the bottom margin can hold it.

    Plotly puts a horizontal legend on one row when it fits and otherwise on a grid of
    equal columns as wide as the widest entry; estimated for a plot about 400 px wide
    (half the main area of a 1280 px screen with the sidebar open).
    """
    widths = [40 + 5.6 * len(str(t.name or "")) for t in traces]
    if sum(widths) <= width:
        rows = 1
    else:
        rows = math.ceil(len(widths) / max(1, int(width // max(widths))))
    return rows


def _current_marker(current, y_low, y_high):
    """Vertical dotted line at the selected iteration, as a trace named "current iteration"."""
    return go.Scatter(
        x=[current, current], y=[y_low, y_high], mode="lines", name="current iteration",
        line=dict(color=GREY, width=1.5, dash="dot"),
        hovertemplate="selected iteration %{x}<extra></extra>")


def _line(x, y, name, color, *, width=2, dash=None, fmt=".4g", **kwargs):
    return go.Scatter(
        x=x, y=y, mode="lines+markers" if len(x) <= 60 else "lines", name=name,
        line=dict(color=color, width=width, dash=dash), marker=dict(size=4),
        hovertemplate=f"{name} = %{{y:{fmt}}}<extra></extra>", **kwargs)


# ---------------------------------------------------------------- figures over iterations

def bounds_figure(frame, current=None, uirevision="bounds"):
    """Empirical C-bound, four PAC-Bayesian bounds and the train error vs. iteration.

    The train error (filled, dashed) stays under the empirical C-bound: the C-bound is a
    guarantee on the majority vote's error on the training set; the PAC-Bayesian bounds
    hold on the true risk with probability ``1 - delta``.
    """
    it = _iterations(frame)
    fig = _figure()
    fig.add_trace(go.Scatter(
        x=it, y=_column(frame, "train_error"), mode="lines", name="train error",
        line=dict(color=GREY, width=1.5, dash="dash"), fill="tozeroy",
        fillcolor="rgba(127,127,127,0.15)",
        hovertemplate="train error = %{y:.4g}<extra></extra>"))
    fig.add_trace(_line(it, _column(frame, "c_bound"), "empirical C-bound", BLUE, width=3))
    lows_x, lows_y, lows_name = [], [], []
    for (col, name), (color, width, dash) in zip(PAC_BOUNDS.items(), (
            (VERMILION, 2, None), (ORANGE, 1.5, "dashdot"), (GREEN, 2, None),
            (PURPLE, 1.5, "longdash"))):
        values = _column(frame, col)
        fig.add_trace(_line(it, values, name, color, width=width, dash=dash))
        if np.isfinite(values).any():
            k = int(np.nanargmin(values))
            lows_x.append(it[k])
            lows_y.append(values[k])
            lows_name.append(name)
    fig.add_trace(go.Scatter(
        x=lows_x, y=lows_y, mode="markers", name="lowest value of each bound",
        customdata=np.array(lows_name, dtype=object),
        marker=dict(symbol="star", size=13, color=YELLOW, line=dict(color=BLACK, width=1)),
        hovertemplate="%{customdata}: lowest %{y:.4g} at iteration %{x}<extra></extra>"))
    if current is not None:
        fig.add_trace(_current_marker(current, 0.0, 1.02))
    _style(fig, title="Risk bounds and train error<br><sup>train error ≤ empirical C-bound "
           "(Bauvin et al. 2020, Corollary 1); stars: where each PAC-Bayes bound is lowest</sup>",
           x_title=ITERATION_AXIS, y_title="risk bound / error (fraction)",
           uirevision=uirevision, height=420, hovermode="x unified", legend_width=800)
    fig.update_yaxes(range=[0.0, 1.02])
    return fig


def error_figure(frame, current=None, uirevision="errors"):
    """Train and test 0-1 error of the majority vote vs. iteration (no test trace without test data)."""
    it = _iterations(frame)
    train = _column(frame, "train_error")
    test = _column(frame, "test_error")
    fig = _figure()
    fig.add_trace(_line(it, train, "train error", BLUE))
    has_test = bool(np.isfinite(test).any())
    if has_test:
        fig.add_trace(_line(it, test, "test error", VERMILION, dash="dash"))
    values = np.concatenate([train, test])
    values = values[np.isfinite(values)]
    top = max(0.05, float(values.max()) * 1.12) if values.size else 1.0
    top = min(top, 1.02)
    if current is not None:
        fig.add_trace(_current_marker(current, 0.0, top))
    title = "0-1 error of the majority vote<br><sup>" + (
        "training and test examples" if has_test else "training examples") + "</sup>"
    _style(fig, title=title, x_title=ITERATION_AXIS, y_title=RISK_AXIS,
           uirevision=uirevision, hovermode="x unified")
    fig.update_yaxes(range=[0.0, top])
    return fig


def kl_figure(frame, n_voters, current=None, uirevision="kl"):
    """``KL(Q||P)`` to the uniform prior over ``n_voters`` voters, and its ceiling ``ln n``."""
    try:
        n = int(n_voters)
    except (TypeError, ValueError):
        n = 0
    if isinstance(n_voters, bool) or n < 1 or n != n_voters:
        raise ValueError(f"n_voters must be a positive integer (the pool size), got {n_voters!r}")
    ceiling = math.log(n)
    it = _iterations(frame)
    kl = _column(frame, "kl")
    fig = _figure()
    fig.add_trace(_line(it, kl, "KL(Q‖P)", BLUE, width=2.5))
    x_ceiling = it if it.size else np.array([0.0, 1.0])
    fig.add_trace(go.Scatter(
        x=x_ceiling, y=np.full(x_ceiling.size, ceiling), mode="lines", name="ln n (ceiling)",
        line=dict(color=VERMILION, width=1.5, dash="dash"),
        hovertemplate="ln n = %{y:.4g}<extra></extra>"))
    top = max(ceiling, float(np.nanmax(kl)) if np.isfinite(kl).any() else 0.0) * 1.08 or 1.0
    if current is not None:
        fig.add_trace(_current_marker(current, 0.0, top))
    _style(fig, title=f"KL(Q‖P) to the uniform prior<br><sup>ceiling ln n = {ceiling:.4g} nats</sup>",
           x_title=ITERATION_AXIS, y_title="KL(Q‖P) (nats)", uirevision=uirevision,
           hovermode="x unified")
    fig.update_yaxes(range=[0.0, top])
    return fig


def alpha_figure(frame, current=None, uirevision="alpha"):
    """Weight given to the voter added at each iteration; the current one highlighted."""
    it = _iterations(frame)
    alpha = _column(frame, "alpha")
    if frame is not None and "label" in frame:
        raw = frame["label"].tolist()
    else:
        raw = [None] * len(it)
    index = _column(frame, "index")
    labels = [_text(lab, f"voter {int(k)}" if np.isfinite(k) else "–") for lab, k in zip(raw, index)]
    selected = np.isfinite(it) & (it == current) if current is not None else np.zeros(it.size, bool)
    colors = np.where(selected, VERMILION, SKY)
    fig = _figure(go.Bar(
        x=it, y=alpha, name="weight α", customdata=np.array(labels, dtype=object),
        marker=dict(color=colors.tolist(), line=dict(color=np.where(selected, BLACK, BLUE).tolist(),
                                                     width=1)),
        hovertemplate="iteration %{x}<br>voter: %{customdata}<br>α = %{y:.4g}<extra></extra>"))
    title = "Weight α of each added voter"
    if current is not None and selected.any():
        k = int(np.flatnonzero(selected)[0])
        title += f"<br><sup>iteration {int(it[k])}: {labels[k]}</sup>"
    _style(fig, title=title, x_title=ITERATION_AXIS,
           y_title="weight α (unnormalized)", uirevision=uirevision)
    fig.update_layout(bargap=0.15)
    return fig


_SERIES_COLORS = (BLUE, VERMILION, GREEN, ORANGE, PURPLE, SKY)


def series_figure(frame, columns, *, title, y_title, current=None, x_title=ITERATION_AXIS,
                  uirevision="series", log_y=False):
    """Per-iteration quantities of a run (``columns``: record column -> legend name).

    For what is not common to every algorithm: the objective an algorithm minimizes, CqBoost's
    edge and dual variable, the concentration of example weights.  Missing columns are skipped.
    """
    it = _iterations(frame)
    fig = _figure()
    shown = [(c, n) for c, n in columns.items() if frame is not None and c in frame]
    for (col, name), color in zip(shown, _SERIES_COLORS * 2):
        fig.add_trace(_line(it, _column(frame, col), name, color))
    values = np.concatenate([_column(frame, c) for c, _ in shown]) if shown else np.empty(0)
    values = values[np.isfinite(values)]
    if current is not None and values.size:
        fig.add_trace(_current_marker(current, float(values.min()), float(values.max())))
    _style(fig, title=title, x_title=x_title, y_title=y_title, uirevision=uirevision,
           hovermode="x unified")
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def placeholder_figure(title, why):
    """An empty figure that says why the chart has nothing to show yet."""
    fig = _figure()
    fig.add_annotation(text=why, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                       font=dict(size=14, color=GREY))
    _style(fig, title=title, x_title=ITERATION_AXIS, y_title="–", uirevision=title)
    return fig


def mincq_on_voters_figure(frame, mincq, current=None, uirevision="mincq_on_voters"):
    """CB-Boost's C-bound beside the optimal C-bound on the voters it has chosen so far
    (MinCq(CB-Boost), the CB-Boost paper's Fig. 5), with both votes' test errors.

    ``mincq`` has one row per iteration: ``iteration``, ``c_bound`` and ``test_error`` (or
    ``train_error``) of the optimal vote on the same voters.
    """
    it = _iterations(frame)
    fig = _figure()
    fig.add_trace(_line(it, _column(frame, "c_bound"), "CB-Boost: empirical C-bound", BLUE,
                        width=2.5))
    fig.add_trace(_line(_iterations(mincq), _column(mincq, "c_bound"),
                        "MinCq(CB-Boost): optimal C-bound on the same voters", GREEN, dash="dash"))
    err = "test_error" if np.isfinite(_column(frame, "test_error")).any() else "train_error"
    which = "test" if err == "test_error" else "train"
    fig.add_trace(_line(it, _column(frame, err), f"CB-Boost: {which} error", VERMILION, width=1.5,
                        dash="dot"))
    fig.add_trace(_line(_iterations(mincq), _column(mincq, err),
                        f"MinCq(CB-Boost): {which} error", ORANGE, width=1.5, dash="dashdot"))
    if current is not None:
        fig.add_trace(_current_marker(current, 0.0, 1.02))
    _style(fig, title="CB-Boost vs. the best vote on its voters<br><sup>MinCq(CB-Boost): the "
           "lowest C-bound any weights on the voters chosen so far reach (CB-Boost paper, "
           "Fig. 5)</sup>", x_title=ITERATION_AXIS, y_title="C-bound / 0-1 error (fraction)",
           uirevision=uirevision, hovermode="x unified", legend_width=800)
    fig.update_yaxes(range=[0.0, 1.02])
    return fig


# ---------------------------------------------------------------- margins and input plane

def margin_figure(margins, mu1, mu2, uirevision="margins", bins=40):
    """Histogram of the normalized margins with lines at ``mu1``, ``sqrt(mu2)`` and 0.

    Bars in the shaded half (margin < 0) are examples the majority vote gets wrong.  The C-bound
    ``1 - mu1**2 / mu2`` is small when the margins are large on average (mu1) and
    concentrated (mu2 close to mu1**2).
    """
    M = np.asarray(margins, dtype=float).ravel()
    M = M[np.isfinite(M)]
    counts, edges = np.histogram(M, bins=bins, range=(-1.0, 1.0))
    centers = (edges[:-1] + edges[1:]) / 2
    share = counts / max(M.size, 1)
    fig = _figure()
    fig.add_trace(go.Bar(
        x=centers, y=counts, width=edges[1] - edges[0], name="margins",
        customdata=np.column_stack([edges[:-1], edges[1:], share]),
        marker=dict(color=BLUE, opacity=0.75, line=dict(color="white", width=0.5)),
        hovertemplate=("margin in [%{customdata[0]:.4g}, %{customdata[1]:.4g}]<br>"
                       "examples = %{y}<br>share = %{customdata[2]:.4g}<extra></extra>")))
    top = float(counts.max()) * 1.1 if counts.size and counts.max() > 0 else 1.0
    root = math.sqrt(mu2) if mu2 is not None and mu2 >= 0 else float("nan")
    for x, name, color, dash in ((0.0, "margin 0 (decision boundary)", GREY, "solid"),
                                 (mu1, "μ₁ (mean margin)", BLACK, "dash"),
                                 (root, "√μ₂", GREEN, "dot")):
        fig.add_trace(go.Scatter(
            x=[x, x], y=[0.0, top], mode="lines", name=name, line=dict(color=color, width=2, dash=dash),
            hovertemplate=f"{name}<br>margin = %{{x:.4g}}<extra></extra>"))
    c = 1.0 - mu1 ** 2 / mu2 if mu1 is not None and mu2 and mu1 > 0 and mu2 > 0 else 1.0
    _style(fig, title=f"Training margins<br><sup>μ₁ = {_g(mu1)}, √μ₂ = {_g(root)}, C-bound = {_g(c)}</sup>",
           x_title="margin y·F(x)/Σa (−1: all voters wrong, +1: all right)",
           y_title="examples (count)", uirevision=uirevision)
    fig.update_xaxes(range=[-1.0, 1.0], zeroline=False)
    fig.update_yaxes(range=[0.0, top])
    fig.add_vrect(x0=-1.0, x1=0.0, fillcolor=VERMILION, opacity=0.08, layer="below",
                  line_width=0, annotation_text="vote wrong", annotation_position="top left",
                  annotation_font=dict(color=VERMILION, size=11))
    fig.update_layout(bargap=0.0)
    return fig


def _grid_axis(a, axis):
    a = np.asarray(a, dtype=float)
    if a.ndim == 1:
        return a
    return a[0, :] if axis == 0 else a[:, 0]


def decision_figure(xx, yy, Z, X_train, y_train, X_test=None, y_test=None, stump=None,
                    feature_names=("x0", "x1"), uirevision="regions", subtitle=None,
                    height=420):
    """Normalized vote on a grid of the input plane, the data points and the newest voter.

    Colors: red where the vote says +1, blue where it says -1, white on the boundary;
    points of label +1 are red circles, label -1 blue squares (test points open).

    ``xx`` / ``yy`` are the grid coordinates (1-D axes or 2-D meshgrid arrays), ``Z`` the
    vote ``F(x)/sum(a)`` on the grid (rows follow ``yy``).  ``stump`` is None or
    ``{"feature": 0 or 1, "threshold": t, "label": str}``, or a list of such dicts each with an
    optional ``"name"`` (legend text) and ``"color"``.
    """
    gx, gy = _grid_axis(xx, 0), _grid_axis(yy, 1)
    Z = np.asarray(Z, dtype=float)
    if Z.size != gx.size * gy.size or (Z.ndim == 2 and Z.shape != (gy.size, gx.size)):
        raise ValueError(f"Z has shape {Z.shape}; the grid needs ({gy.size}, {gx.size}) "
                         "(rows follow yy, columns xx)")
    Z = Z.reshape(gy.size, gx.size)
    fx, fy = (str(n) for n in feature_names)
    fig = _figure()
    fig.add_trace(go.Heatmap(
        x=gx, y=gy, z=Z, name="vote value", zmin=-1.0, zmax=1.0, zmid=0.0,
        colorscale=VOTE_SCALE, opacity=0.8, zsmooth=False,
        colorbar=dict(title=dict(text="vote", side="top"), thickness=12, len=0.8,
                      tickvals=[-1, -0.5, 0, 0.5, 1]),
        hovertemplate=f"{fx} = %{{x:.4g}}<br>{fy} = %{{y:.4g}}<br>vote = %{{z:.4g}}<extra></extra>"))
    if np.nanmin(Z) < 0 < np.nanmax(Z):
        fig.add_trace(go.Contour(
            x=gx, y=gy, z=Z, name="decision boundary (vote = 0)", showscale=False,
            showlegend=True, contours=dict(start=0, end=0, size=1, coloring="none"),
            line=dict(color=BLACK, width=2), hoverinfo="skip",
            hovertemplate="decision boundary<extra></extra>"))

    def points(X, y, sign, name, symbol, filled):
        X = np.asarray(X, dtype=float)
        sel = np.asarray(y) == sign
        color = POS if sign > 0 else NEG
        fig.add_trace(go.Scatter(
            x=X[sel, 0], y=X[sel, 1], mode="markers", name=name,
            marker=dict(symbol=symbol if filled else f"{symbol}-open", size=8 if filled else 9,
                        color=color, line=dict(color="white" if filled else color,
                                               width=1 if filled else 2)),
            hovertemplate=f"{name}<br>{fx} = %{{x:.4g}}<br>{fy} = %{{y:.4g}}<extra></extra>"))

    points(X_train, y_train, 1, "train +1", "circle", True)
    points(X_train, y_train, -1, "train -1", "square", True)
    if X_test is not None and y_test is not None:
        points(X_test, y_test, 1, "test +1", "circle", False)
        points(X_test, y_test, -1, "test -1", "square", False)
    for s in ([] if stump is None else [stump] if isinstance(stump, Mapping) else stump):
        feature, t = int(s["feature"]), float(s["threshold"])
        name = s.get("name", "new voter: {label}").format(
            label=s.get("label", f"{(fx, fy)[feature]} > {t:.4g}"))
        if feature == 0:
            x, y = [t, t], [gy.min(), gy.max()]
        else:
            x, y = [gx.min(), gx.max()], [t, t]
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", name=name,
            line=dict(color=s.get("color", YELLOW), width=4, dash="dash"),
            hovertemplate=f"{name}<br>threshold = {t:.4g}<extra></extra>"))
    subtitle = "color: normalized vote Σ Qₖ hₖ(x)" if subtitle is None else subtitle
    _style(fig, title=f"Majority vote on the input plane<br><sup>{subtitle}</sup>",
           x_title=fx, y_title=fy, uirevision=uirevision, height=height)
    fig.update_xaxes(range=[gx.min(), gx.max()], showgrid=False, zeroline=False,
                     constrain="domain")
    fig.update_yaxes(range=[gy.min(), gy.max()], showgrid=False, zeroline=False,
                     scaleanchor="x", scaleratio=1, constrain="domain")
    return fig


def projection_figure(X_train, y_train, X_test=None, y_test=None, uirevision="projection"):
    """The examples on their first two principal axes (fitted on the training part).

    For data with more than two features: what the data look like before any vote.  The
    axis titles give the share of the training variance each axis carries.
    """
    X_train = np.asarray(X_train, dtype=float)
    mean = X_train.mean(axis=0)
    scale = X_train.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X_train - mean) / scale
    _, sv, vt = np.linalg.svd(Z, full_matrices=False)
    k = min(2, vt.shape[0])
    axes = vt[:k].T if k == 2 else np.column_stack([vt[0], np.zeros(vt.shape[1])])
    share = sv ** 2 / max(float(np.sum(sv ** 2)), 1e-300)
    fig = _figure()
    for X, y, part, filled in ((X_train, y_train, "train", True), (X_test, y_test, "test", False)):
        if X is None or y is None:
            continue
        P = ((np.asarray(X, dtype=float) - mean) / scale) @ axes
        for sign, symbol in ((1, "circle"), (-1, "square")):
            sel = np.asarray(y) == sign
            color = POS if sign > 0 else NEG
            name = f"{part} {'+1' if sign > 0 else '-1'}"
            fig.add_trace(go.Scatter(
                x=P[sel, 0], y=P[sel, 1], mode="markers", name=name,
                marker=dict(symbol=symbol if filled else f"{symbol}-open", size=7,
                            color=color, opacity=0.8,
                            line=dict(color="white" if filled else color, width=1)),
                hovertemplate=f"{name}<br>PC1 = %{{x:.4g}}<br>PC2 = %{{y:.4g}}<extra></extra>"))
    pc2 = share[1] if share.size > 1 else 0.0
    _style(fig, title="The data on their first two principal axes<br><sup>standardized "
           "features, axes fitted on the training part</sup>",
           x_title=f"PC1 ({share[0]:.0%} of the variance)", y_title=f"PC2 ({pc2:.0%} of the variance)",
           uirevision=uirevision, height=420)
    return fig


# ---------------------------------------------------------------- one step of CB-Boost

def direction_curve_figure(curve, uirevision="direction"):
    """C-bound of ``F + alpha h`` along the weight of one voter (Theorem 3's picture)."""
    label = _text(curve.label, f"voter {curve.index}")
    alphas = np.asarray(curve.alphas, dtype=float)
    fig = _figure()
    fig.add_trace(go.Scatter(
        x=alphas, y=np.asarray(curve.c_values, dtype=float), mode="lines",
        name="C-bound along α", line=dict(color=BLUE, width=2.5),
        hovertemplate="α = %{x:.4g}<br>C-bound = %{y:.4g}<extra></extra>"))
    span = [float(alphas.min()), float(alphas.max())] if alphas.size else [0.0, 1.0]
    fig.add_trace(go.Scatter(
        x=span, y=[curve.c_now, curve.c_now], mode="lines", name="C-bound before the step",
        line=dict(color=GREY, width=1.5, dash="dot"),
        hovertemplate="C-bound before the step = %{y:.4g}<extra></extra>"))
    title = f"Theorem 3: C-bound along one weight<br><sup>new voter {label}"
    if curve.alpha_star is not None and curve.c_star is not None:
        fig.add_trace(go.Scatter(
            x=[curve.alpha_star], y=[curve.c_star], mode="markers",
            name="closed-form optimum (Theorem 3)",
            marker=dict(symbol="star", size=16, color=VERMILION, line=dict(color=BLACK, width=1)),
            hovertemplate=("closed-form optimum<br>α* = %{x:.4g}<br>C-bound = %{y:.4g}<br>"
                           f"decrease = {curve.c_now - curve.c_star:.4g}<extra></extra>")))
        title += f", α* = {_g(curve.alpha_star)}"
    else:
        title += ": no improving weight"
    _style(fig, title=title + "</sup>", x_title="weight α of the new voter (unnormalized vote)",
           y_title="empirical C-bound", uirevision=uirevision)
    return fig


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
    fig = _figure()
    for mask, y, name, why, color in (
            (~valid & ~lowers & finite, dec, "cannot lower the C-bound",
             "no positive weight on this voter lowers the C-bound", "rgba(127,127,127,0.25)"),
            (~valid & lowers & finite, best, "lowers it, but outside the rule",
             f"would lower the C-bound by %{{y:.4g}}, but the rule only takes {rule}",
             "rgba(127,127,127,0.6)")):
        idx = np.flatnonzero(mask)
        if idx.size > max_invalid:
            idx = _subsample(idx, np.empty(0, int), max_invalid)
        if not idx.size:
            continue
        fig.add_trace(go.Scattergl(
            x=grad[idx], y=y[idx], mode="markers", name=name,
            customdata=_labels_of(labels, idx),
            marker=dict(size=5, color="rgba(0,0,0,0)", line=dict(color=color, width=1))
            if "outside" in name else dict(size=4, color=color),
            hovertemplate=(f"%{{customdata}}<br>gradient score = %{{x:.4g}}<br>{why}"
                           "<extra></extra>")))
    fig.add_trace(go.Scattergl(
        x=grad[good], y=dec[good], mode="markers", name="candidate voters",
        customdata=np.column_stack([_labels_of(labels, good), alpha[good]]) if good.size
        else np.empty((0, 2)),
        marker=dict(size=6, color=SKY, opacity=0.75, line=dict(color=BLUE, width=0.5)),
        hovertemplate=("%{customdata[0]}<br>gradient score = %{x:.4g}<br>"
                       "C-bound decrease = %{y:.4g}<br>α* = %{customdata[1]:.4g}"
                       "<extra>candidate</extra>")))

    def pick(k, name, symbol, color, size):
        fig.add_trace(go.Scattergl(
            x=[grad[k]], y=[dec[k]], mode="markers", name=name,
            customdata=[[name, alpha[k]]],
            marker=dict(symbol=symbol, size=size, color=color, line=dict(color=BLACK, width=1.5)),
            hovertemplate=("%{customdata[0]}<br>gradient score = %{x:.4g}<br>"
                           "C-bound decrease = %{y:.4g}<br>α* = %{customdata[1]:.4g}"
                           "<extra></extra>")))

    name = _labeler(labels)
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
    _style(fig, title=f"Which voter next?<br><sup>{shown}</sup>",
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


def lockstep_figure(table, uirevision="lockstep"):
    """C-bound of the exhaustive (CB-Boost) and gradient (GB-CB-Boost) rules run side by side."""
    it = _iterations(table)
    ex = _column(table, "exhaustive_c_bound")
    gr = _column(table, "gradient_c_bound")
    agree = (table["agree"].fillna(False).astype(bool).to_numpy() if table is not None
             and "agree" in table else np.zeros(it.size, bool))

    def labels(col):
        if table is None or col not in table:
            return ["–"] * it.size
        return [_text(v, "– (stopped)") for v in table[col].tolist()]

    ex_lab, gr_lab = labels("exhaustive_label"), labels("gradient_label")
    fig = _figure()
    fig.add_trace(go.Scatter(
        x=it, y=ex, mode="lines+markers", name="exhaustive (CB-Boost)",
        customdata=np.array(ex_lab, dtype=object), line=dict(color=BLUE, width=2.5),
        marker=dict(size=5),
        hovertemplate="exhaustive: C-bound = %{y:.4g}, added %{customdata}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=it, y=gr, mode="lines+markers", name="gradient (GB-CB-Boost)",
        customdata=np.array(gr_lab, dtype=object), line=dict(color=ORANGE, width=2, dash="dash"),
        marker=dict(size=5),
        hovertemplate="gradient: C-bound = %{y:.4g}, added %{customdata}<extra></extra>"))
    off = np.flatnonzero(~agree)
    both = np.concatenate([ex, gr])
    low = float(np.nanmin(both)) if np.isfinite(both).any() else 0.0
    high = float(np.nanmax(both)) if np.isfinite(both).any() else 1.0
    rug = low - 0.06 * max(high - low, 1e-3)  # a tick row under the curves, not on them
    for extra_col, name, color in (("exhaustive_all_c_bound", "exhaustive, eligible='all'", GREEN),
                                   ("gradient_all_c_bound", "gradient, eligible='all'", PURPLE)):
        if table is not None and extra_col in table:
            fig.add_trace(_line(it, _column(table, extra_col), name, color, width=1.5,
                                dash="dot"))
    fig.add_trace(go.Scatter(
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
    _style(fig, title=f"Exhaustive vs. gradient rule<br><sup>{rate}</sup>", x_title=ITERATION_AXIS,
           y_title="empirical C-bound", uirevision=uirevision, hovermode="x unified")
    return fig


# ---------------------------------------------------------------- tables

def weights_table(record, describe, added=None):
    """The vote of ``record`` as a table, one row per voter, sorted by iteration added.

    ``describe`` names voter k (callable, sequence or None).  ``added`` maps voter index
    to the iteration it entered the vote: a dict, or the run's history (a sequence of
    records, the first record adding each voter counts).  Columns: "iteration added",
    "voter", "alpha" (unnormalized weight), "share of the vote Q" (alpha / sum alpha).
    """
    support = np.asarray(record.support, dtype=int)
    weights = np.asarray(record.weights, dtype=float)
    if added is None:
        order = {}
    elif isinstance(added, Mapping):
        order = {int(k): int(v) for k, v in added.items()}
    else:
        order = {}
        for r in added:
            if r.index is not None and int(r.index) not in order:
                order[int(r.index)] = int(r.iteration)
    total = weights.sum()
    table = pd.DataFrame({
        "iteration added": pd.array([order.get(int(k)) for k in support], dtype="Int64"),
        "voter": [str(v) for v in _labels_of(describe, support)] if support.size else [],
        "alpha": weights,
        "share of the vote Q": weights / total if total > 0 else np.zeros_like(weights),
    })
    table["_index"] = support
    table = table.sort_values(["iteration added", "_index"], kind="stable", na_position="last")
    return table.drop(columns="_index").reset_index(drop=True)
