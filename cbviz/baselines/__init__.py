"""scikit-learn ensembles as baselines for the comparison page, recorded like the steppers.

:func:`fit_baseline` fits one of :data:`BASELINES` (AdaBoost on decision stumps, random
forest, bagged trees, gradient boosting) and returns a :class:`BaselineResult` whose
``frame`` has one row per iteration, with the column names of
:meth:`cbviz.algorithms.base.Run.to_frame` where the quantity exists:

``iteration``
    number of ensemble members so far (stumps / trees / boosting stages);
``n_voters``
    members with a non-zero weight so far (AdaBoost: stumps with ``estimator_weights_ != 0``;
    the other three weight every member, so ``n_voters == iteration``);
``train_error``, ``test_error``
    0-1 error of the ensemble made of the first ``iteration`` members (``test_error`` is NaN
    without test data);
``seconds``
    the fit time spread evenly over the iterations, ``fit_seconds / T`` on every row (the
    per-step wall time of :class:`~cbviz.algorithms.base.Record`; scikit-learn fits in one
    call, so the share is even); ``BaselineResult.fit_seconds`` is the total;
``alpha``, ``weighted_error`` (AdaBoost)
    the stump's weight in the vote and its weighted training error (SAMME);
``objective`` (gradient boosting)
    scikit-learn's ``train_score_``: the loss the trees descend, on the in-bag sample when
    ``subsample < 1``.  For ``loss="log_loss"`` scikit-learn reports the binomial deviance,
    twice the mean log-loss.

Per-iteration predictions: AdaBoost and gradient boosting replay ``staged_predict``; the
forest and bagging predict with the mean ``predict_proba`` of their first t members, the rule
their ``predict`` applies to all of them (summed in member order, then divided by t), so the
last stage is the fitted model's prediction exactly (checked on every fit).  Both ensembles
are fit with ``n_jobs=None`` (one process), which keeps that summation order.

Labels: any two classes (the package's {-1, +1} included); predictions are in the same labels.
"""
from __future__ import annotations

from ._catalogue import BASELINES, BaselineSpec, Param, mean_proba_stages
from ._fitting import BaselineResult, fit_baseline

_mean_proba_stages = mean_proba_stages   # its former name, kept importable

__all__ = ["BASELINES", "BaselineResult", "BaselineSpec", "Param", "fit_baseline"]
