"""Tables of a vote."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._values import voter_names

# ---------------------------------------------------------------- tables

def weights_table(record, describe, added=None):
    """The vote of ``record`` as a table, one row per voter, sorted by iteration added.

    ``describe`` names voter k (callable, sequence or None).  ``added`` maps voter index
    to the iteration it entered the vote: a dict, or the run's history (a sequence of
    records, the first record adding each voter counts).  Columns: "iteration added",
    "voter", "alpha" (unnormalized weight), "share of the vote Q" (alpha / sum alpha).

    Examples
    --------
    >>> from cbviz.data import make_toy
    >>> from cbviz.estimators import CBBoostClassifier
    >>> ds = make_toy("moons", n_samples=200, seed=0)
    >>> clf = CBBoostClassifier(max_iter=10).fit(ds.X, ds.y)
    >>> table = weights_table(clf.history_[-1], clf.pool_.describe, added=clf.history_)
    >>> list(table.columns)
    ['iteration added', 'voter', 'alpha', 'share of the vote Q']
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
        "voter": [str(v) for v in voter_names(describe, support)] if support.size else [],
        "alpha": weights,
        "share of the vote Q": weights / total if total > 0 else np.zeros_like(weights),
    })
    table["_index"] = support
    table = table.sort_values(["iteration added", "_index"], kind="stable", na_position="last")
    return table.drop(columns="_index").reset_index(drop=True)
