"""scikit-learn classifiers over the steppers: ``fit`` runs a stepper to the end.

``staged_decision_function`` / ``staged_predict`` replay the history, as scikit-learn's
AdaBoost does.  The decision function is the normalized vote ``sum_k Q_k h_k(x)`` in [-1, 1]
(the margin's sign-free part), positive for ``classes_[1]``.  ``predict_proba`` is
scikit-learn's AdaBoost's two-class formula on it, a monotone score rather than a calibrated
probability (:meth:`cbviz._vote_classifier.VoteClassifier.predict_proba`).
"""
from __future__ import annotations

from ._vote_classifier import VoteClassifier
from .algorithms import AdaBoost, CBBoost, CqBoost, KLBoost, MinCq, QuadBoost, VEBBoost

__all__ = ["CBBoostClassifier", "MinCqClassifier", "CqBoostClassifier", "QuadBoostClassifier",
           "KLBoostClassifier", "VEBBoostClassifier", "AdaBoostClassifier"]

_POOL_DOC = """pool : voter pool or None
        Unfitted pool (``StumpPool``, ``HyperplanePool``, ``RBFPool``); cloned at fit.
        Default ``StumpPool(n_thresholds=10)`` (with complements)."""
_TREES_DOC = """weak_learner : {{"pool", "tree"}}
        ``"pool"``: the voters of ``pool``.  ``"tree"``: a tree of depth ``max_depth`` fitted
        to the run's example weights each round (:class:`~cbviz.voters.TreePool`, the
        VEB-Boost paper's Table 1 set-up; leave ``pool`` None).  ``pool_`` then holds the
        run's trees, and the records' KL term and PAC-Bayes bounds are NaN (no prior was
        fixed before the sample).
    max_depth : int in [1, 10]
        Depth of the fitted trees (``weak_learner="tree"`` only; 1: the exact weighted
        stump search)."""
_ATTRS_DOC = """Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two class labels; a positive vote predicts ``classes_[1]``.
    pool_ : voter pool
        The fitted voter pool (a clone of ``pool``).
    history_ : list of Record
        The run's records, one per iteration.
    weights_ : ndarray of shape (n_voters,)
        The vote's (unnormalized) weight on each voter of ``pool_``.
    n_iter_ : int
        Number of iterations run (the length of ``history_``).
    stop_reason_ : str or None
        Why the run stopped: the paper's own rule, or a cap that cut it short.
    capped_ : bool
        True when a cap (``max_iter`` where the paper has a stopping rule of its own, MinCq's
        ``max_products``) stopped the run before that rule; ``stop_reason_`` names both.

    Notes
    -----
    The fitted model holds no training data: its pickle is the pool, the records and the
    weights."""


class CBBoostClassifier(VoteClassifier):
    """CB-Boost (Bauvin et al. 2020) as a scikit-learn classifier.

    Parameters
    ----------
    {pool}
    max_iter : int
        The number of iterations T; the paper runs a fixed T of the user's choice (100 is our
        default).
    direction : {{"exhaustive", "gradient"}}
        Direction rule: CB-Boost or GB-CB-Boost.
    eligible : {{"theorem3", "all"}}
        Voters scored at each step: those with a positive margin (Theorem 3) or all.
    reuse_voters : bool
        Let a voter already in the vote be chosen again.
    delta : float in (0, 1]
        Confidence of the PAC-Bayesian bounds kept in ``history_``.
    {trees}
        Trees take the gradient rule only (GB-CB-Boost: a tree fitted to the C-bound's
        steepest direction, Theorem 3's weight); the exhaustive rule needs a finite pool.

    {attrs}
    """

    _factory = CBBoost

    def __init__(self, pool=None, max_iter=100, direction="exhaustive", eligible="theorem3",
                 reuse_voters=False, delta=0.05, weak_learner="pool", max_depth=3):
        self.pool = pool
        self.max_iter = max_iter
        self.direction = direction
        self.eligible = eligible
        self.reuse_voters = reuse_voters
        self.delta = delta
        self.weak_learner = weak_learner
        self.max_depth = max_depth


class MinCqClassifier(VoteClassifier):
    """MinCq (Laviolette et al. 2011; Germain et al. 2015) as a scikit-learn classifier.

    Parameters
    ----------
    {pool}
    mu : float in (0, 1]
        First moment of the margin imposed by the program; chosen by cross-validation in the
        papers (0.05 is our default, the CB-Boost paper's Sect. 5.6 value).  Above the
        largest one the posteriors reach on the training data, ``fit`` raises
        :class:`~cbviz.algorithms.MuLimitError` with both numbers.
    form : {{"quasi_uniform", "simplex"}}
        MinCq's quasi-uniform program, or the plain program (2) of Roy et al. 2016.
    delta : float in (0, 1]
        Confidence of the PAC-Bayesian bounds kept in ``history_``.

    {attrs}
    """

    _factory = MinCq

    def __init__(self, pool=None, mu=0.05, form="quasi_uniform", delta=0.05):
        self.pool = pool
        self.mu = mu
        self.form = form
        self.delta = delta


