"""Hostile matrices and parameters: refused with a message that names what is wrong."""
import numpy as np
import pytest

from cbviz.algorithms import ALGORITHMS, ParameterError


def _H(value, k=3):
    rng = np.random.default_rng(0)
    y = rng.choice([-1.0, 1.0], 30)
    H = np.where(rng.random((30, 8)) < 0.7, y[:, None], -y[:, None])
    H = np.hstack([H, -H])
    if value is not None:
        H[5, k] = value
    return H, y


@pytest.mark.parametrize("key", sorted(ALGORITHMS))
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1.5, -3.0])
def test_voter_outputs_outside_the_unit_interval_are_refused(key, value):
    H, y = _H(value)
    with pytest.raises(ParameterError, match=r"H column 3: voter outputs must be finite"):
        ALGORITHMS[key].make(max_iter=5).start(H, y)


def test_test_matrix_is_checked_too():
    H, y = _H(0.5)
    Ht, _ = _H(np.nan, k=9)
    with pytest.raises(ParameterError, match=r"H_test column 9"):
        ALGORITHMS["cbboost"].make().start(H, y, Ht, y)


@pytest.mark.parametrize("key", sorted(ALGORITHMS))
def test_numpy_scalars_are_accepted_for_every_hyper_parameter(key):
    spec = ALGORITHMS[key]
    numeric = {p.name: np.float32(p.default) if p.kind == "float" else np.int64(p.default)
               for p in spec.params if p.kind in ("float", "int")}
    algo = spec.make(max_iter=np.int64(3), delta=np.float32(0.05), **numeric)
    H, y = _H(None)
    run = algo.start(H, y).run()
    assert run.stop_reason


@pytest.mark.parametrize("delta", [0.0, 1.5, np.nan, True, "0.05"])
def test_bad_delta_names_itself(delta):
    with pytest.raises(ParameterError, match=r"^The 'delta' parameter of AdaBoost must be a float "
                                             r"in \(0, 1\]\. Got .* instead\.$"):
        ALGORITHMS["adaboost"].make(delta=delta)


@pytest.mark.parametrize("value", ["abc", [1, 2], None, np.array([0.5, 0.5]), float("nan"),
                                   "x" * 10_000])
def test_a_hyper_parameter_of_the_wrong_type_gets_a_message_not_a_traceback(value):
    """Every parameter of the registry refuses values of the wrong type with ParameterError,
    echoing at most 40 characters of the value."""
    for spec in ALGORITHMS.values():
        for p in spec.params:
            if p.kind == "choice" and value is None and None in p.choices:
                continue
            with pytest.raises(ParameterError, match=p.name) as info:
                p.check(value)
            assert len(str(info.value)) < len(p.name) + 200
