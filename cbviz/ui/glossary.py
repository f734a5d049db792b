"""The notation of every page, typeset, and the papers the pages cite."""
from __future__ import annotations

import streamlit as st

CB_BOOST_PAPER = ("Bauvin et al. (2020), *Fast greedy C-bound minimization with guarantees*, "
                  "Machine Learning")

SYMBOLS = (
    (r"m,\; n", "number of training examples the bounds count; number of voters in the pool"),
    (r"h_k(x) \in [-1, 1]", "voter k's output (±1 for stumps and hyperplanes, real for RBF)"),
    (r"a_k \ge 0,\; F = \sum_k a_k h_k", "weights and the (unnormalized) vote"),
    (r"Q = a / \textstyle\sum_k a_k", "the posterior: a distribution over the voters"),
    (r"P", "the prior: uniform over the n voters of the pool"),
    (r"\gamma(f) = \tfrac1m \sum_i y_i f(x_i)", "margin of a function f (its correlation with y)"),
    (r"\nu(f) = \tfrac1m \sum_i f(x_i)^2", "second moment of f"),
    (r"\tau(f, g) = \tfrac1m \sum_i f(x_i) g(x_i)", "correlation of f and g"),
    (r"M_i = y_i F(x_i) / \textstyle\sum_k a_k", "normalized margin of example i, in [−1, 1]"),
    (r"\mu_1 = \tfrac1m \sum_i M_i,\;\; \mu_2 = \tfrac1m \sum_i M_i^2",
     "first and second moments of the margin"),
    (r"\mathcal{C} = 1 - \mu_1^2 / \mu_2", "the C-bound (defined when μ₁ > 0; reported as 1 "
                                            "otherwise)"),
    (r"r = (1 - \mu_1)/2", "Gibbs risk: error of one voter drawn from Q (±1 voters)"),
    (r"d = (1 - \mu_2)/2", "disagreement: how often two voters drawn from Q differ (±1 voters)"),
    (r"e = \tfrac1m \sum_i ((1 - M_i)/2)^2", "joint error: both of two voters drawn from Q "
                                             "wrong (±1 voters)"),
    (r"\mathrm{KL}(Q\|P) = \ln n + \sum_k Q_k \ln Q_k", "Kullback-Leibler divergence to the "
                                                         "uniform prior, in nats"),
    (r"\delta", "the PAC-Bayes bounds hold with probability at least 1 − δ over the sample"),
)


def draw_glossary():
    """The notation, in the sidebar of every page."""
    with st.sidebar.expander("Notation", icon=":material/function:"):
        for formula, meaning in SYMBOLS:
            st.markdown(f"${formula}$: {meaning}")
        st.markdown("For real-valued voters (RBF), r, d and e are defined by the same formulas "
                    "from the margins; they are no longer probabilities of errors of voters.")
