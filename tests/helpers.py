"""Reference helpers shared by the algorithm tests (recomputed from the records only)."""
import numpy as np


def replay(records, n, upto=None):
    """Weights rebuilt from the records' (index, alpha) pairs only (signed for signed runs)."""
    a = np.zeros(n)
    for rec in records[:upto]:
        a[rec.index] += rec.alpha
    return a
