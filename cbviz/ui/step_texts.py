"""The step page's explanations, written from the settings and the run's own numbers."""
from __future__ import annotations

from .. import bounds
from ..plots.style import fixed


TREES_NOTE = ("No PAC-Bayes bound here: each round's tree was fitted to this training sample, "
              "while the theorems need a prior over voters chosen before seeing it (a finite "
              "pool, uniform prior). The empirical C-bound still bounds the training error "
              "(Bauvin et al. 2020, Corollary 1).")


def prior_note(problem):
    """What the bounds assume about the prior, for the settings in use."""
    m = problem.split.X_train.shape[0]
    if problem.X_prior is None:
        return ("The voters were built from the whole training part, as the papers do. Strictly, "
                "the PAC-Bayes theorems need the prior (uniform over the pool) chosen before "
                "seeing the sample they count; set a prior part in the sidebar (Split, noise, "
                "normalization) for bounds that hold as stated.")
    k = problem.X_prior.shape[0]
    return (f"The voters were built from a held-out prior part of {k} examples; the algorithm "
            f"learns on, and the bounds count, the other m = {m}. The price: m is {k + m} − {k}, "
            "so the bounds' deviation terms (∝ 1/√m) are larger and the voters saw fewer "
            "examples. The gain: the uniform prior does not depend on those m examples, as the "
            "theorems require.")


def explain_bounds(frame, t, delta):
    """The bound panel at iteration ``t`` of the run's records ``frame``, explained with its
    own numbers (``delta``: the bounds' confidence parameter)."""
    text = ("The empirical C-bound 1 − μ₁²/μ₂ (Bauvin et al. 2020, *Fast greedy C-bound "
            "minimization with guarantees*, Definition 7) upper-bounds the training error when "
            "μ₁ > 0 (Corollary 1). The four PAC-Bayes bounds bound the true risk of the majority "
            f"vote: {', '.join(bounds.PAC_BOUNDS.values())}. Each holds with probability at "
            f"least 1 − δ = {1 - delta:.3f} over the draw of the training sample; all "
            f"four together with probability at least 1 − 4δ = {1 - 4 * delta:.3f}.")
    if t < 2:
        return text
    now, first = frame.iloc[t - 1], frame.iloc[0]
    key, _ = bounds.tightest(now)
    lowest = int(frame[key].iloc[:t].to_numpy().argmin()) + 1
    if now["c_bound"] < first["c_bound"] and lowest < t:
        c0, c1 = fixed(first["c_bound"]), fixed(now["c_bound"])
        m0, m1 = fixed(first["mu1"]), fixed(now["mu1"])
        r0, r1 = fixed(first["gibbs_risk"]), fixed(now["gibbs_risk"])
        text += (f"\n\n**Why the bounds can rise while the C-bound falls.** From iteration 1 to "
                 f"{t} the C-bound fell from {c0} to {c1}, but the tightest bound here "
                 f"({bounds.PAC_BOUNDS[key]}) was lowest at iteration {lowest}. As the weight "
                 f"spreads over more voters, the mean of the normalized margin μ₁ fell from {m0} "
                 f"to {m1} (the Gibbs risk r = (1 − μ₁)/2 rose from {r0} to {r1}). "
                 "The C-bound is a ratio and does not mind a smaller μ₁ when μ₂ shrinks with it; "
                 "the PAC-Bayes bounds add deviation terms that do not shrink with μ₁. KL(Q‖P) "
                 f"went from {fixed(first['kl'], 2)} to {fixed(now['kl'], 2)} nats.")
    return text
