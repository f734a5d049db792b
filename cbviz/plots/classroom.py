"""A class's figures: what the class predicted (first and second vote) and the class's runs,
each student's own sample, beside one student's run.

Pure functions of plain values: a question is anything with ``choices`` (empty for a number),
``low`` and ``high`` (:class:`cbviz.lessons.Question`); votes are values; results are mappings
from a quantity to a number (None where a run has none).
"""
from __future__ import annotations

import numpy as np

from ..bounds import PAC_BOUNDS
from ._figures import Bar, Box, Scatter, new_figure, styled
from .style import BLACK, BLUE, GREEN, ORANGE, VERMILION

__all__ = ["votes_figure", "class_runs_figure", "RUN_QUANTITIES"]

# the quantities of a run the class compares: test error first, the bounds on it after
RUN_QUANTITIES = {"test_error": "test error", "c_bound": "empirical C-bound",
                  **{k: v.split(" (")[0] for k, v in PAC_BOUNDS.items()}}
_BINS = 20


def _counts(question, values):
    """``(x, counts, width)``: bars per choice, or a histogram of [low, high] in 20 bins."""
    if question.choices:
        return list(question.choices), [sum(v == c for v in values) for c in
                                         question.choices], None
    edges = np.linspace(question.low, question.high, _BINS + 1)
    counts, _ = np.histogram(np.clip(np.asarray(values, dtype=float), question.low,
                                     question.high), bins=edges)
    return ((edges[:-1] + edges[1:]) / 2).tolist(), counts.tolist(), float(edges[1] - edges[0])


def votes_figure(question, first, second=(), answers=(), *, large=False, uirevision="votes"):
    """The class's votes on ``question``: a horizontal bar per choice (or a histogram of the
    numbers); with ``second`` (the second vote) both, side by side; ``answers``: the right
    answer(s) of the class's runs, marked ("right" beside a choice, a line per number).
    ``large``: the projector's sizes."""
    rounds = [("first vote", first, BLUE, "")]
    if second:
        rounds.append(("second vote", second, ORANGE, "/"))
    right = set(answers)
    fig = new_figure()
    most = 1
    for name, values, color, pattern in rounds:
        x, counts, width = _counts(question, values)
        most = max([most, *counts])
        bar = dict(name=f"{name} ({len(values)})", marker_color=color,
                   text=[str(c) for c in counts],
                   textposition="outside", marker_pattern_shape=pattern, cliponaxis=False)
        if question.choices:   # long answers read best as rows
            labels = [f"✓ right: {c}" if c in right else c for c in x]
            fig.add_trace(Bar(y=labels, x=counts, orientation="h", **bar,
                                 hovertemplate="%{y}: %{x} students<extra>" + name + "</extra>"))
        else:
            fig.add_trace(Bar(x=x, y=counts, width=width, **bar,
                                 hovertemplate="about %{x:.3g}: %{y} students<extra>" + name
                                 + "</extra>"))
    title = "What the class predicted" + (": first and second vote" if second else
                                          f" · {len(first)} votes")
    counts_axis = dict(rangemode="tozero", dtick=1 if most <= 10 else None, tickformat="d",
                       range=[0, most * 1.15 + 0.5])
    if question.choices:
        rows = len(question.choices) * len(rounds)
        fig = styled(fig, title=title, x_title="students", y_title="",
                     uirevision=uirevision, height=(110 + 46 * rows) * (1.4 if large else 1),
                     barmode="group", xaxis=counts_axis, yaxis=dict(autorange="reversed"))
        longest = max(len(c) for c in question.choices) + (9 if right else 0)
        fig.layout.margin.l = min(420, 16 + 7 * longest) * (1.6 if large else 1)
        fig.layout.title.update(xref="container", x=0.01)   # not over the labels' margin
    else:
        fig = styled(fig, title=title, x_title="guessed value", y_title="students",
                     uirevision=uirevision, height=480 if large else 320, barmode="group",
                     yaxis=counts_axis, xaxis=dict(range=[question.low, question.high]))
        for value in sorted(right)[:5]:
            fig.add_vline(x=float(value), line=dict(color=GREEN, width=3, dash="dash"),
                          annotation_text=f"right: {value:.3g}", annotation_position="top")
    return _projected(fig) if large else fig


def _projected(fig):
    """``fig`` in the projector's sizes (text read from the back of a room)."""
    return fig.update_layout(font_size=20, title_font_size=26, legend_font_size=18)


def class_runs_figure(results, mine=None, *, large=False, uirevision="class_runs"):
    """Each quantity of :data:`RUN_QUANTITIES` over the class's runs (one point per student's
    sample, with its box) and, as a large diamond, ``mine`` (one student's run)."""
    fig = new_figure()
    names = [k for k in RUN_QUANTITIES if any(r.get(k) is not None for r in results)]
    for key in names:
        values = [r[key] for r in results if r.get(key) is not None]
        fig.add_trace(Box(
            y=values, name=RUN_QUANTITIES[key], boxpoints="all", jitter=0.4, pointpos=0,
            marker=dict(color=BLUE if key == "test_error" else GREEN, size=9 if large else 6),
            line=dict(color=BLUE if key == "test_error" else GREEN), showlegend=False,
            hovertemplate="%{y:.4g}<extra>" + RUN_QUANTITIES[key] + "</extra>"))
    if mine:
        keys = [k for k in names if mine.get(k) is not None]
        fig.add_trace(Scatter(
            x=[RUN_QUANTITIES[k] for k in keys], y=[mine[k] for k in keys], mode="markers",
            name="your run", marker=dict(symbol="diamond", size=16, color=VERMILION,
                                         line=dict(color=BLACK, width=1.5)),
            hovertemplate="your run: %{y:.4g}<extra>%{x}</extra>"))
    title = (f"The class's runs: {len(results)} samples, one per student"
             + (" (◆ your run)" if mine else ""))
    fig = styled(fig, title=title, x_title="", y_title="value on the student's sample",
                 uirevision=uirevision, height=520 if large else 380,
                 yaxis=dict(rangemode="tozero"))
    return _projected(fig) if large else fig
