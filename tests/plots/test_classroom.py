"""The class's figures (cbviz.plots.classroom): the bars count the votes, the right answer is
marked only when given, the class's runs hold every student's values and one's own."""

import numpy as np
import pytest
from helpers import check_valid

from cbviz.lessons import Question
from cbviz.plots.classroom import RUN_QUANTITIES, class_runs_figure, votes_figure

CHOICE = Question("Which?", choices=("alpha", "beta", "gamma"))
NUMBER = Question("How much?", low=0.0, high=1.0, step=0.01, tolerance=0.05)


def bars(fig):
    return [t for t in fig.data if t.type == "bar"]


def test_choice_votes_are_counted_per_choice_with_the_right_one_named():
    fig = votes_figure(CHOICE, ["alpha", "beta", "beta"], answers=["beta"])
    (bar,) = bars(fig)
    assert list(bar.x) == [1, 2, 0]
    assert list(bar.y) == ["alpha", "✓ right: beta", "gamma"]
    check_valid(fig)


def test_no_answer_is_named_before_it_is_revealed():
    fig = votes_figure(CHOICE, ["alpha"], answers=())
    assert not any("right" in str(y) for y in bars(fig)[0].y)


def test_first_and_second_vote_side_by_side():
    fig = votes_figure(CHOICE, ["alpha", "beta"], ["beta", "beta"])
    first, second = bars(fig)
    assert list(first.x) == [1, 1, 0] and list(second.x) == [0, 2, 0]
    assert first.name == "first vote (2)" and second.name == "second vote (2)"
    assert second.marker.pattern.shape == "/"   # not by colour alone


def test_numbers_fall_in_twenty_bins_over_the_range_with_a_line_at_the_answer():
    votes = [0.0, 0.01, 0.5, 0.51, 1.0]
    fig = votes_figure(NUMBER, votes, answers=[0.3])
    (bar,) = bars(fig)
    assert sum(bar.y) == len(votes) and len(bar.y) == 20
    assert bar.y[0] == 2 and bar.y[10] == 2 and bar.y[-1] == 1
    assert [s.x0 for s in fig.layout.shapes] == [0.3]
    check_valid(fig)


def test_the_class_runs_hold_every_value_and_your_run():
    rng = np.random.default_rng(0)
    results = [{"test_error": float(e), "pac_bound": float(e + 0.3), "c_bound": None}
               for e in rng.uniform(0.05, 0.2, size=12)]
    mine = {"test_error": 0.1, "pac_bound": 0.4}
    fig = class_runs_figure(results, mine)
    boxes = {t.name: list(t.y) for t in fig.data if t.type == "box"}
    assert boxes == {RUN_QUANTITIES["test_error"]: [r["test_error"] for r in results],
                     RUN_QUANTITIES["pac_bound"]: [r["pac_bound"] for r in results]}
    (own,) = [t for t in fig.data if t.type == "scatter"]
    assert list(own.y) == [0.1, 0.4] and own.name == "your run"
    assert "12 samples" in fig.layout.title.text
    check_valid(fig)


@pytest.mark.parametrize("large", [False, True])
def test_the_projector_sizes_are_larger(large):
    fig = votes_figure(CHOICE, ["alpha"], large=large)
    assert (fig.layout.font.size or 12) == (20 if large else 12)
