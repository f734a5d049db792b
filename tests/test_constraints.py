"""One vocabulary for the allowed values of a parameter (issue #27): every hyper-parameter of
every algorithm, declared once in its factory's ``_parameter_constraints``, is refused with the
one message at the factory, in a link and in a run file, with the same range; a value inside
is accepted in the three.  The cases are generated from the declarations (a new parameter is
covered without a new line here) and a few are written out by hand.
"""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from sklearn.datasets import make_moons

from cbviz import estimators
from cbviz.algorithms import ALGORITHMS, ParameterError, QPError, make_algorithm
from cbviz.algorithms import base as algorithms_base
from cbviz.app import FOLDER as APP
from cbviz.baselines import BASELINES, fit_baseline
from cbviz.constraints import Boolean, Interval, Options, refusal
from cbviz.constraints import ParameterError as BottomParameterError
from cbviz.data import DataError
from cbviz.ui.runs import read_json, read_link
from cbviz.problem import CONSTRAINTS as SETTINGS, LIMITS, Settings

STEP_PAGE = APP / "app_pages" / "step_through.py"   # the step page's script
MESSAGE = re.compile(r"^The '(?P<name>[^']+)' parameter of (?P<owner>.+?) must be (?P<range>.+)\. "
                     r"Got (?P<got>.+) instead\.$", re.S)


def parts(message, name, owner):
    """The range and the value of a refusal; fails unless it has the one format."""
    found = MESSAGE.match(str(message))
    assert found, message
    assert (found["name"], found["owner"]) == (name, owner), message
    return found["range"], found["got"]


# ------------------------------------------------------------------------------ the vocabulary

@pytest.mark.parametrize("constraint, words", [
    (Interval(float, 0, 1, closed="right"), "a float in (0, 1]"),
    (Interval(int, 1, 10000), "an int in [1, 10000]"),
    (Interval(int, 1, None, closed="left"), "an int in [1, inf)"),
    (Interval(float, None, 0, closed="neither"), "a float in (-inf, 0)"),
    (Interval(float, 1e-4, 1e6), "a float in [0.0001, 1000000]"),
    (Interval(int, 0, 5, none=True), "an int in [0, 5] or None"),
    (Options(("exhaustive", "gradient")), "one of 'exhaustive', 'gradient'"),
    (Options((None, "l1")), "one of None, 'l1'"),
    (Boolean(), "a bool"),
])
def test_each_constraint_says_what_it_allows(constraint, words):
    assert constraint.describe() == words


def test_one_message_and_one_exception_family():
    with pytest.raises(ParameterError) as caught:
        Interval(float, 0, 1, closed="right").check(2.0, "mu", "MinCq")
    assert str(caught.value) == "The 'mu' parameter of MinCq must be a float in (0, 1]. Got 2.0 instead."
    assert ParameterError is BottomParameterError is algorithms_base.ParameterError
    assert issubclass(ParameterError, ValueError) and issubclass(QPError, ParameterError)
    assert isinstance(refusal("x", "y", "z", 1), ParameterError)


@pytest.mark.parametrize("constraint, good, bad", [
    (Interval(float, 0, 1, closed="right"), [1, 1.0, 0.5, np.float32(0.25), 1e-300],
     [0, 0.0, -1, 1.0000001, math.nan, math.inf, True, np.bool_(True), "0.5", None, [0.5]]),
    (Interval(float, 0, 1, closed="neither"), [0.5], [0.0, 1.0]),
    (Interval(int, 1, None, closed="left"), [1, 10**30, np.int64(3)], [0, 1.0, 2.5, True, "3"]),
    (Interval(int, 0, None, closed="left", none=True), [None, 0], [-1, "none"]),
    (Options((None, "l1")), [None, "l1", np.str_("l1")], ["L1", "none", 1, ["l1"]]),
    (Boolean(), [True, False, np.bool_(False)], [1, 0, "true", None]),
])
def test_check_takes_the_values_inside_only(constraint, good, bad):
    for value in good:
        constraint.check(value, "p", "O")
    for value in bad:
        with pytest.raises(ParameterError, match=r"^The 'p' parameter of O must be "):
            constraint.check(value, "p", "O")


def test_check_converts_to_the_declared_type():
    assert type(Interval(float, 0, 1).check(1, "p", "O")) is float
    assert type(Interval(int, 0, 9).check(np.int64(3), "p", "O")) is int
    assert type(Boolean().check(np.bool_(True), "p", "O")) is bool


@pytest.mark.parametrize("constraint, text, value", [
    (Interval(float, 0, 1), "0.5", 0.5), (Interval(int, 1, 9), "9", 9),
    (Interval(int, 1, 9, none=True), "None", None), (Options((None, "l1")), "none", None),
    (Options((None, "l1")), "l1", "l1"), (Boolean(), "TRUE", True), (Boolean(), "false", False),
])
def test_parse_reads_link_text(constraint, text, value):
    assert constraint.parse(text, "p", "O") == value


