"""Checks of cbviz.bounds against the formula sheet in DESIGN.md.

Every reference value here is computed independently of the module under test: Gibbs
risk, disagreement and joint error straight from their definitions over voter pairs,
the binary-KL inversions with scipy.optimize.brentq, and xi(m) by summing its terms
with math.comb.  All random cases use fixed seeds.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from cbviz import bounds as B

TOL = 1e-9  # absolute tolerance for values that should agree exactly up to rounding


# --------------------------------------------------------------------------- helpers

def random_vote(rng, m=60, n=12, agree=0.65, zero_frac=0.3):
    """A random +-1 voter matrix correlated with the labels, and non-negative weights."""
    y = rng.choice([-1.0, 1.0], size=m)
    correct = rng.random((m, n)) < agree
    H = np.where(correct, y[:, None], -y[:, None])
    a = rng.exponential(size=n)
    a[rng.random(n) < zero_frac] = 0.0
    if a.sum() == 0:
        a[0] = 1.0
    return H, y, a


def definitional_risks(H, y, a):
    """r, d, e straight from their definitions (no margins involved)."""
    Q = a / a.sum()
    wrong = (H != y[:, None]).astype(float)                      # m x n: [h_k(x) != y]
    r = float(np.sum(Q * wrong.mean(axis=0)))
    differ = (H[:, :, None] != H[:, None, :]).astype(float)      # m x n x n
    d = float(np.mean(np.einsum("k,l,ikl->i", Q, Q, differ)))
    both = wrong[:, :, None] * wrong[:, None, :]                 # m x n x n
    e = float(np.mean(np.einsum("k,l,ikl->i", Q, Q, both)))
    return r, d, e


def my_kl(q, p):
    """Binary KL divergence with 0 ln 0 = 0, written out for the checks."""
    out = 0.0
    if q > 0:
        out += q * math.log(q / p)
    if q < 1:
        out += (1 - q) * math.log((1 - q) / (1 - p))
    return out


def my_kl_sup(q, b):
    """The largest p in [q, 1] with kl(q||p) <= b, by brentq."""
    if b <= 0 or q >= 1:
        return q
    if my_kl(q, 1.0 - 1e-15) <= b:   # root closer to 1 than we can resolve
        return 1.0
    return brentq(lambda p: my_kl(q, p) - b, q, 1.0 - 1e-15, xtol=1e-15, rtol=1e-15, maxiter=500)


def my_kl_inf(q, b):
    """The smallest p in (0, q] with kl(q||p) = b, by brentq."""
    if b <= 0 or q == 0:
        return q
    lo = 1e-300
    if my_kl(q, lo) <= b:
        return 0.0
    return brentq(lambda p: my_kl(q, p) - b, lo, q, xtol=1e-15, rtol=1e-15, maxiter=500)


def my_xi(m):
    """xi(m) = sum_k C(m,k) (k/m)^k (1 - k/m)^(m-k), plain summation (0**0 == 1)."""
    return sum(math.comb(m, k) * (k / m) ** k * (1 - k / m) ** (m - k) for k in range(m + 1))


def my_c_bound(r, d):
    mu1, mu2 = 1 - 2 * r, 1 - 2 * d
    if mu1 <= 0 or mu2 <= 0:
        return 1.0
    return 1 - mu1**2 / mu2


# --------------------------------------------------------------------------- C-bound forms

@pytest.mark.parametrize("seed", range(25))
def test_c_bound_three_forms_agree_on_random_votes(seed):
    rng = np.random.default_rng(seed)
    H, y, a = random_vote(rng, agree=rng.uniform(0.4, 0.8))
    M = B.margins(H @ a, y, a.sum())
    mu1, mu2 = B.moments(M)
    r, d, e = B.gibbs_risk(M), B.disagreement(M), B.joint_error(M)
    c_mom = B.c_bound(mu1, mu2)
    c_rd = B.c_bound_from_risks(r, d)
    c_joint = B.c_bound_joint(e, r)
    assert abs(c_mom - c_rd) <= TOL, (c_mom, c_rd)
    assert abs(c_mom - c_joint) <= TOL, (c_mom, c_joint)
    # the scale-free gamma/nu form of DESIGN.md on the unnormalized vote F = H a
    F = H @ a
    if mu1 > 0:
        assert abs(c_mom - (1 - np.mean(y * F) ** 2 / np.mean(F * F))) <= TOL
    else:
        assert c_mom == 1.0


def test_margins_and_moments_definitions():
    rng = np.random.default_rng(7)
    H, y, a = random_vote(rng)
    F = H @ a
    M = B.margins(F, y, a.sum())
    np.testing.assert_allclose(M, y * F / a.sum(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(B.margins(F / a.sum(), y), M, rtol=0, atol=1e-12)
    mu1, mu2 = B.moments(M)
    assert abs(mu1 - sum(M) / len(M)) <= 1e-12
    assert abs(mu2 - sum(x * x for x in M) / len(M)) <= 1e-12


@pytest.mark.parametrize("seed", range(20))
def test_moment_identities_against_definitional_risks(seed):
    rng = np.random.default_rng(100 + seed)
    H, y, a = random_vote(rng, m=40, n=9, agree=rng.uniform(0.3, 0.9))
    r, d, e = definitional_risks(H, y, a)
    M = B.margins(H @ a, y, a.sum())
    mu1, mu2 = B.moments(M)
    assert abs(mu1 - (1 - 2 * r)) <= TOL, (mu1, r)
    assert abs(mu2 - (1 - 2 * d)) <= TOL, (mu2, d)
    assert abs(B.gibbs_risk(M) - r) <= TOL
    assert abs(B.disagreement(M) - d) <= TOL
    assert abs(B.joint_error(M) - e) <= TOL, (B.joint_error(M), e)
    assert abs(e - (r - d / 2)) <= TOL, (e, r, d)


def test_c_bound_dominates_majority_vote_training_error():
    rng = np.random.default_rng(2024)
    checked = 0
    for _ in range(400):
        m, n = int(rng.integers(5, 80)), int(rng.integers(1, 25))
        H, y, a = random_vote(rng, m=m, n=n, agree=rng.uniform(0.35, 0.9),
                              zero_frac=rng.uniform(0, 0.6))
        F = H @ a
        M = B.margins(F, y, a.sum())
        mu1, mu2 = B.moments(M)
        if mu1 <= 0:
            continue
        err = np.mean(y * F <= 0)   # ties counted as errors: the C-bound still holds
        assert B.c_bound(mu1, mu2) >= err - 1e-12, (m, n, err, mu1, mu2)
        checked += 1
    assert checked >= 200, checked


def test_c_bound_edge_cases():
    assert B.c_bound(0.0, 0.5) == 1.0
    assert B.c_bound(-0.3, 0.5) == 1.0
    assert B.c_bound_from_risks(0.5, 0.2) == 1.0
    assert B.c_bound_from_risks(0.7, 0.2) == 1.0
    assert B.c_bound_joint(0.1, 0.5) == 1.0
    assert B.c_bound_joint(0.3, 0.6) == 1.0
    # a perfect unanimous vote: every margin 1
    assert abs(B.c_bound(1.0, 1.0)) <= 1e-15
    # vectorized
    out = B.c_bound(np.array([0.6, -0.1, 0.0]), np.array([0.4, 0.3, 0.2]))
    np.testing.assert_allclose(out, [1 - 0.36 / 0.4, 1.0, 1.0], rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- zero first moment

ROUNDOFF = 64 * np.finfo(float).eps   # the documented threshold, relative to the vote's scale


def test_uniform_vote_over_a_self_complemented_pool_has_c_bound_one():
    """The README's quick start: the uniform vote over 10-threshold stumps with their
    complements is identically 0 (h + (-h) = 0); its first moment is round-off and its
    C-bound is exactly 1 (the raw ratio of the two round-off moments printed 0.9669)."""
    from cbviz.data import load_dataset, prepare
    from cbviz.voters import StumpPool
    split = prepare(load_dataset("breast_cancer"), train_ratio=0.7, seed=0)
    pool = StumpPool(n_thresholds=10).fit(split.X_train)
    H = pool.transform(split.X_train)
    assert pool.operator(split.X_train).is_self_complemented()
    q = np.full(H.shape[1], 1.0 / H.shape[1])
    M = B.margins(H @ q, split.y_train)
    assert np.max(np.abs(M)) <= ROUNDOFF            # the vote is zero up to round-off
    mu1, mu2 = B.moments(M)
    assert mu1 == 0.0 and mu2 <= ROUNDOFF**2
    assert B.c_bound(mu1, mu2) == 1.0
    assert B.c_bound(float(np.mean(M)), mu2) == 1.0  # the raw mean too
    r, d, e = B.gibbs_risk(M), B.disagreement(M), B.joint_error(M)
    assert B.c_bound_from_risks(r, d) == 1.0 and B.c_bound_joint(e, r) == 1.0
    panel = B.bound_panel(M, B.kl_uniform(q))
    assert panel["mu1"] == 0.0 and panel["c_bound"] == 1.0 and panel["pac_bound"] == 1.0
    # the moments this machine's README run printed 0.9669 from
    assert B.c_bound(1.0547816110210737e-17, 3.3600330523904266e-33) == 1.0
    # a genuinely tiny vote on top of the zero one keeps its C-bound: 1e-9 on the best voter
    gamma = H.T @ split.y_train / H.shape[0]
    k = int(np.argmax(gamma))
    a = q.copy()
    a[k] += 1e-9
    M = B.margins(H @ a, split.y_train, a.sum())
    mu1, mu2 = B.moments(M)
    assert mu1 > 1e4 * ROUNDOFF
    assert B.c_bound(mu1, mu2) == pytest.approx(1.0 - gamma[k] ** 2, abs=1e-6)


def test_round_off_threshold_of_the_first_moment():
    # at or below the threshold (relative to the vote's scale): zero, so C = 1
    for mu1 in (ROUNDOFF, 0.5 * ROUNDOFF, -0.5 * ROUNDOFF, 1e-17):
        assert B.c_bound(mu1, 1e-33) == 1.0
    # just above it, and far above it while still tiny: kept
    assert B.c_bound(2 * ROUNDOFF, 8 * ROUNDOFF**2) == pytest.approx(0.5, rel=1e-12)
    assert B.c_bound(1e-9, 1e-17) == pytest.approx(0.9, rel=1e-12)
    # unnormalized moments: the threshold scales with the vote's scale (its weight sum for
    # +-1 voters)
    assert B.c_bound(1e-13, 1e-20) == pytest.approx(1.0 - 1e-6, abs=1e-15)
    assert B.c_bound(1e-13, 1e-20, scale=1e3) == 1.0
    assert B.c_bound(1e3 * 0.6, 1e6 * 0.4, scale=1e3) == pytest.approx(1 - 0.36 / 0.4, abs=1e-12)
    out = B.c_bound(np.array([1e-13, 1e-13, 0.6]), np.array([1e-20, 1e-20, 0.4]),
                    scale=np.array([1.0, 1e3, 1.0]))
    np.testing.assert_allclose(out, [1.0 - 1e-6, 1.0, 1 - 0.36 / 0.4], rtol=0, atol=1e-12)
    # moments: a round-off mean is returned as exactly 0, a tiny genuine one is not
    assert B.moments(np.array([3e-17, -1e-17, 2e-16]))[0] == 0.0
    assert B.moments(np.array([1e-9, 3e-9]))[0] == pytest.approx(2e-9, rel=1e-12)
    # the joint-error form: r = 1/2 up to round-off means mu1 = 0; a small mu1 is kept
    assert B.c_bound_joint(0.25, 0.5 - 1e-17) == 1.0
    r = 0.5 - 5e-5                                     # mu1 = 1e-4
    e = r - (1 - 1e-7) / 4                             # e = r - d/2 with mu2 = 1e-7
    assert B.c_bound_joint(e, r) == pytest.approx(0.9, abs=1e-6)


def test_vote_scale_definition():
    """``sum_k a_k rms(h_k)``: the weight sum for +-1 voters, scaled with the outputs, and an
    upper bound of ``mean_i sum_k a_k |h_k(x_i)|``."""
    rng = np.random.default_rng(5)
    H, y, a = random_vote(rng)
    m = H.shape[0]
    assert B.vote_scale(a, np.sum(H * H, axis=0), m) == pytest.approx(a.sum(), rel=1e-15)
    R = H * rng.uniform(0.0, 1.0, size=H.shape)          # real outputs in [-1, 1]
    ref = sum(a[k] * math.sqrt(np.mean(R[:, k] ** 2)) for k in range(a.size))
    scale = B.vote_scale(a, np.sum(R * R, axis=0), m)
    assert scale == pytest.approx(ref, rel=1e-14)
    assert np.mean(np.abs(R) @ a) <= scale
    assert B.vote_scale(a, np.sum(R * R, axis=0) * 2.0**-100, m) == math.ldexp(scale, -50)


def random_c_bound_case(rng, s):
    """Margins of a random +-1 vote (first moment > 0) scaled by ``s``, with their scale."""
    while True:
        H, y, a = random_vote(rng, m=50, n=8, agree=0.7)
        M = B.margins(H @ a, y, a.sum())
        if M.mean() > 0.05:
            return M * s, s, 1.0 - M.mean() ** 2 / np.mean(M * M)


@pytest.mark.parametrize("s", [1.0, 1e-14, 1e-100, 1e-170, 2.0**-700, 1e-300])
def test_c_bound_is_invariant_to_the_scale_of_the_outputs(s):
    """Voters with outputs scaled by s: margins and vote scale both scale by s, so the first
    moment is kept (not round-off: it used to be zeroed below the absolute 64 eps, C = 1) and
    the C-bound is that of the unscaled vote: to 1e-12 relative, exactly for a power of two
    (the second moment underflows to 0 below ~1e-162; the C-bound does not)."""
    rng = np.random.default_rng(11)
    for _ in range(10):
        M, scale, ref = random_c_bound_case(rng, s)
        mu1, mu2 = B.moments(M, scale)
        assert mu1 == float(np.mean(M)) and mu1 > 0
        c = B.c_bound_of_margins(M, scale)
        assert c == pytest.approx(ref, rel=1e-12)
        panel = B.bound_panel(M, 1.0, scale=scale)
        assert panel["c_bound"] == c and panel["mu1"] == mu1 and panel["mu2"] == mu2
        if math.frexp(s)[0] == 0.5:
            assert c == B.c_bound_of_margins(M / s)


@pytest.mark.parametrize("s", [1.0, 1e-14, 1e-100])
def test_round_off_first_moment_at_any_scale(s):
    """The uniform vote over a self-complemented pool [A, -A] is zero up to round-off at any
    scale of the outputs (down to ~1e-154, where the squares in vote_scale underflow):
    relative to its scale, its first moment is 0 and its C-bound 1."""
    rng = np.random.default_rng(3)
    A = rng.uniform(-1.0, 1.0, size=(40, 7)) * s
    H = np.hstack([A, -A])
    y = rng.choice([-1.0, 1.0], size=40)
    q = np.full(14, 1.0 / 14.0)
    M = B.margins(H @ q, y)
    scale = B.vote_scale(q, np.sum(H * H, axis=0), 40)
    assert B.moments(M, scale)[0] == 0.0
    assert B.c_bound_of_margins(M, scale) == 1.0
    assert B.bound_panel(M, 0.0, scale=scale)["c_bound"] == 1.0


def test_c_bound_of_margins_degenerate_cases():
    """All-zero margins, a non-positive first moment: C = 1, as documented."""
    assert B.c_bound_of_margins(np.zeros(5)) == 1.0
    assert B.c_bound_of_margins(np.array([0.0, -0.0])) == 1.0
    assert B.c_bound_of_margins(np.array([0.3, -0.3])) == 1.0
    assert B.c_bound_of_margins(np.array([0.1, -0.5, 0.2])) == 1.0
    assert B.c_bound_of_margins(np.array([1e-300, -3e-300])) == 1.0
    assert B.c_bound_of_margins(np.array([0.5, 0.5])) == 0.0
    assert B.c_bound_of_margins(np.array([0.6, 0.2])) == pytest.approx(1 - 0.16 / 0.2, rel=1e-14)


# --------------------------------------------------------------------------- KL

def test_kl_uniform_values():
    n = 7
    assert abs(B.kl_uniform(np.eye(n)[3] * 2.5) - math.log(n)) <= 1e-12   # Dirac Q
    assert abs(B.kl_uniform(np.ones(n))) <= 1e-12                        # uniform Q
    rng = np.random.default_rng(3)
    a = rng.exponential(size=n)
    a[[1, 4]] = 0.0
    Q = a / a.sum()
    ref = sum(q * math.log(q * n) for q in Q if q > 0)
    assert abs(B.kl_uniform(a) - ref) <= 1e-12
    for scale in (1e-6, 0.37, 12.0, 1e8):
        assert abs(B.kl_uniform(scale * a) - B.kl_uniform(a)) <= 1e-12
    # only the non-zero weights, with the pool size given
    assert abs(B.kl_uniform(a[a > 0], n=n) - ref) <= 1e-12
    assert abs(B.kl_uniform([4.0], n=50) - math.log(50)) <= 1e-12
    assert abs(B.kl_uniform(np.ones(50), n=50)) <= 1e-12


def test_kl_binary_values_and_vectorized():
    qs = [0.0, 0.1, 0.3, 0.5, 0.9, 1.0]
    ps = [0.05, 0.2, 0.5, 0.7, 0.99]
    for q in qs:
        for p in ps:
            assert abs(B.kl_binary(q, p) - my_kl(q, p)) <= 1e-12, (q, p)
    Q, P = np.meshgrid(qs, ps)
    ref = np.vectorize(my_kl)(Q, P)
    np.testing.assert_allclose(B.kl_binary(Q, P), ref, rtol=0, atol=1e-12)
    assert abs(B.kl_binary(0.3, 0.3)) <= 1e-15


@pytest.mark.parametrize("q", [0.0, 0.01, 0.1, 0.25, 0.5, 0.8, 0.97])
@pytest.mark.parametrize("b", [1e-4, 0.01, 0.1, 0.5, 2.0])
def test_kl_inversions_invert_kl(q, b):
    up = B.kl_sup(q, b)
    low = B.kl_inf(q, b)
    assert low - 1e-15 <= q <= up + 1e-15, (low, q, up)
    assert abs(up - my_kl_sup(q, b)) <= TOL, (up, my_kl_sup(q, b))
    if 0 < up < 1 - 1e-9:
        assert abs(B.kl_binary(q, up) - b) <= TOL
    if q > 0:
        assert abs(low - my_kl_inf(q, b)) <= TOL, (low, my_kl_inf(q, b))
        if low > 1e-12:
            assert abs(B.kl_binary(q, low) - b) <= TOL


def test_kl_inversion_edges_and_vectorized():
    for b in (0.01, 0.3, 2.0):
        assert abs(B.kl_sup(0.0, b) - (1 - math.exp(-b))) <= TOL   # kl(0||p) = -ln(1-p)
        assert B.kl_inf(0.0, b) == 0.0
        assert B.kl_sup(1.0, b) == 1.0
        assert abs(B.kl_inf(1.0, b) - math.exp(-b)) <= TOL         # kl(1||p) = -ln p
    # zero budget: no room.  kl(q||p) ~ (p-q)^2 / (2q(1-q)) is flat at p = q, so rounding
    # in kl_binary limits any inversion at b = 0 to ~sqrt(machine eps); hence 1e-7 here.
    for q in (0.0, 0.2, 0.6, 1.0):
        assert abs(B.kl_sup(q, 0.0) - q) <= 1e-7
        assert abs(B.kl_inf(q, 0.0) - q) <= 1e-7
    q = np.array([0.0, 0.05, 0.3, 0.6, 1.0])
    b = np.array([0.2, 0.01, 0.5, 0.05, 0.3])
    up, low = B.kl_sup(q, b), B.kl_inf(q, b)
    assert up.shape == low.shape == q.shape
    np.testing.assert_allclose(up, [B.kl_sup(qi, bi) for qi, bi in zip(q, b)], rtol=0, atol=1e-12)
    np.testing.assert_allclose(low, [B.kl_inf(qi, bi) for qi, bi in zip(q, b)], rtol=0, atol=1e-12)
    np.testing.assert_allclose(up, [my_kl_sup(qi, bi) for qi, bi in zip(q, b)], rtol=0, atol=TOL)
    # scalar q, vector budget
    bb = np.array([0.0, 0.01, 0.1, 1.0])
    np.testing.assert_allclose(B.kl_sup(0.2, bb), [my_kl_sup(0.2, x) for x in bb], rtol=0, atol=1e-7)
    assert np.all(np.diff(B.kl_sup(0.2, bb)) > 0) and np.all(np.diff(B.kl_inf(0.2, bb)) < 0)


# --------------------------------------------------------------------------- xi(m)

@pytest.mark.parametrize("m", list(range(1, 41)) + [60, 100])
def test_log_xi_against_direct_sum(m):
    assert abs(B.log_xi(m) - math.log(my_xi(m))) <= TOL, (m, B.log_xi(m), math.log(my_xi(m)))


@pytest.mark.parametrize("m", [1, 2, 3, 8, 30, 100, 1000, 10_000, 250_000])
def test_xi_between_sqrt_m_and_twice_sqrt_m(m):
    xi = math.exp(B.log_xi(m))
    assert math.sqrt(m) - 1e-9 <= xi <= 2 * math.sqrt(m) + 1e-9, (m, xi)


# --------------------------------------------------------------------------- bounds by hand

# (m, KL, delta, r, d): e = r - d/2, mu1 = 1 - 2r, mu2 = 1 - 2d
HAND_CASES = [
    (100, 0.7, 0.05, 0.2, 0.3),
    (30, 0.7, 0.05, 0.2, 0.3),
    (30, 0.0, 0.1, 0.1, 0.15),
    (100, 2.5, 0.01, 0.05, 0.09),
    (60, 0.2, 1.0, 0.3, 0.4),
]


@pytest.mark.parametrize("m, kl, delta, r, d", HAND_CASES)
def test_bounds_recomputed_by_hand(m, kl, delta, r, d):
    e = r - d / 2
    mu1, mu2 = 1 - 2 * r, 1 - 2 * d
    xi = my_xi(m)

    # first-order bound (PAC-Bound 0)
    ref_first = 2 * min(0.5, my_kl_sup(r, (kl + math.log(xi / delta)) / m))
    assert abs(B.first_order_bound(r, kl, m, delta) - ref_first) <= TOL

    # PAC-Bound 1 (Germain et al. 2015): kl-inverted C-bound
    R = min(0.5, my_kl_sup(r, (kl + math.log(2 * xi / delta)) / m))
    D = my_kl_inf(d, (2 * kl + math.log(2 * xi / delta)) / m)
    ref_pb1 = min(1.0, my_c_bound(R, D))
    assert abs(B.pac_bound_1(r, d, kl, m, delta) - ref_pb1) <= TOL

    # Roy et al. (2016) Theorem 2
    eps1 = math.sqrt(2 / m * (kl + math.log(2 * math.sqrt(m) / (delta / 2))))
    eps2 = math.sqrt(2 / m * (2 * kl + math.log(2 * math.sqrt(m) / (delta / 2))))
    ref_pac = 1 - max(0.0, mu1 - eps1) ** 2 / min(1.0, mu2 + eps2)
    assert abs(B.cqboost_c_bound(mu1, mu2, kl, m, delta) - ref_pac) <= TOL

    # tandem bound (Masegosa et al. 2020)
    ref_tandem = 4 * min(0.25, my_kl_sup(e, (2 * kl + math.log(2 * math.sqrt(m) / delta)) / m))
    assert abs(B.tandem_bound(e, kl, m, delta) - ref_tandem) <= TOL


def test_first_case_numbers_are_not_trivial():
    """The headline hand case lands strictly inside (0, 1) for every bound, so it tests something."""
    m, kl, delta, r, d = HAND_CASES[0]
    values = [B.first_order_bound(r, kl, m, delta), B.pac_bound_1(r, d, kl, m, delta),
              B.cqboost_c_bound(1 - 2 * r, 1 - 2 * d, kl, m, delta),
              B.tandem_bound(r - d / 2, kl, m, delta)]
    assert all(0.0 < v < 1.0 for v in values), values
    # a number pinned once by hand (m=100, KL=0.7, delta=0.05, mu1=0.6, mu2=0.4):
    # log term = ln(80 sqrt(100)) = ln 800; eps1 = sqrt(0.02 (0.7 + ln 800)),
    # eps2 = sqrt(0.02 (1.4 + ln 800)); bound = 1 - (0.6 - eps1)^2 / (0.4 + eps2)
    ln800 = 6.684611727667927
    eps1, eps2 = math.sqrt(0.02 * (0.7 + ln800)), math.sqrt(0.02 * (1.4 + ln800))
    assert abs(values[2] - (1 - (0.6 - eps1) ** 2 / (0.4 + eps2))) <= TOL


def test_bound_panel_matches_the_single_functions():
    rng = np.random.default_rng(11)
    H, y, a = random_vote(rng, m=150, n=20, agree=0.75)
    M = B.margins(H @ a, y, a.sum())
    kl = B.kl_uniform(a)
    panel = B.bound_panel(M, kl, delta=0.1)
    r, d, e = definitional_risks(H, y, a)
    m = len(M)
    assert abs(panel["gibbs_risk"] - r) <= TOL
    assert abs(panel["disagreement"] - d) <= TOL
    assert abs(panel["joint_error"] - e) <= TOL
    assert abs(panel["mu1"] - (1 - 2 * r)) <= TOL
    assert abs(panel["mu2"] - (1 - 2 * d)) <= TOL
    assert abs(panel["c_bound"] - my_c_bound(r, d)) <= TOL
    assert abs(panel["first_order_bound"] - B.first_order_bound(r, kl, m, 0.1)) <= TOL
    assert abs(panel["pac_bound_1"] - B.pac_bound_1(r, d, kl, m, 0.1)) <= TOL
    assert abs(panel["pac_bound"] - B.cqboost_c_bound(1 - 2 * r, 1 - 2 * d, kl, m, 0.1)) <= TOL
    assert abs(panel["tandem_bound"] - B.tandem_bound(e, kl, m, 0.1)) <= TOL


# --------------------------------------------------------------------------- orderings

PANEL_KEYS = {"mu1", "mu2", "gibbs_risk", "disagreement", "joint_error", "c_bound",
              "first_order_bound", "pac_bound_1", "pac_bound", "tandem_bound"}
BOUND_KEYS = ["c_bound", "first_order_bound", "pac_bound_1", "pac_bound", "tandem_bound"]


def test_bound_orderings_on_random_votes():
    rng = np.random.default_rng(77)
    for _ in range(150):
        m, n = int(rng.integers(10, 400)), int(rng.integers(2, 30))
        H, y, a = random_vote(rng, m=m, n=n, agree=rng.uniform(0.3, 0.95),
                              zero_frac=rng.uniform(0, 0.7))
        M = B.margins(H @ a, y, a.sum())
        kl = B.kl_uniform(a)
        delta = float(rng.choice([0.01, 0.05, 0.2, 1.0]))
        p = B.bound_panel(M, kl, delta)
        assert set(p) == PANEL_KEYS
        for k in BOUND_KEYS:
            assert -1e-12 <= p[k] <= 1 + 1e-12, (k, p[k])
        assert p["pac_bound"] >= p["c_bound"] - 1e-12
        assert p["pac_bound_1"] >= p["c_bound"] - 1e-12
        if p["gibbs_risk"] <= 0.5:
            assert p["first_order_bound"] >= 2 * p["gibbs_risk"] - 1e-12
        if p["joint_error"] <= 0.25:
            assert p["tandem_bound"] >= 4 * p["joint_error"] - 1e-12


# a case where every bound sits strictly below 1, so monotonicity is strict
MONO = dict(r=0.1, d=0.15, kl=1.0, m=2000, delta=0.05)


def _four_bounds(r, d, kl, m, delta):
    e = r - d / 2
    return np.array([B.first_order_bound(r, kl, m, delta), B.pac_bound_1(r, d, kl, m, delta),
                     B.cqboost_c_bound(1 - 2 * r, 1 - 2 * d, kl, m, delta),
                     B.tandem_bound(e, kl, m, delta)])


def test_bounds_grow_as_delta_shrinks():
    vals = np.array([_four_bounds(**{**MONO, "delta": dl}) for dl in (1.0, 0.5, 0.1, 0.05, 0.01, 1e-4)])
    assert np.all(vals < 1), vals
    assert np.all(np.diff(vals, axis=0) > 0), vals


def test_bounds_grow_with_kl():
    vals = np.array([_four_bounds(**{**MONO, "kl": k}) for k in (0.0, 0.5, 2.0, 5.0, 20.0)])
    assert np.all(vals < 1), vals
    assert np.all(np.diff(vals, axis=0) > 0), vals


def test_bounds_shrink_as_m_grows():
    vals = np.array([_four_bounds(**{**MONO, "m": mm}) for mm in (500, 1000, 2000, 10_000, 100_000)])
    assert np.all(vals < 1), vals
    assert np.all(np.diff(vals, axis=0) < 0), vals
    # and they approach their empirical counterparts
    r, d = MONO["r"], MONO["d"]
    big = _four_bounds(r, d, MONO["kl"], 10**6, MONO["delta"])
    np.testing.assert_allclose(big, [2 * r, my_c_bound(r, d), my_c_bound(r, d), 4 * (r - d / 2)],
                               rtol=0, atol=0.03)


def test_bounds_saturate_at_one_when_vacuous():
    assert B.first_order_bound(0.45, 50.0, 30, 0.05) == 1.0
    assert B.tandem_bound(0.2, 50.0, 30, 0.05) == 1.0
    assert B.cqboost_c_bound(0.1, 0.5, 5.0, 30, 0.05) == 1.0   # mu1 - eps1 < 0
    assert B.pac_bound_1(0.45, 0.2, 50.0, 30, 0.05) == 1.0


# --------------------------------------------------------------------------- bound_panel input

@pytest.mark.parametrize("delta", [0.0, -0.1, 1.0000001, 2.0, float("nan")])
def test_bound_panel_rejects_bad_delta(delta):
    with pytest.raises(ValueError):
        B.bound_panel(np.array([0.5, 0.2, 1.0]), 0.3, delta)


def test_bound_panel_accepts_delta_one_and_returns_all_keys():
    p = B.bound_panel(np.array([0.5, 0.2, 1.0, -0.4]), 0.3, 1.0)
    assert set(p) == PANEL_KEYS
    assert all(isinstance(v, float) and math.isfinite(v) for v in p.values())


def test_tightest_phrase_names_the_bound_or_says_all_are_vacuous():
    values = {"pac_bound": 0.9, "first_order_bound": 0.4, "pac_bound_1": 0.7,
              "tandem_bound": 0.5}
    assert B.tightest_phrase(values) == (
        f"tightest PAC-Bayes bound: {B.PAC_BOUNDS['first_order_bound']} = 0.4000")
    vacuous = dict.fromkeys(values, 1.0)
    assert "all four are vacuous" in B.tightest_phrase(vacuous)
