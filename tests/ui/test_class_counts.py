"""The class's numbers the dashboard and the reveal print: the share right per vote, the
answers changed between votes, and on how many samples each PAC-Bayes bound held."""
from datetime import datetime, timezone

from cbviz.bounds import PAC_BOUNDS
from cbviz.classroom import RunResult, Vote
from cbviz.lessons import Question
from cbviz.ui.class_live import is_right, tally
from cbviz.ui.class_student import held_counts, held_text

NOW = datetime.now(timezone.utc)
CHOICE = Question("Which?", choices=("a", "b"))
NUMBER = Question("How much?", low=0, high=1, step=0.01, tolerance=0.05)


def vote(student, rnd, value):
    return Vote(student=student, nickname=None, stage=1, round=rnd, value=value, right=None,
                at=NOW)


def run(student, **values):
    return RunResult(student=student, stage=1, seed=student, m=100, answer=None,
                     values=values)


def test_right_follows_the_reveal_rule():
    assert is_right(CHOICE, "a", "a") and not is_right(CHOICE, "b", "a")
    assert is_right(NUMBER, 0.30, "0.34") and not is_right(NUMBER, 0.30, "0.36")
    assert is_right(CHOICE, "a", None) is None


def test_tally_counts_each_round_against_each_students_own_answer():
    votes = [vote(1, 1, "a"), vote(2, 1, "a"), vote(3, 1, "b"),
             vote(1, 2, "b"), vote(2, 2, "a")]
    answers = {1: "b", 2: "a", 3: "b"}   # a sample per student: answers differ
    rounds, changed = tally(CHOICE, votes, answers)
    assert rounds[1] == (2, 3, 3)        # students 2 and 3 right
    assert rounds[2] == (2, 2, 2)        # both second votes right
    assert changed == 1                  # student 1 went from a to b


def test_a_bound_held_where_the_test_error_is_at_most_the_bound():
    results = [run(1, test_error=0.10, pac_bound=0.30, tandem_bound=0.05),
               run(2, test_error=0.20, pac_bound=0.15, tandem_bound=0.25),
               run(3, test_error=0.12, pac_bound=0.12)]
    rows = {name: (held, n) for name, held, n in held_counts(results)}
    assert rows == {PAC_BOUNDS["pac_bound"]: (2, 3), PAC_BOUNDS["tandem_bound"]: (1, 2)}
    text = held_text(results, 0.05)
    assert "held on **2 of 3** samples" in text and "δ × 3 = 0.15" in text