@pytest.mark.parametrize("constraint, text", [
    (Interval(float, 0, 1), "abc"), (Interval(float, 0, 1), "nan"), (Interval(int, 1, 9), "2.5"),
    (Interval(int, 1, 9), "7" * 5000), (Interval(int, 1, 9), "none"), (Boolean(), "1"),
    (Options(("a",)), "b"),
])
def test_parse_refuses_text_it_cannot_read_with_the_same_message(constraint, text):
    with pytest.raises(ParameterError) as caught:
        constraint.parse(text, "p", "O")
    allowed, got = parts(caught.value, "p", "O")
    assert allowed == constraint.describe() and len(got) <= 62


# ------------------------------------------------------------------------------ the algorithms

def declared_params(key):
    """``(name, constraint, context)`` of every hyper-parameter of algorithm ``key`` that the
    app and the files know (its registry entries, ``max_iter`` where it iterates, ``delta``),
    with ``context`` the other values under which it is used."""
    spec = ALGORITHMS[key]
    out = [(p.name, spec.constraint(p.name), dict([(p.when[0], p.when[1][0])]) if p.when else {})
           for p in spec.params]
    out += [("max_iter", spec.constraint("max_iter"), {})] if spec.iterative else []
    return out + [("delta", spec.constraint("delta"), {})]


def outside(constraint):
    """Python values outside ``constraint`` (out of range and of another type), JSON-able."""
    if isinstance(constraint, Options):
        return ["sideways", 3.5]
    if isinstance(constraint, Boolean):
        return ["maybe", 2]
    values = ["abc"]
    low, high, closed = constraint.low, constraint.high, constraint.closed
    if low is not None:
        values.append(low if closed in ("right", "neither")
                      else (low / 2 if low > 0 and constraint.kind is float else low - 1))
    if high is not None:
        values.append(high if closed in ("left", "neither") else high * 2 + 1)
    return values + ([2.5] if constraint.kind is int else [])


def inside(constraint, default):
    """Python values inside ``constraint``: the default and the closed ends."""
    values = [default]
    if isinstance(constraint, Options):
        return values + list(constraint.choices)
    if isinstance(constraint, Boolean):
        return [True, False]
    if constraint.low is not None and constraint.closed in ("both", "left"):
        values.append(constraint.low)
    if constraint.high is not None and constraint.closed in ("both", "right"):
        values.append(constraint.high)
    return values


def as_text(value):
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def run_file(key, params=None, max_iter=5):
    return json.dumps({"cbviz": "step-through", "settings": {},
                       "run": {"algorithm": key, "params": params or {}, "max_iter": max_iter,
                               "iterations": 1}}).encode()


def at_factory(key, name, value, context):
    """The factory's refusal (``make_algorithm`` and the class itself agree)."""
    spec = ALGORITHMS[key]
    where = ({"max_iter": value} if name == "max_iter" else {"delta": value} if name == "delta"
             else {**context, name: value})
    with pytest.raises(ParameterError) as by_key:
        make_algorithm(key, **where)
    kwargs = {**context, name: value} if name in ("max_iter", "delta") else dict(where)
    with pytest.raises(ParameterError) as by_class:
        spec.factory(**kwargs)
    assert str(by_key.value) == str(by_class.value)
    return str(by_key.value)


def in_link(key, name, text, context):
    """The step page's refusal of a link's text (``delta`` is a data setting of the link)."""
    if name == "delta":
        _, ignored = Settings.from_link({"delta": text})
    else:
        config, ignored = read_link({"algorithm": key, **{k: as_text(v) for k, v in context.items()},
                                     name: text})
        assert config["algorithm"] == key
    assert len(ignored) == 1, ignored
    return ignored[0]


def in_run_file(key, name, value, context):
    """The step page's refusal of a run file's value (``delta``: the file's settings part)."""
    if name == "delta":
        with pytest.raises(DataError) as caught:
            Settings.from_dict({"delta": value})
        return str(caught.value)
    if name == "max_iter":
        raw = run_file(key, context, max_iter=value)
    else:
        raw = run_file(key, {**context, name: value})
    with pytest.raises(ValueError) as caught:
        read_json(raw)
    return str(caught.value)


CASES = [(key, name, constraint, context, value)
         for key in ALGORITHMS
         for name, constraint, context in declared_params(key)
         for value in outside(constraint)]


@pytest.mark.parametrize("key, name, constraint, context, value", CASES,
                         ids=[f"{c[0]}-{c[1]}={c[4]!r}" for c in CASES])
