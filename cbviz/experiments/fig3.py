"""Fig. 3 of the CB-Boost paper (Sect. 5.4): CB-Boost against AdaBoost under feature noise.

Protocol: Table 2's (:mod:`.table2`: same splits, pool and randomized search) on data with
Gaussian feature noise of level sigma (each feature gets noise of standard deviation sigma x
its training std, train and test parts: :func:`cbviz.data.prepare`; the paper's own noise
protocol, its Appendix F.1, is not reproduced).  For each data set and noise level the
table compares the mean test 0-1 losses over the splits: ``difference`` = CB-Boost's -
AdaBoost's (positive: AdaBoost is better), ``equivalent`` when the two intervals mean ± std
overlap (``|difference| <= std_CB + std_Ada``), the paper's "equivalent, when considering
their standard deviation" (with one split the stds are NaN and no pair is equivalent).
The paper's AdaBoost is SAMME (scikit-learn's); on two classes it
is discrete AdaBoost, so the default compares with AdaBoost on the same stump pool
(``adaboost="adaboost"``); ``"sklearn_adaboost"`` takes scikit-learn's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..algorithms import ParameterError
from ..plots.style import GREEN, ORANGE, SKY, colorbar, colorbar_room
from .runner import Experiment
from .table2 import (
    ALGORITHM_LABELS,
    FULL_DATASETS,
    SEARCH_COLUMNS,
    SearchProtocol,
    search_fit,
    summarize,
)

__all__ = ["FIG3", "FIG3_COLUMNS", "Fig3Config", "differences", "fig3_heatmap"]

FIG3_COLUMNS = ("dataset", "noise", "cbboost_mean", "cbboost_std", "adaboost_mean",
                "adaboost_std", "difference", "equivalent", "better", "splits")


@dataclass(frozen=True)
class Fig3Config(SearchProtocol):
    """Fig. 3: CB-Boost and ``adaboost`` on ``datasets`` at each of ``noise_levels`` (sigma,
    in units of each feature's std), over ``splits`` splits."""

    datasets: tuple = FULL_DATASETS
    noise_levels: tuple = (0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)
    splits: int = 10
    adaboost: str = "adaboost"

    def __post_init__(self):
        super().__post_init__()
        if self.adaboost not in ("adaboost", "sklearn_adaboost") or self.splits < 1 \
                or min(self.noise_levels, default=-1) < 0:
            raise ParameterError("adaboost must be 'adaboost' or 'sklearn_adaboost', splits >= 1"
                                 f" and noise levels >= 0 (at least one); got {self}")


QUICK_FIG3 = Fig3Config(datasets=("ionosphere", "breast_cancer"), noise_levels=(0.0, 0.5, 1.0),
                        splits=3, thresholds=5, draws=3, max_iter=(5, 40))


def differences(errors, adaboost_label):
    """:data:`FIG3_COLUMNS` from the per (dataset, noise, algorithm) means and stds."""
    keys = ["dataset", "noise"]
    if errors.empty:
        return pd.DataFrame(columns=list(FIG3_COLUMNS))
    wide = errors.pivot(index=keys, columns="algorithm",
                        values=["test_error_mean", "test_error_std", "splits"])
    wide = wide.reindex(pd.MultiIndex.from_frame(errors[keys].drop_duplicates()))

    def get(value, label):
        return wide[value][label] if label in wide[value] else pd.Series(np.nan, wide.index)

    out = pd.DataFrame({"cbboost_mean": get("test_error_mean", "CB-Boost"),
                        "cbboost_std": get("test_error_std", "CB-Boost"),
                        "adaboost_mean": get("test_error_mean", adaboost_label),
                        "adaboost_std": get("test_error_std", adaboost_label)})
    out["difference"] = out["cbboost_mean"] - out["adaboost_mean"]
    out["equivalent"] = out["difference"].abs() <= out["cbboost_std"] + out["adaboost_std"]
    out["better"] = np.select([out["difference"].isna(), out["equivalent"],
                               out["difference"] > 0], ["", "equivalent", "AdaBoost"], "CB-Boost")
    out["splits"] = pd.concat([get("splits", "CB-Boost"), get("splits", adaboost_label)],
                              axis=1).min(axis=1)
    return out.reset_index()[list(FIG3_COLUMNS)]


def fig3_heatmap(table, title="CB-Boost vs AdaBoost under Gaussian feature noise<br><sup>"
                 "each cell: CB-Boost's mean test loss − AdaBoost's, in percentage points"
                 "</sup>"):
    """Figure 3 as a plotly heatmap: data sets (rows) x noise levels (columns).

    Orange: AdaBoost's loss is lower beyond the stds; blue: equivalent; green: CB-Boost's is
    lower beyond the stds.  Each cell prints the difference in percentage points.
    """
    order = list(pd.unique(table["dataset"]))
    levels = sorted(pd.unique(table["noise"]))
    grid = table.set_index(["dataset", "noise"])
    code = {"CB-Boost": 0, "equivalent": 1, "AdaBoost": 2}
    z, text, hover = [], [], []
    for d in order:
        z.append([]), text.append([]), hover.append([])
        for s in levels:
            r = grid.loc[(d, s)] if (d, s) in grid.index else None
            known = r is not None and r["better"] in code
            z[-1].append(code[r["better"]] if known else None)
            text[-1].append(f"{100 * r['difference']:+.1f}" if known else "")
            hover[-1].append(
                f"{d}, σ = {s:g}<br>CB-Boost {r['cbboost_mean']:.4f} ± {r['cbboost_std']:.4f}"
                f"<br>AdaBoost {r['adaboost_mean']:.4f} ± {r['adaboost_std']:.4f}"
                f"<br>{r['better']}" if known else f"{d}, σ = {s:g}: not computed")
    scale = [[0.0, GREEN], [1 / 3, GREEN], [1 / 3, SKY], [2 / 3, SKY], [2 / 3, ORANGE],
             [1.0, ORANGE]]
    bar = colorbar(tickvals=[0, 1, 2],
                   ticktext=["CB-Boost better", "equivalent", "AdaBoost better"])
    fig = go.Figure(go.Heatmap(
        z=z, x=[f"{s:g}" for s in levels], y=order, text=text, texttemplate="%{text}",
        textfont={"size": 13},
        customdata=hover, hovertemplate="%{customdata}<extra></extra>", zmin=-0.5, zmax=2.5,
        colorscale=scale, xgap=2, ygap=2, colorbar=bar))
    fig.update_layout(template="plotly_white", title=title, margin={"r": colorbar_room(bar)},
                      height=max(340, 160 + 50 * len(order)),
                      xaxis_title="noise level σ (× each feature's std)",
                      yaxis={"title": "data set", "autorange": "reversed"},
                      uirevision="fig3")
    return fig


def _units(config):
    return [{"dataset": d, "noise": float(s), "split": i, "algorithm": a}
            for d in config.datasets for s in config.noise_levels
            for i in range(config.splits) for a in ("cbboost", config.adaboost)]


def _compute(config, unit):
    return [search_fit(config, unit["dataset"], unit["algorithm"], unit["split"],
                       unit["noise"])]


def _assemble(config, rows):
    algorithms = ("cbboost", config.adaboost)
    errors = summarize(rows, ("dataset", "noise", "algorithm"), config.datasets, algorithms)
    return {"errors": errors, "differences": differences(errors,
                                                         ALGORITHM_LABELS[config.adaboost])}


FIG3 = Experiment(
    name="fig3", title="Fig. 3: CB-Boost vs AdaBoost under Gaussian feature noise (Sect. 5.4)",
    config_type=Fig3Config, quick=QUICK_FIG3, full=Fig3Config(), units=_units,
    compute=_compute, assemble=_assemble, columns=SEARCH_COLUMNS,
    grid_fields=("datasets", "noise_levels", "splits"))
