"""Figures of the C-bound: its (r, d) plane, a three-voter vote, PAC-Bayes bounds against m.

Pure builders over what :mod:`cbviz.cbound_plane` (a :class:`~cbviz.cbound_plane.CBoundGrid`,
slices, trajectories), :mod:`cbviz.toy_vote` (a :class:`~cbviz.toy_vote.ToySummary`) and
:mod:`cbviz.sample_size` (a table of bounds against m) return; the C-bound explorer page draws
them.
"""
from __future__ import annotations

import numpy as np

from ..bounds import PAC_BOUNDS
from ..cbound_plane import AXES, max_disagreement
from ._figures import MAX_MARKERS, Bar, Contour, Heatmap, Scatter, new_figure, styled
from ._values import title_number
from .style import (
    BLACK,
    BLUE,
    DASHES,
    FULL_WIDTH,
    GREY,
    ORANGE,
    PURPLE,
    SKY,
    SPARSE_DOT,
    SYMBOLS,
    TEXT,
    VERMILION,
    VIRIDIS,
    YELLOW,
    bound_look,
    colorbar,
    fixed,
)

# the runs drawn on the C-bound map: a color, a dash and a marker symbol each (the map's own
# lines are solid black and dashed vermilion, without markers)
_TRAJECTORY_LOOKS = ((BLACK, "solid", "circle"), (PURPLE, "dot", "square"),
                     (ORANGE, "dashdot", "diamond"), (SKY, "longdash", "triangle-up"))
_INVALID_FILL = "rgba(127,127,127,0.35)"
# contour labels drawn over the whole color scale: white with a dark outline, so each reads
# at 4.5:1 or more against the outline whatever the color beneath (WCAG 2.1, 1.4.3)
_HALO = ", ".join(f"{dx}px {dy}px 1px {TEXT}" for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                  if dx or dy)


def _symbols(axes):
    """Short names of the two coordinates, for hover texts."""
    return ("r", "d") if axes == "risks" else ("μ₁", "μ₂")


def _boundary(axes, n=201):
    """The curve mu2 = mu1**2 (d = 2r(1 - r)) in the plane's coordinates, from x = 0 to its end."""
    if axes == "risks":
        x = np.linspace(0.0, 0.5, n)
        return x, max_disagreement(x)
    x = np.linspace(0.0, 1.0, n)
    return x, x * x