def test_a_value_outside_is_refused_alike_at_the_factory_in_a_link_and_in_a_run_file(
        key, name, constraint, context, value):
    owner = ALGORITHMS[key].factory.__name__
    factory_range, got = parts(at_factory(key, name, value, context), name, owner)
    assert factory_range == constraint.describe()
    if name == "delta":
        # delta is a data setting of links and files: the app's range, inside the factory's
        owner, expected = "the data settings", SETTINGS["delta"].describe()
    else:
        expected = factory_range
    link_range, link_got = parts(in_link(key, name, as_text(value), context), name, owner)
    file_range, file_got = parts(in_run_file(key, name, value, context), name, owner)
    assert link_range == file_range == expected
    assert file_got == got
    if not isinstance(value, bool):
        assert link_got in (got, repr(as_text(value)))


def test_the_data_settings_delta_is_inside_the_algorithms_delta():
    low, high = LIMITS["delta"]
    for key, spec in ALGORITHMS.items():
        for value in (low, high):
            spec.constraint("delta").check(value, "delta", key)


IN_CASES = [(key, name, constraint, context, value)
            for key in ALGORITHMS
            for name, constraint, context in declared_params(key)
            for value in inside(constraint, next((p.default for p in ALGORITHMS[key].params
                                                  if p.name == name), None)
                                if name not in ("max_iter", "delta") else
                                {"max_iter": 5, "delta": 0.05}[name])]


@pytest.mark.parametrize("key, name, constraint, context, value", IN_CASES,
                         ids=[f"{c[0]}-{c[1]}={c[4]!r}" for c in IN_CASES])
def test_a_value_inside_is_accepted_alike(key, name, constraint, context, value):
    if name == "max_iter":
        value = min(value, 5000)   # the step page's own cap
    where = {name: value} if name in ("max_iter", "delta") else {**context, name: value}
    make_algorithm(key, **where)
    if name == "delta":
        if SETTINGS["delta"].allows(value):
            assert Settings.from_link({"delta": as_text(value)})[0].delta == value
        return
    config, ignored = read_link({"algorithm": key, **{k: as_text(v) for k, v in where.items()}})
    assert not ignored
    assert (config[name] if name == "max_iter" else config["params"][name]) == value
    raw = (run_file(key, context, max_iter=value) if name == "max_iter"
           else run_file(key, where))
    _, run = read_json(raw)
    assert (run[name] if name == "max_iter" else run["params"][name]) == value


def test_every_hyper_parameter_of_every_algorithm_is_covered():
    covered = {(k, n) for k, n, *_ in CASES}
    for key, spec in ALGORITHMS.items():
        assert {(key, p.name) for p in spec.params} <= covered
        assert (key, "delta") in covered
        assert ((key, "max_iter") in covered) == spec.iterative
    assert len(CASES) > 60


def test_the_registry_takes_its_ranges_from_the_factories():
    for spec in ALGORITHMS.values():
        for p in spec.params:
            assert p.constraint is spec.factory._parameter_constraints[p.name]
            assert p.owner == spec.factory.__name__
            if p.kind not in ("int", "float"):
                assert p.choices == p.constraint.choices
            elif not p.shown:
                assert (p.low, p.high) == (p.constraint.low, p.constraint.high)
            else:   # a widget's display range: allowed values only, finite for a log scale
                for end in p.shown:
                    p.check(end)
                assert not p.log or 0 < p.low < p.high < math.inf


def test_a_link_value_beyond_the_widget_range_is_shown():
    """mu = 1e-6 is allowed (MinCq's (0, 1]) though the widget shows [1e-4, 1] by default."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(STEP_PAGE), default_timeout=60)
    at.query_params.update(algorithm="mincq", mu="1e-06", n_samples="60")
    at.run()
    assert not at.exception, at.exception
    assert not [w for w in at.warning if "Ignored" in w.value]
    assert at.number_input(key="hp_mincq_mu").value == 1e-6


# a few by hand, so that the generated cases cannot pass vacuously

@pytest.mark.parametrize("key, name, value, context, words, text, read", [
    ("mincq", "mu", 2.0, {}, "a float in (0, 1]", "2.0", "2.0"),
    ("cbboost", "direction", "sideways", {}, "one of 'exhaustive', 'gradient'", "sideways",
     "'sideways'"),
    ("quadboost", "lam", -1, {"regularization": "l1"}, "a float in (0, inf)", "-1", "-1.0"),
    ("klboost", "gamma", 0, {}, "a float in [0.0001, 10000]", "0", "0.0"),
    ("cqboost", "max_iter", 0, {}, "an int in [1, inf) or None", "0", "0"),  # None: no cap
    ("adaboost", "max_iter", 0, {}, "an int in [1, inf)", "0", "0"),   # T, a number
])
def test_by_hand(key, name, value, context, words, text, read):
    """``text``: the value in a link, ``read``: the value the link's text is read as."""
    owner = ALGORITHMS[key].factory.__name__
    expected = f"The {name!r} parameter of {owner} must be {words}. Got {{}} instead."
    assert at_factory(key, name, value, context) == expected.format(repr(value))
    assert in_run_file(key, name, value, context) == expected.format(repr(value))
    assert in_link(key, name, text, context) == expected.format(read)


