"""Reference helpers shared by the algorithm tests (recomputed from the records only)."""
import numpy as np


def replay(records, n, upto=None):
    """Weights rebuilt from the records' (index, alpha) pairs only (signed for signed runs)."""
    a = np.zeros(n)
    for rec in records[:upto]:
        a[rec.index] += rec.alpha
    return a


def values(v):
    """A Plotly JSON array (a list, or a typed array ``{"dtype", "bdata"}``) as floats."""
    if isinstance(v, dict):
        import base64
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).astype(float)
    return np.asarray(v, dtype=float)
