"""The voter matrix ``H`` (m x n) seen through products: the operator interface every
algorithm consumes, its dense implementation and column views."""
from __future__ import annotations

import numpy as np

__all__ = ["VoterOperator", "DenseOperator", "as_operator"]


class VoterOperator:
    """The voter matrix ``H`` (m x n) seen through products.

    Subclasses define ``shape``, :meth:`rmatvec`, :meth:`column` and ``col_sq_sums``
    (``sum_i H[i, k]**2`` per voter).
    """

    shape: tuple[int, int]
    col_sq_sums: np.ndarray

    def rmatvec(self, v):
        """``H^T v`` (length n)."""
        raise NotImplementedError

    def column(self, k):
        """``H[:, k]``: the outputs of voter ``k`` on every example."""
        raise NotImplementedError

    def columns(self, idx):
        """``H[:, idx]`` as a dense (m x len(idx)) array."""
        idx = np.asarray(idx, dtype=int)
        return np.column_stack([self.column(k) for k in idx]) if idx.size else np.zeros((self.shape[0], 0))

    def matvec(self, a):
        """``H a`` for a weight vector ``a`` (cost proportional to its non-zeros)."""
        a = np.asarray(a, dtype=float)
        nz = np.flatnonzero(a)
        return self.columns(nz) @ a[nz]

    def toarray(self):
        """The dense matrix ``H`` (for tests and small problems)."""
        return self.columns(np.arange(self.shape[1]))

    def restrict(self, idx):
        """The operator of the columns ``idx`` only (a view: no data is copied here)."""
        return _Restricted(self, np.asarray(idx, dtype=int))

    def is_self_complemented(self):
        """True when the pool is laid out as the papers' self-complemented sets: voters
        ``0 .. n/2-1`` then their complements ``h_{k + n/2} = -h_k`` in the same order
        (the layout of every pool here with ``complements=True``)."""
        n = self.shape[1]
        if n == 0 or n % 2:
            return False
        half = n // 2
        step = max(1, 2**22 // max(1, self.shape[0]))  # columns per block: bounded memory
        for lo in range(0, half, step):
            idx = np.arange(lo, min(half, lo + step))
            if not np.allclose(self.columns(idx), -self.columns(idx + half), rtol=0, atol=1e-12):
                return False
        return True


class _Restricted(VoterOperator):
    """Columns ``idx`` of a parent operator, through the parent's products."""

    def __init__(self, parent, idx):
        self.parent, self.idx = parent, idx
        self.shape = (parent.shape[0], idx.size)
        self.col_sq_sums = parent.col_sq_sums[idx]

    def rmatvec(self, v):
        return self.parent.rmatvec(v)[self.idx]

    def column(self, k):
        return self.parent.column(self.idx[k])


class DenseOperator(VoterOperator):
    """A :class:`VoterOperator` over an explicit matrix."""

    def __init__(self, H):
        self.H = np.ascontiguousarray(H, dtype=float)
        if self.H.ndim != 2:
            raise ValueError(f"voter matrix must be 2-D, got shape {self.H.shape}")
        self.shape = self.H.shape
        self.col_sq_sums = np.einsum("ij,ij->j", self.H, self.H)

    def rmatvec(self, v):
        return self.H.T @ np.asarray(v, dtype=float)

    def column(self, k):
        return self.H[:, k]

    def columns(self, idx):
        return self.H[:, np.asarray(idx, dtype=int)]

    def toarray(self):
        return self.H


def as_operator(H):
    """Wrap a dense matrix in a :class:`DenseOperator`; pass operators through."""
    return H if isinstance(H, VoterOperator) else DenseOperator(H)