def c_bound_map_figure(grid, point=None, trajectories=(), uirevision="cbound_map"):
    """The C-bound over the plane of ``grid``, the unreachable part shaded, the line where it
    equals 2r, a chosen ``point`` (x, y) and run ``trajectories`` (name -> trajectory frame).

    A trajectory frame has the columns of :func:`cbviz.cbound_plane.trajectory`; each iteration is
    drawn at its (r, d) or (mu1, mu2).

    Examples
    --------
    >>> from cbviz.cbound_plane import c_bound_grid, trajectory
    >>> from cbviz.estimators import CBBoostClassifier
    >>> from cbviz.data import make_toy
    >>> ds = make_toy("moons", n_samples=200, seed=0)
    >>> clf = CBBoostClassifier(max_iter=10).fit(ds.X, ds.y)
    >>> fig = c_bound_map_figure(c_bound_grid("risks"), point=(0.2, 0.3),
    ...                          trajectories={"CB-Boost": trajectory(clf.history_)})
    >>> fig.show()  # doctest: +SKIP
    """
    axes = grid.axes
    sx, sy = _symbols(axes)
    top = float(grid.x[-1])
    fig = new_figure()
    fig.add_trace(Contour(
        x=grid.x, y=grid.y, z=grid.c_bound, customdata=grid.first_order, name="C-bound",
        colorscale=VIRIDIS, zmin=0.0, zmax=1.0, showlegend=False,
        contours=dict(start=0.0, end=1.0, size=0.1, coloring="heatmap", showlabels=True,
                      labelfont=dict(size=10, color="white", shadow=_HALO)),
        line=dict(width=0.8, color="rgba(255,255,255,0.6)"),
        colorbar=colorbar("C-bound"),
        hovertemplate=(f"{sx} = %{{x:.3f}}<br>{sy} = %{{y:.3f}}<br>C-bound = %{{z:.3f}}"
                       "<br>first-order 2r = %{customdata:.3f}<extra></extra>")))
    bx, by = _boundary(axes)
    corner = ([top, 0.0], [top, top]) if axes == "risks" else ([top, 0.0], [0.0, 0.0])
    fig.add_trace(Scatter(
        x=np.concatenate([bx, corner[0]]), y=np.concatenate([by, corner[1]]), fill="toself",
        mode="none", fillcolor=_INVALID_FILL, fillpattern=dict(shape="/", fgcolor="white"),
        name="unreachable: μ₂ < μ₁², i.e. d > 2r(1 − r)", hoverinfo="skip"))
    fig.add_trace(Scatter(
        x=bx, y=by, mode="lines", name="C = 0: every margin equal (μ₂ = μ₁²)",
        line=dict(color=BLACK, width=2),
        hovertemplate=f"{sx} = %{{x:.3f}}, {sy} = %{{y:.3f}}: C = 0<extra></extra>"))
    line = ("d = r: C = 2r (C < 2r above the line)" if axes == "risks"
            else "μ₂ = μ₁ (d = r): C = 2r (C < 2r below the line)")
    fig.add_trace(Scatter(
        x=[0.0, top], y=[0.0, top], mode="lines", name=line,
        line=dict(color=VERMILION, width=2, dash="dash"),
        hovertemplate=f"{sx} = {sy} = %{{x:.3f}}: C = 2r<extra></extra>"))
    for i, (name, frame) in enumerate(dict(trajectories).items()):
        color, dash, symbol = _TRAJECTORY_LOOKS[i % len(_TRAJECTORY_LOOKS)]
        if i >= len(_TRAJECTORY_LOOKS):   # a fifth run and after: other dashes and symbols
            dash, symbol = DASHES[i % len(DASHES)], SYMBOLS[(i + 4) % len(SYMBOLS)]
        cols = ("gibbs_risk", "disagreement") if axes == "risks" else ("mu1", "mu2")
        x, y = frame[cols[0]].to_numpy(float), frame[cols[1]].to_numpy(float)
        sizes = np.full(x.size, 6.0)
        if sizes.size:
            sizes[-1] = 12.0
        fig.add_trace(Scatter(
            x=x, y=y, mode="lines+markers", name=name,
            customdata=np.column_stack([frame["iteration"].to_numpy(),
                                        frame["c_bound"].to_numpy(float)]),
            line=dict(color=color, width=1.5, dash=dash),
            marker=dict(size=sizes, color=color, symbol=symbol, line=dict(color="white", width=1)),
            hovertemplate=(f"{name}<br>iteration %{{customdata[0]}}: {sx} = %{{x:.4f}}, "
                           f"{sy} = %{{y:.4f}}<br>C-bound = %{{customdata[1]:.4f}}"
                           "<extra></extra>")))
    if point is not None:
        x, y = float(point[0]), float(point[1])
        fig.add_trace(Scatter(
            x=[x], y=[y], mode="markers", name=f"chosen point ({sx} = {x:.3f}, {sy} = {y:.3f})",
            marker=dict(symbol="star", size=18, color=YELLOW, line=dict(color=BLACK, width=1.5)),
            hovertemplate=f"chosen point<br>{sx} = %{{x:.3f}}, {sy} = %{{y:.3f}}<extra></extra>"))
    what = ("C = 1 − (1 − 2r)² / (1 − 2d) (Lacasse et al. 2006)" if axes == "risks"
            else "C = 1 − μ₁² / μ₂ (Lacasse et al. 2006)")
    fig = styled(fig, title=f"The C-bound over the plane<br><sup>{what}; contours every 0.1</sup>",
                 x_title=AXES[axes][0], y_title=AXES[axes][1], uirevision=f"{uirevision}_{axes}",
                 height=470, legend_width=FULL_WIDTH)
    fig.update_xaxes(range=[0.0, top])
    fig.update_yaxes(range=[0.0, top])
    return fig


