"""Both rules' picks from the same vote: where the gradient rule would take another voter than
the exhaustive one, and each pick's correlation with the vote and exact C-bound decrease."""
from __future__ import annotations

import numpy as np

from ._figures import Scatter, new_figure, styled
from ._values import float_column, literal_texts, voter_names
from .style import BLUE, GREY, ORANGE, VERMILION

#: what :func:`same_vote_picks_figure` can draw: column suffix, short name, axis title, format
QUANTITIES = {
    "differ": (None, "C-bound", "empirical C-bound of the exhaustive run", ".4f"),
    "correlation": ("correlation", "ρ", "ρ, the pick's correlation with the vote", ".2f"),
    "decrease": ("decrease", "S", "S, the pick's exact C-bound decrease", ".5f"),
}


def same_vote_picks_figure(picks, quantity="differ", c_bound=None, labels=None,
                           uirevision="picks"):
    """The two rules' picks from the exhaustive run's own vote at each step t >= 2.

    ``picks`` is :func:`cbviz.algorithms.pick_correlations` of the run. ``quantity``:
    ``"differ"`` draws the run's C-bound (``c_bound``: one value per iteration, from 1) with a
    red marker at each step where the gradient rule would add another voter;
    ``"correlation"`` and ``"decrease"`` draw, at those steps only, each pick's ρ or exact
    decrease S (Property 1), the two picks of a step joined by a thin line.

    Examples
    --------
    >>> from cbviz.algorithms import CBBoost, pick_correlations
    >>> from cbviz.data import make_toy, prepare
    >>> from cbviz.voters import StumpPool
    >>> split = prepare(make_toy("moons", n_samples=200, seed=0), train_ratio=0.7, seed=0)
    >>> H = StumpPool(n_thresholds=5).fit(split.X_train).operator(split.X_train)
    >>> run = CBBoost(max_iter=10, keep_candidates="picks").start(H, split.y_train).run()
    >>> fig = same_vote_picks_figure(pick_correlations(run), "correlation")
    """
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {', '.join(QUANTITIES)}; got {quantity!r}")
    suffix, short, y_title, number = QUANTITIES[quantity]
    it = float_column(picks, "iteration")
    differ = picks["differ"].to_numpy(dtype=bool) if len(picks) else np.zeros(0, bool)
    names = {rule: literal_texts(voter_names(labels, picks[f"{rule}_index"].fillna(-1)
                                            .to_numpy(dtype=int).clip(0)))
             for rule in ("exhaustive", "gradient")}
    count = f"{int(differ.sum())} of {it.size} steps"
    if quantity == "differ":
        c = np.asarray(c_bound, dtype=float)
        steps = np.arange(1, c.size + 1)
        hover = np.column_stack([names["exhaustive"], names["gradient"]]) if it.size else None
        fig = new_figure(
            Scatter(x=steps, y=c, mode="lines+markers", name="exhaustive run", marker=dict(
                size=5), line=dict(color=BLUE, width=2),
                hovertemplate="iteration %{x}: C-bound %{y:.4f}<extra></extra>"),
            Scatter(x=it[differ], y=c[it[differ].astype(int) - 1], mode="markers",
                          name="the gradient rule would add another voter",
                          marker=dict(size=13, color=VERMILION, symbol="x"),
                          customdata=hover[differ] if hover is not None else None,
                          hovertemplate=("step %{x}: exhaustive adds %{customdata[0]}, gradient "
                                         "would add %{customdata[1]}<extra></extra>")))
        title = f"From the same vote, the rules pick different voters at {count}"
        return styled(fig, title=title, x_title="iteration of the exhaustive run",
                      y_title=y_title, uirevision=uirevision)
    x = it[differ]
    values = {rule: float_column(picks, f"{rule}_{suffix}")[differ]
              for rule in ("exhaustive", "gradient")}
    link_x = np.repeat(x, 3)
    link_y = np.column_stack([values["exhaustive"], values["gradient"],
                              np.full(x.size, np.nan)]).ravel()
    traces = [Scatter(x=link_x, y=link_y, mode="lines", line=dict(color=GREY, width=1),
                         hoverinfo="skip", showlegend=False)]
    for rule, color, symbol in (("exhaustive", BLUE, "circle"), ("gradient", ORANGE, "diamond")):
        traces.append(Scatter(
            x=x, y=values[rule], mode="markers", name=f"{rule} pick",
            marker=dict(size=11, color=color, symbol=symbol),
            customdata=names[rule][differ],
            hovertemplate=(f"step %{{x}}: {rule} pick %{{customdata}}, {short} = "
                           f"%{{y:{number}}}<extra></extra>")))
    title = f"Where the picks differ ({count}): {short} of each pick"
    return styled(new_figure(*traces), title=title, x_title="iteration of the exhaustive run",
                  y_title=y_title, uirevision=uirevision)
