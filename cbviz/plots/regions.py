"""Margins and the input plane: margin histogram, decision regions, PCA projection."""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ._figures import Bar, Heatmap, Scatter, Scattergl, new_figure, styled
from ._values import literal_text, title_number
from .style import (
    BLACK,
    BLUE,
    GREEN,
    GREY,
    NEG,
    POS,
    VERMILION,
    VOTE_SCALE,
    YELLOW,
    colorbar,
)

# the dashes of the voters' lines on the input plane, in the order given (the decision
# boundary is solid): two voters' lines never differ by color alone
_STUMP_DASHES = ("dash", "dot", "dashdot", "longdash", "longdashdot")

MAX_POINTS = 2000   # drawn per part (training, test): a browser draws this many at once
WEBGL_FROM = 1000   # parts larger than this are drawn with WebGL (go.Scattergl)


def sample_points(X, y, limit=MAX_POINTS, seed=0):
    """``(X, y, total)``: at most ``limit`` rows of ``X``, ``y``, a fixed random sample
    (the same for the same data), and how many there were."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    total = len(y)
    if total <= limit:
        return X, y, total
    idx = np.sort(np.random.default_rng(seed).choice(total, size=limit, replace=False))
    return X[idx], y[idx], total


def sample_note(counts):
    """The subtitle's words for sampled parts (``part -> (shown, total)``), or ""."""
    parts = [f"{shown:,} of {total:,} {part} points" for part, (shown, total) in counts.items()
             if shown < total]
    return ("showing " + " and ".join(parts) + " (a fixed random sample)") if parts else ""


def _scatter(n):
    return Scattergl if n > WEBGL_FROM else Scatter


# ---------------------------------------------------------------- margins and input plane

