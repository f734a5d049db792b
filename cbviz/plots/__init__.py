"""Plotly figures of a run: pure functions from run data to ``go.Figure``.

Nothing here imports Streamlit or keeps state: each function takes plain data (a run's
history: ``run.history``, an estimator's ``history_`` or a frame from
:meth:`cbviz.algorithms.Run.to_frame`; a :class:`cbviz.algorithms.Candidates`, a
:class:`cbviz.algorithms.DirectionCurve`, arrays) and returns a figure, so the app, notebooks and tests share the same pictures.

Conventions kept by every figure: template ``plotly_white``; a title that says what is
drawn; axis titles with their meaning or unit; a horizontal legend above the plot when
there is more than one trace; hover templates with 4 significant digits; a stable
``layout.uirevision`` (the ``uirevision`` keyword) so zoom survives app reruns; a height
that leaves two figures readable side by side on a 1280 x 800 screen.
"""
from ._describe import figure_summary
from .comparison import bound_panel_figure, compare_figure
from .curves import (
                     BOUNDS_COLUMNS,
                     alpha_figure,
                     bounds_figure,
                     error_figure,
                     kl_figure,
                     mincq_on_voters_figure,
                     placeholder_figure,
                     series_figure,
)
from .landscapes import direction_curve_figure, landscape_figure, lockstep_figure
from .regions import decision_figure, margin_figure, projection_figure
from .style import (
                     BLACK,
                     BLUE,
                     GREEN,
                     GREY,
                     NEG,
                     ORANGE,
                     POS,
                     PURPLE,
                     SKY,
                     VERMILION,
                     YELLOW,
)
from .style import history_frame
from .tables import weights_table

__all__ = [
    "bounds_figure", "BOUNDS_COLUMNS", "error_figure", "kl_figure", "alpha_figure", "margin_figure",
    "decision_figure", "direction_curve_figure", "landscape_figure", "lockstep_figure",
    "series_figure", "mincq_on_voters_figure", "projection_figure", "placeholder_figure",
    "weights_table", "compare_figure", "bound_panel_figure", "history_frame",
    # a figure's text alternative (its title and current values, in words)
    "figure_summary",
    # the palette, for pages that draw their own marks in the same colors
    "BLACK", "BLUE", "GREEN", "GREY", "NEG", "ORANGE", "POS", "PURPLE", "SKY", "VERMILION",
    "YELLOW",
]