class CqBoostClassifier(VoteClassifier):
    """CqBoost (Roy et al. 2016, Algorithm 1) as a scikit-learn classifier.

    Parameters
    ----------
    {pool}
    mu : float in (0, 1]
        First moment of the margin imposed by the restricted programs (cross-validated in the
        paper; 0.05 is our default).  Its upper limit depends on the training data: the first
        moment of the margin of the best single voter, ``max_k mean(y h_k)``
        (:func:`cbviz.algorithms.cqboost.mu_limit`); above it ``fit`` raises
        :class:`~cbviz.algorithms.MuLimitError` (a ``ValueError``) with both numbers.
    epsilon : float >= 0
        Stop when no column's edge exceeds the dual variable by more than epsilon
        (Algorithm 1's rule, the paper's 1e-6).
    max_iter : int or None
        ``None`` (the default): no cap, columns are added until the epsilon rule, as in the
        paper.  A number caps the columns: ``capped_`` and ``stop_reason_`` say when it cut
        the run short.
    delta : float in (0, 1]
        Confidence of the PAC-Bayesian bounds kept in ``history_``.

    {attrs}
    """

    _factory = CqBoost

    def __init__(self, pool=None, mu=0.05, epsilon=1e-6, max_iter=None, delta=0.05):
        self.pool = pool
        self.mu = mu
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.delta = delta


class QuadBoostClassifier(VoteClassifier):
    """QuadBoost (Fortier-Dubois et al.) as a scikit-learn classifier.

    Parameters
    ----------
    {pool}
    regularization : {{None, "l1", "l2", "linf"}}
        Vanilla, soft threshold, ridge shrinkage or clipped weights (eq. 6-9).
    lam : float > 0 or None
        lambda of "l1" / "l2" (None: 0.01 for L1, 1 for L2); unused otherwise.
    alpha_max : float > 0
        Largest absolute weight ("linf" only; the paper cross-validates it in [1e-4, 0.1]).
    max_iter : int or None
        The number of steps T of vanilla, L2 and Linf QuadBoost (early stopping, T
        cross-validated in the paper; 100 is our default).  "l1" stops by its own rule: there
        ``max_iter`` is a cap (``capped_`` says when it cut the run short) and ``None`` runs
        to that rule.
    reweight : bool
        Let voters already in the ensemble be chosen again (Sect. 3.1).
    delta : float in (0, 1]
        Confidence of the PAC-Bayesian bounds kept in ``history_``.

    {attrs}
    """

    _factory = QuadBoost

    def __init__(self, pool=None, regularization=None, lam=None, alpha_max=0.05, max_iter=100,
                 reweight=False, delta=0.05):
        self.pool = pool
        self.regularization = regularization
        self.lam = lam
        self.alpha_max = alpha_max
        self.max_iter = max_iter
        self.reweight = reweight
        self.delta = delta


class KLBoostClassifier(VoteClassifier):
    """The KL-regularized learner (Germain et al. 2009, Algorithm 1) as a scikit-learn classifier.

    Parameters
    ----------
    {pool}
    loss : {{"quadratic", "exponential"}}
    C : float in (0, 1e6]
        Weight of the empirical loss against KL(Q||P).
    gamma : float in [1e-4, 1e4]
        Margin scale inside the loss.
    epsilon : float in (0, 1]
        Stop when no weight moves by more than epsilon in a pass (Algorithm 1's
        convergence; the paper names no value, 1e-6 is our default).
    max_iter : int or None
        ``None`` (the default): no cap, passes until the epsilon rule.  A number caps the
        passes: ``capped_`` and ``stop_reason_`` say when it cut the run short.
    random_state : int >= 0 or None
        Seed of the order of the coordinates in each pass.
    delta : float in (0, 1]
        Confidence of the PAC-Bayesian bounds kept in ``history_``.

    {attrs}
    """

    _factory = KLBoost

    def __init__(self, pool=None, loss="quadratic", C=1.0, gamma=0.1, epsilon=1e-6, max_iter=None,
                 random_state=0, delta=0.05):
        self.pool = pool
        self.loss = loss
        self.C = C
        self.gamma = gamma
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.random_state = random_state
        self.delta = delta


class VEBBoostClassifier(VoteClassifier):
    """VEB-Boost (Shivaswamy & Jebara 2011) as a scikit-learn classifier.

    Parameters
    ----------
    {pool}
    lam : float in [0, 1]
        Weight of the sample-variance penalty (the user's choice in the paper; 0.5 is ours).
    max_iter : int
        The number of rounds S of the paper's loop, the user's choice (100 is our default).
    delta : float in (0, 1]
        Confidence of the PAC-Bayesian bounds kept in ``history_``.
    {trees}

    {attrs}
    """

    _factory = VEBBoost

    def __init__(self, pool=None, lam=0.5, max_iter=100, delta=0.05, weak_learner="pool",
                 max_depth=3):
        self.pool = pool
        self.lam = lam
        self.max_iter = max_iter
        self.delta = delta
        self.weak_learner = weak_learner
        self.max_depth = max_depth


class AdaBoostClassifier(VoteClassifier):
    """Discrete AdaBoost on a voter pool (the fair comparison with the others).

    Parameters
    ----------
    {pool}
    max_iter : int
        The number of boosting rounds T, the user's choice (100 is our default).
    delta : float in (0, 1]
        Confidence of the PAC-Bayesian bounds kept in ``history_``.
    {trees}

    {attrs}
    """

    _factory = AdaBoost

    def __init__(self, pool=None, max_iter=100, delta=0.05, weak_learner="pool", max_depth=3):
        self.pool = pool
        self.max_iter = max_iter
        self.delta = delta
        self.weak_learner = weak_learner
        self.max_depth = max_depth


for _cls in (CBBoostClassifier, MinCqClassifier, CqBoostClassifier, QuadBoostClassifier,
             KLBoostClassifier, VEBBoostClassifier, AdaBoostClassifier):
    _cls.__doc__ = _cls.__doc__.format(pool=_POOL_DOC, attrs=_ATTRS_DOC,
                                       trees=_TREES_DOC.format())