def c_bound_slice_figure(line, axes, x, y=None, uirevision="cbound_slice"):
    """The C-bound and the first-order bound 2r along the valid part of the line at ``x`` (a
    frame from :func:`cbviz.cbound_plane.c_bound_slice`); ``y`` marks the chosen point on it.

    Examples
    --------
    >>> from cbviz.cbound_plane import c_bound_slice
    >>> fig = c_bound_slice_figure(c_bound_slice("risks", 0.3), "risks", 0.3, y=0.35)
    >>> fig.show()  # doctest: +SKIP
    """
    sx, sy = _symbols(axes)
    ys = line["y"].to_numpy(float)
    c = line["c_bound"].to_numpy(float)
    first = float(line["first_order"].iloc[0])
    fig = new_figure()
    fig.add_trace(Scatter(
        x=ys, y=c, mode="lines", name="C-bound", line=dict(color=BLUE, width=3),
        hovertemplate=f"{sy} = %{{x:.3f}}<br>C-bound = %{{y:.3f}}<extra></extra>"))
    fig.add_trace(Scatter(
        x=[ys[0], ys[-1]], y=[first, first], mode="lines",
        name=f"first-order bound 2r = {fixed(first)}",
        line=dict(color=VERMILION, width=2, dash="dash"),
        hovertemplate="2r = %{y:.3f}<extra></extra>"))
    cross = x  # d = r in (r, d), mu2 = mu1 in (mu1, mu2): the diagonal either way
    if ys[0] <= cross <= ys[-1]:
        fig.add_trace(Scatter(
            x=[cross], y=[first], mode="markers", name=f"{sy} where C = 2r",
            marker=dict(symbol="circle-open", size=12, color=BLACK, line=dict(width=2)),
            hovertemplate=f"{sy} = %{{x:.3f}}: C = 2r = %{{y:.3f}}<extra></extra>"))
    if y is not None and ys[0] <= y <= ys[-1]:
        cy = float(np.interp(y, ys, c))
        fig.add_trace(Scatter(
            x=[y], y=[cy], mode="markers", name="chosen point",
            marker=dict(symbol="star", size=16, color=YELLOW, line=dict(color=BLACK, width=1.5)),
            hovertemplate=f"{sy} = %{{x:.3f}}<br>C-bound = %{{y:.3f}}<extra></extra>"))
    better = "d > r" if axes == "risks" else "μ₂ < μ₁"
    fig = styled(fig, title=f"C-bound and 2r along {sx} = {x:.3f}<br><sup>the C-bound falls as the "
                 f"voters disagree more; it beats 2r where {better}</sup>",
                 x_title=AXES[axes][1] + (" (reachable part)" if axes == "risks" else ""),
                 y_title="bound on the majority vote's error", uirevision=f"{uirevision}_{axes}",
                 height=470, legend_width=380)
    fig.update_yaxes(range=[0.0, 1.02])
    return fig


_RIGHT_CELL = "#E8EEF4"  # a cell where the voter is right: background, the wrong ones marked ×


def toy_grid_figure(summary, uirevision="toy_grid"):
    """Which voter errs on which example, and the majority vote's row beneath them.

    Examples
    --------
    >>> from cbviz.toy_vote import toy_preset, toy_summary, toy_wrong
    >>> summary = toy_summary(toy_wrong(toy_preset("different", m=10), m=10))
    >>> fig = toy_grid_figure(summary)
    >>> fig.show()  # doctest: +SKIP
    """
    n, m = summary.wrong.shape
    z = np.vstack([summary.wrong, summary.majority_wrong[None, :]]).astype(float)
    rows = [f"voter {j + 1}" for j in range(n)] + ["majority vote"]
    cols = [str(i + 1) for i in range(m)]
    count = np.broadcast_to(summary.wrong_count, z.shape).astype(str)
    what = np.char.add(np.char.add(np.where(z > 0, "wrong; ", "right; "), count),
                       f" of {n} voters wrong on this example")
    fig = new_figure(Heatmap(
        x=cols, y=rows, z=z, zmin=0.0, zmax=1.0, showscale=False, xgap=3, ygap=3,
        colorscale=[[0.0, _RIGHT_CELL], [0.5, _RIGHT_CELL], [0.5, VERMILION], [1.0, VERMILION]],
        text=np.where(z > 0, "×", ""), texttemplate="%{text}",
        textfont=dict(color="white", size=18), customdata=what, showlegend=False,
        hovertemplate="example %{x}, %{y}: %{customdata}<extra></extra>"))
    # the legend's swatches: a crossed square like the cells (not told apart by color alone)
    for name, color, symbol, edge in (("wrong (×)", VERMILION, "square-x", "white"),
                                      ("right", _RIGHT_CELL, "square", GREY)):
        fig.add_trace(Scatter(x=[None], y=[None], mode="markers", name=name,
                                 marker=dict(symbol=symbol, size=12, color=color,
                                             line=dict(color=edge, width=1))))
    fig = styled(fig, title=f"Who errs where<br><sup>the vote errs where at least "
                 f"{summary.threshold} of the {n} voters err</sup>", x_title="example",
                 y_title="", uirevision=uirevision, height=60 * (n + 1) + 120, legend_width=300)
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(margin_l=100)  # room for the row names ("majority vote")
    fig.update_xaxes(type="category")
    return fig