def test_by_hand_delta():
    assert at_factory("adaboost", "delta", 0.0, {}) == (
        "The 'delta' parameter of AdaBoost must be a float in (0, 1]. Got 0.0 instead.")
    assert in_link("adaboost", "delta", "0", {}) == (
        "The 'delta' parameter of the data settings must be a float in [0.001, 1]. "
        "Got 0.0 instead.")


def test_unused_hyper_parameter_is_not_checked():
    """QuadBoost's lam is only read (and checked) by the L1 and L2 variants."""
    assert make_algorithm("quadboost", regularization=None, lam=-1.0).lam == 0.0


def test_the_page_cap_on_max_iter_names_the_page():
    message = in_run_file("cbboost", "max_iter", 5001, {})
    assert parts(message, "max_iter", "the step page") == ("an int in [1, 5000]", "5001")


# ------------------------------------------------------------------------------ the estimators

ESTIMATORS = [getattr(estimators, name) for name in estimators.__all__]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_estimators_use_their_factory_declarations(cls):
    params = set(cls().get_params(deep=False)) - {"pool"}
    declared = {**cls._factory._parameter_constraints,   # the factory's, and the weak learner's
                **{k: v for k, v in cls._learner_constraints.items() if k in params}}
    assert params <= set(declared)
    X, y = make_moons(40, random_state=0)
    spec = next((s for s in ALGORITHMS.values() if s.factory is cls._factory), None)
    when = {p.name: dict([(p.when[0], p.when[1][0])]) for p in spec.params if p.when}
    for name in sorted(params):
        constraint = declared[name]
        bad = outside(constraint)[-1]
        with pytest.raises(ParameterError) as caught:
            cls(**when.get(name, {}), **{name: bad}).fit(X, y)
        owner = cls.__name__ if name in cls._learner_constraints else cls._factory.__name__
        allowed, _ = parts(caught.value, name, owner)
        assert allowed == constraint.describe()


# ------------------------------------------------------------------------------ the baselines

BASELINE_CASES = [(key, p, value) for key, spec in BASELINES.items() for p in spec.params
                  for value in outside(p.constraint)]


@pytest.mark.parametrize("key, param, value", BASELINE_CASES,
                         ids=[f"{c[0]}-{c[1].name}={c[2]!r}" for c in BASELINE_CASES])
def test_baseline_parameters_are_refused_with_the_one_message(key, param, value):
    spec = BASELINES[key]
    with pytest.raises(ParameterError) as caught:
        spec.resolve({param.name: value})
    allowed, got = parts(caught.value, param.name, spec.display_name)
    assert allowed == param.constraint.describe() == param.range_text and got == repr(value)


def test_baseline_refusal_at_fit_and_its_seed():
    X, y = make_moons(40, random_state=0)
    with pytest.raises(ParameterError, match=r"^The 'n_estimators' parameter of Random forest "
                                             r"must be an int in \[1, 1000\]\. Got 0 instead\.$"):
        fit_baseline("random_forest", X, y, n_estimators=0)
    with pytest.raises(ParameterError, match=r"^The 'random_state' parameter of Random forest "
                                             r"must be an int in \[0, 4294967295\] or None\. "
                                             r"Got -1 instead\.$"):
        fit_baseline("random_forest", X, y, random_state=-1)


# ------------------------------------------------------------------------------ the data settings

SETTING_CASES = [(name, c, value) for name, c in SETTINGS.items() for value in outside(c)]


@pytest.mark.parametrize("name, constraint, value", SETTING_CASES,
                         ids=[f"{c[0]}={c[2]!r}" for c in SETTING_CASES])
def test_data_settings_are_refused_with_the_one_message(name, constraint, value):
    with pytest.raises(DataError) as direct:
        Settings(**{name: value})
    allowed, got = parts(direct.value, name, "the data settings")
    assert allowed == constraint.describe() and got == repr(value)
    with pytest.raises(DataError) as from_file:
        Settings.from_dict({name: value})
    _, ignored = Settings.from_link({name: as_text(value)})
    assert len(ignored) == 1
    assert parts(from_file.value, name, "the data settings")[0] == allowed
    assert parts(ignored[0], name, "the data settings")[0] == allowed


def test_the_sidebar_ranges_are_the_declarations():
    for name, (low, high) in LIMITS.items():
        assert (low, high) == (SETTINGS[name].low, SETTINGS[name].high)
