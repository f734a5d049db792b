"""A class's figures: what the class predicted (first and second vote) and the class's runs,
each student's own sample, beside one student's run.

Pure functions of plain values: a question is anything with ``choices`` (empty for a number),
``low`` and ``high`` (:class:`cbviz.lessons.Question`); votes are values; results are mappings
from a quantity to a number (None where a run has none).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..bounds import PAC_BOUNDS
from ._figures import new_figure, styled
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
    """The class's votes on ``question``: one bar per choice (or a histogram of the numbers);
    with ``second`` (the second vote) both, side by side; ``answers``: the right answer(s) of
    the class's runs, marked (a bar outline and "right" in its label, or a line per number).
    ``large``: the projector's sizes."""
    rounds = [("first vote", first, BLUE)] + ([("second vote", second, ORANGE)] if second
                                               else [])
    fig = new_figure()
    right = set(answers)
    for name, values, color in rounds:
        x, counts, width = _counts(question, values)
        labels = ([f"{c}  (right)" if c in right else c for c in x] if question.choices else x)
        fig.add_trace(go.Bar(
            x=labels, y=counts, name=f"{name} ({len(values)})", marker_color=color, width=width,
            marker_pattern_shape="/" if name == "second vote" else "",
            text=counts if large or question.choices else None, textposition="outside",
            hovertemplate="%{x}: %{y} students<extra>" + name + "</extra>"))
    if not question.choices:
        for value in sorted(right)[:5]:
            fig.add_vline(x=float(value), line=dict(color=GREEN, width=3, dash="dash"),
                          annotation_text=f"right: {value:.3g}", annotation_position="top")
    title = ("What the class predicted" + (": first and second vote" if second else "")
             + (f" · {len(first)} votes" if not second else ""))
    fig = styled(fig, title=title, x_title="answer" if question.choices else "guessed value",
                 y_title="students", uirevision=uirevision, height=520 if large else 340,
                 barmode="group", yaxis=dict(rangemode="tozero", tickformat="d"))
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
        fig.add_trace(go.Box(
            y=values, name=RUN_QUANTITIES[key], boxpoints="all", jitter=0.4, pointpos=0,
            marker=dict(color=BLUE if key == "test_error" else GREEN, size=9 if large else 6),
            line=dict(color=BLUE if key == "test_error" else GREEN), showlegend=False,
            hovertemplate="%{y:.4g}<extra>" + RUN_QUANTITIES[key] + "</extra>"))
    if mine:
        keys = [k for k in names if mine.get(k) is not None]
        fig.add_trace(go.Scatter(
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