def toy_bars_figure(summary, uirevision="toy_bars"):
    """Each voter's error, the vote's error, r and d, and the two bounds on the vote's error.

    Examples
    --------
    >>> from cbviz.toy_vote import toy_preset, toy_summary, toy_wrong
    >>> summary = toy_summary(toy_wrong(toy_preset("same", m=10), m=10))
    >>> fig = toy_bars_figure(summary)
    >>> fig.show()  # doctest: +SKIP
    """
    n = summary.wrong.shape[0]
    groups = (
        ("voters' errors", SKY, [f"voter {j + 1}" for j in range(n)],
         list(summary.voter_errors)),
        ("majority vote's error", VERMILION, ["vote"], [summary.majority_error]),
        ("Gibbs risk r, disagreement d", GREY, ["r", "d"],
         [summary.gibbs_risk, summary.disagreement]),
        ("bounds on the vote's error", BLUE, ["C", "2r"],
         [summary.c_bound, summary.first_order]),
    )
    fig = new_figure()
    for name, color, x, y in groups:
        fig.add_trace(Bar(
            x=x, y=y, name=name, marker=dict(color=color, line=dict(color=BLACK, width=0.5)),
            text=[fixed(v) for v in y], textposition="outside", cliponaxis=False,
            hovertemplate="%{x} = %{y:.4f}<extra>" + name + "</extra>"))
    fig = styled(fig, title="Errors, r, d and the bounds<br><sup>uniform vote of the "
                 f"{n} voters; C-bound C defined when r < 1/2</sup>", x_title="",
                 y_title="fraction of the examples", uirevision=uirevision, height=360,
                 legend_width=420)
    fig.update_yaxes(range=[0.0, max(1.0, summary.first_order) * 1.12])
    fig.update_xaxes(tickangle=0)
    fig.update_layout(bargap=0.25)
    return fig


def pac_bounds_figure(table, *, kl, delta, chosen=None, target=None, needed=None, limit=None,
                      m_run=None, uirevision="pac_vs_m"):
    """The four PAC-Bayes bounds against the sample size m (log axis).

    ``table``: from :func:`cbviz.sample_size.bounds_vs_m`; ``chosen``: the bound the ``target``,
    the smallest m that reaches it (``needed``, None if none) and its m -> infinity ``limit``
    refer to; ``m_run``: the sample size of a run, drawn as a vertical line.

    Examples
    --------
    >>> from cbviz.sample_size import bounds_vs_m, m_grid
    >>> table = bounds_vs_m(0.3, 0.35, 2.0, 0.05, m_grid(50, 100_000, n=30))
    >>> fig = pac_bounds_figure(table, kl=2.0, delta=0.05)
    >>> fig.show()  # doctest: +SKIP
    """
    m = table["m"].to_numpy(float)
    fig = new_figure()
    for i, (key, name) in enumerate(PAC_BOUNDS.items()):
        color, dash, symbol = bound_look(key, i)
        fig.add_trace(Scatter(
            x=m, y=table[key].to_numpy(float), mode="lines+markers", name=name,
            line=dict(color=color, width=3 if key == chosen else 1.8, dash=dash),
            marker=dict(symbol=symbol, size=7, maxdisplayed=MAX_MARKERS),
            hovertemplate=f"m = %{{x:,.0f}}<br>{name} = %{{y:.4f}}<extra></extra>"))
    span = [float(m.min()), float(m.max())]
    if limit is not None and chosen is not None:
        fig.add_trace(Scatter(
            x=span, y=[limit, limit], mode="lines", name=f"as m → ∞: {fixed(limit)}",
            line=dict(color=bound_look(chosen)[0], width=1.5, dash=SPARSE_DOT),
            hovertemplate="limit of the chosen bound = %{y:.4f}<extra></extra>"))
    if target is not None:
        fig.add_trace(Scatter(
            x=span, y=[target, target], mode="lines", name=f"target {target:.3f}",
            line=dict(color=GREY, width=1.5, dash="dash"),
            hovertemplate="target = %{y:.4f}<extra></extra>"))
    if needed is not None and target is not None:
        fig.add_trace(Scatter(
            x=[needed], y=[target], mode="markers", name=f"smallest m: {needed:,}",
            marker=dict(symbol="star", size=16, color=YELLOW, line=dict(color=BLACK, width=1.5)),
            hovertemplate="smallest m = %{x:,.0f}<extra></extra>"))
    if m_run is not None:
        fig.add_trace(Scatter(
            x=[m_run, m_run], y=[0.0, 1.02], mode="lines",
            name=f"m of the step page's run ({m_run:,})",
            line=dict(color=BLACK, width=1.2, dash="dot"),
            hovertemplate="m of the step page's run = %{x:,.0f}<extra></extra>"))
    fig = styled(fig, title=f"PAC-Bayes bounds against the sample size<br><sup>KL(Q‖P) = "
                 f"{title_number(kl)} nats; δ = {title_number(delta)}; each holds with "
                 "probability ≥ 1 − δ</sup>",
                 x_title="training examples m (log scale)",
                 y_title="bound on the true risk of the vote", uirevision=uirevision, height=440,
                 legend_width=FULL_WIDTH, hovermode="x unified")
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0.0, 1.02])
    return fig