def margin_figure(margins, mu1, mu2, uirevision="margins", bins=40):
    """Histogram of the normalized margins with lines at ``mu1``, ``sqrt(mu2)`` and 0.

    Bars in the shaded half (margin < 0) are examples the majority vote gets wrong.  The C-bound
    ``1 - mu1**2 / mu2`` is small when the margins are large on average (mu1) and
    concentrated (mu2 close to mu1**2).

    Examples
    --------
    >>> from cbviz.data import make_toy
    >>> from cbviz.estimators import CBBoostClassifier
    >>> ds = make_toy("moons", n_samples=200, seed=0)
    >>> clf = CBBoostClassifier(max_iter=10).fit(ds.X, ds.y)
    >>> from cbviz import bounds
    >>> H = clf.pool_.transform(ds.X)
    >>> a = clf.history_[-1].weights                     # weights of the last vote
    >>> M = bounds.margins(H[:, clf.history_[-1].support] @ a, ds.y, total=a.sum())
    >>> mu1, mu2 = bounds.moments(M)
    >>> fig = margin_figure(M, mu1, mu2)
    >>> fig.show()  # doctest: +SKIP
    """
    M = np.asarray(margins, dtype=float).ravel()
    M = M[np.isfinite(M)]
    counts, edges = np.histogram(M, bins=bins, range=(-1.0, 1.0))
    centers = (edges[:-1] + edges[1:]) / 2
    share = counts / max(M.size, 1)
    fig = new_figure()
    fig.add_trace(Bar(
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
        fig.add_trace(Scatter(
            x=[x, x], y=[0.0, top], mode="lines", name=name, line=dict(color=color, width=2, dash=dash),
            hovertemplate=f"{name}<br>margin = %{{x:.4g}}<extra></extra>"))
    c = 1.0 - mu1 ** 2 / mu2 if mu1 is not None and mu2 and mu1 > 0 and mu2 > 0 else 1.0
    fig = styled(fig, title=f"Training margins<br><sup>μ₁ = {title_number(mu1)}, "
                 f"√μ₂ = {title_number(root)}, C-bound = {title_number(c)}</sup>",
                 x_title="margin y·F(x)/Σa (−1: all voters wrong, +1: all right)",
                 y_title="examples (count)", uirevision=uirevision, bargap=0.0,
                 xaxis=dict(range=[-1.0, 1.0], zeroline=False), yaxis=dict(range=[0.0, top]))
    fig.add_vrect(x0=-1.0, x1=0.0, fillcolor=VERMILION, opacity=0.08, layer="below",
                  line_width=0, annotation_text="vote wrong", annotation_position="top left",
                  annotation_font=dict(color=VERMILION, size=11))
    return fig


def _boundary(xe, ye, Z):
    """The sides shared by neighbouring cells whose votes differ in sign: ``(x, y)`` of one
    polyline with NaN gaps between the segments."""
    S = np.sign(Z)
    i, j = np.nonzero(S[:, :-1] != S[:, 1:])   # side at x = xe[j + 1] between rows i and i + 1
    vertical = (np.column_stack([xe[j + 1], xe[j + 1]]), np.column_stack([ye[i], ye[i + 1]]))
    i, j = np.nonzero(S[:-1, :] != S[1:, :])   # side at y = ye[i + 1] between columns j, j + 1
    horizontal = (np.column_stack([xe[j], xe[j + 1]]), np.column_stack([ye[i + 1], ye[i + 1]]))
    x, y = (np.vstack([v, h]) for v, h in zip(vertical, horizontal))
    gap = np.full((x.shape[0], 1), np.nan)
    return np.hstack([x, gap]).ravel(), np.hstack([y, gap]).ravel()


def decision_figure(xe, ye, Z, X_train, y_train, X_test=None, y_test=None, stump=None,
                    feature_names=("x0", "x1"), uirevision="regions", subtitle=None,
                    height=420, title="Majority vote on the input plane", show_scale=True,
                    spec=False):
    """Normalized vote on cells of the input plane, the data points and the newest voter.

    Colors: red where the vote says +1, blue where it says -1, white on the boundary, with
    their legend beside the plot (a colorbar titled "normalized vote") or, ``show_scale=False``,
    in the subtitle's words; points of label +1 are red circles, label -1 blue squares (test
    points open).

    ``xe`` / ``ye`` are the cell edges on each axis, ``Z[i, j]`` the vote ``F(x)/sum(a)`` on
    the cell ``[xe[j], xe[j+1]] x [ye[i], ye[i+1]]`` (as
    :meth:`cbviz.problem.Problem.vote_grid` gives them).  The decision boundary is drawn
    along the cell sides where the vote changes sign.  ``stump`` is None or
    ``{"feature": 0 or 1, "threshold": t, "label": str}``, or a list of such dicts each with an
    optional ``"name"`` (legend text), ``"color"`` and ``"dash"`` (by default the i-th of
    ``"dash"``, ``"dot"``, ``"dashdot"``, ...: two voters differ by more than color); a
    constant voter's infinite threshold draws no line.  A tree: ``{"segments": [(feature, threshold, lo, hi), ...], "label": str}``
    (:meth:`cbviz.voters.TreePool.segments`), its splits drawn within their cells.
    ``spec=True``: the figure as a dict, not a ``go.Figure`` (what the app's live charts
    draw; see :func:`._figures.styled`).

    Examples
    --------
    >>> from cbviz.algorithms import CBBoost
    >>> from cbviz.problem import Settings, build_problem
    >>> problem = build_problem(Settings(source="toy", toy="moons"))
    >>> split = problem.split
    >>> run = CBBoost(max_iter=10).start(problem.H_train, split.y_train).run()
    >>> xe, ye, Z = problem.vote_grid(run.weights_at())
    >>> fig = decision_figure(xe, ye, Z, split.X_train, split.y_train)
    >>> fig.show()  # doctest: +SKIP
    """
    gx, gy = np.asarray(xe, dtype=float).ravel(), np.asarray(ye, dtype=float).ravel()
    Z = np.asarray(Z, dtype=float)
    if Z.shape != (gy.size - 1, gx.size - 1):
        raise ValueError(f"Z has shape {Z.shape}; cells between these edges need "
                         f"({gy.size - 1}, {gx.size - 1}) (rows follow ye, columns xe)")
    fx, fy = (literal_text(n) for n in feature_names)
    fig = new_figure()
    fig.add_trace(Heatmap(
        x=gx, y=gy, z=Z, name="vote value", zmin=-1.0, zmax=1.0, zmid=0.0,
        colorscale=VOTE_SCALE, opacity=0.8, zsmooth=False, showscale=show_scale,
        # hidden, the scale keeps only its name: what the chart's text alternative calls the
        # colors (cbviz.plots.figure_summary), as short as a Step's payload needs
        colorbar=colorbar("normalized vote", tickvals=[-1, -0.5, 0, 0.5, 1])
        if show_scale else dict(title=dict(text="vote")),
        hovertemplate=f"{fx} = %{{x:.4g}}<br>{fy} = %{{y:.4g}}<br>vote = %{{z:.4g}}<extra></extra>"))
    bx, by = _boundary(gx, gy, Z)
    if bx.size:
        fig.add_trace(Scatter(
            x=bx, y=by, mode="lines", name="decision boundary",
            line=dict(color=BLACK, width=2),
            hovertemplate="decision boundary: the vote changes sign here<extra></extra>"))

    counts = {}

    def points(X, y, sign, name, symbol, filled):
        part = name.split()[0]
        X, y, total = sample_points(X, y, seed=0 if filled else 1)
        counts[part] = (len(y), total)
        sel = y == sign
        color = POS if sign > 0 else NEG
        fig.add_trace(_scatter(len(y))(
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
    stumps = [] if stump is None else [stump] if isinstance(stump, Mapping) else list(stump)
    for i, s in enumerate(stumps):
        cuts = s.get("segments") or [(s["feature"], s["threshold"], None, None)]
        name = s.get("name", "new voter: {label}").format(
            label=literal_text(s["label"]) if "label" in s else
            f"{(fx, fy)[int(cuts[0][0])]} > {float(cuts[0][1]):.4g}")
        x, y = [], []
        for feature, t, lo, hi in cuts:   # segments apart: NaN between them
            if not np.isfinite(t):  # a constant voter (threshold -inf): no line
                continue
            grid = (gx, gy)[1 - int(feature)]
            span = [grid.min() if lo is None else lo, grid.max() if hi is None else hi]
            xs, ys = ([t, t], span) if int(feature) == 0 else (span, [t, t])
            x += [*xs, np.nan]
            y += [*ys, np.nan]
        fig.add_trace(Scatter(
            x=np.array(x[:-1]), y=np.array(y[:-1]), mode="lines", name=name,
            line=dict(color=s.get("color", YELLOW), width=4,
                      dash=s.get("dash", _STUMP_DASHES[i % len(_STUMP_DASHES)])),
            hovertemplate=f"{name}<extra></extra>"))   # the name says the threshold
    if subtitle is None:
        subtitle = "color: normalized vote Σ Qₖ hₖ(x)" + (
            "" if show_scale else " from −1 (deep blue) through 0 (white) to +1 (deep red)")
    elif not show_scale:   # the color scale's legend in words, when no colorbar shows it
        subtitle += "<br>the vote: red +1, white 0, blue −1"   # a line of its own: narrow
    note = sample_note(counts)
    subtitle = subtitle + (f"<br>{note}" if note else "")
    return styled(fig, title=f"{title}<br><sup>{subtitle}</sup>", x_title=fx, y_title=fy,
                  uirevision=uirevision, height=height, spec=spec,
                  xaxis=dict(range=[gx[0], gx[-1]], showgrid=False, zeroline=False,
                             constrain="domain"),
                  yaxis=dict(range=[gy[0], gy[-1]], showgrid=False, zeroline=False,
                             scaleanchor="x", scaleratio=1, constrain="domain"))


def projection_figure(X_train, y_train, X_test=None, y_test=None, uirevision="projection"):
    """The examples on their first two principal axes (fitted on the training part).

    For data with more than two features: what the data look like before any vote.  The
    axis titles give the share of the training variance each axis carries.

    Examples
    --------
    >>> from cbviz.data import load_dataset
    >>> ds = load_dataset("breast_cancer")
    >>> fig = projection_figure(ds.X, ds.y)
    >>> fig.show()  # doctest: +SKIP
    """
    X_train = np.asarray(X_train, dtype=float)
    mean = X_train.mean(axis=0)
    scale = X_train.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X_train - mean) / scale
    # principal axes from the d x d scatter matrix: O(m d^2), where an SVD of Z costs far more
    eigval, eigvec = np.linalg.eigh(Z.T @ Z)
    order = np.argsort(eigval)[::-1]
    eigval, vt = np.clip(eigval[order], 0.0, None), eigvec[:, order].T
    k = min(2, vt.shape[0])
    axes = vt[:k].T if k == 2 else np.column_stack([vt[0], np.zeros(vt.shape[1])])
    share = eigval / max(float(np.sum(eigval)), 1e-300)
    fig = new_figure()
    counts = {}
    for X, y, part, filled in ((X_train, y_train, "train", True), (X_test, y_test, "test", False)):
        if X is None or y is None:
            continue
        X, y, total = sample_points(X, y, seed=0 if filled else 1)
        counts[part] = (len(y), total)
        P = ((X - mean) / scale) @ axes
        for sign, symbol in ((1, "circle"), (-1, "square")):
            sel = np.asarray(y) == sign
            color = POS if sign > 0 else NEG
            name = f"{part} {'+1' if sign > 0 else '-1'}"
            fig.add_trace(_scatter(len(y))(
                x=P[sel, 0], y=P[sel, 1], mode="markers", name=name,
                marker=dict(symbol=symbol if filled else f"{symbol}-open", size=7,
                            color=color, opacity=0.8,
                            line=dict(color="white" if filled else color, width=1)),
                hovertemplate=f"{name}<br>PC1 = %{{x:.4g}}<br>PC2 = %{{y:.4g}}<extra></extra>"))
    pc2 = share[1] if share.size > 1 else 0.0
    note = sample_note(counts)
    fig = styled(fig, title="The data on their first two principal axes<br><sup>standardized "
                 "features, axes fitted on the training part" + (f"; {note}" if note else "")
                 + "</sup>",
                 x_title=f"PC1 ({share[0]:.0%} of the variance)", y_title=f"PC2 ({pc2:.0%} of the variance)",
                 uirevision=uirevision, height=420)
    return fig
