"""The notation of every page and lesson: symbol key -> (KaTeX formula, meaning)."""
from __future__ import annotations

__all__ = ["GLOSSARY", "CB_BOOST_PAPER"]

CB_BOOST_PAPER = ("Bauvin et al. (2020), *Fast greedy C-bound minimization with guarantees*, "
                  "Machine Learning")

GLOSSARY = {
    "m": (r"m,\; n", "number of training examples the bounds count; number of voters in the "
                     "pool"),
    "h": (r"h_k(x) \in [-1, 1]", "voter k's output (±1 for stumps and hyperplanes, real for RBF)"),
    "a": (r"a_k \ge 0,\; F = \sum_k a_k h_k", "weights and the (unnormalized) vote"),
    "Q": (r"Q = a / \textstyle\sum_k a_k", "the posterior: a distribution over the voters"),
    "P": (r"P", "the prior: uniform over the n voters of the pool"),
    "gamma": (r"\gamma(f) = \tfrac1m \sum_i y_i f(x_i)",
              "margin of a function f (its correlation with y)"),
    "nu": (r"\nu(f) = \tfrac1m \sum_i f(x_i)^2", "second moment of f"),
    "tau": (r"\tau(f, g) = \tfrac1m \sum_i f(x_i) g(x_i)", "correlation of f and g"),
    "rho": (r"\rho(h) = \tau(F, h) / \sqrt{\nu(F)\,\nu(h)}",
            "cosine of a voter h and the vote F on the sample, in [−1, 1]"),
    "M": (r"M_i = y_i F(x_i) / \textstyle\sum_k a_k", "normalized margin of example i, in [−1, 1]"),
    "mu": (r"\mu_1 = \tfrac1m \sum_i M_i,\;\; \mu_2 = \tfrac1m \sum_i M_i^2",
           "first and second moments of the margin"),
    "C": (r"\mathcal{C} = 1 - \mu_1^2 / \mu_2", "the C-bound (defined when μ₁ > 0; reported as 1 "
                                               "otherwise)"),
    "r": (r"r = (1 - \mu_1)/2", "Gibbs risk: error of one voter drawn from Q (±1 voters)"),
    "d": (r"d = (1 - \mu_2)/2", "disagreement: how often two voters drawn from Q differ (±1 "
                                "voters)"),
    "e": (r"e = \tfrac1m \sum_i ((1 - M_i)/2)^2", "joint error: both of two voters drawn from Q "
                                                 "wrong (±1 voters)"),
    "alpha": (r"\alpha^*", "the weight Theorem 3 of the CB-Boost paper gives a new voter: the "
                           "minimum of the C-bound along that voter"),
    "S": (r"S_k", "the exact C-bound decrease of adding voter k with its weight α* (Property 1 "
                  "of the CB-Boost paper)"),
    "KL": (r"\mathrm{KL}(Q\|P) = \ln n + \sum_k Q_k \ln Q_k", "Kullback-Leibler divergence to "
                                                              "the uniform prior, in nats"),
    "delta": (r"\delta", "the PAC-Bayes bounds hold with probability at least 1 − δ over the "
                         "sample"),
}
