"""The students' side of the class store (cbviz.classroom._student), on SQLite and PostgreSQL."""
import pytest

from cbviz.classroom import AnswerRefused, ClassClosed, NotAllowed, RESULT_FIELDS, Student


def test_students_join_numbered_in_order(db, klass):
    pacing, _ = klass
    joined = [db.join(pacing.code, nickname) for nickname in ("Ada", None, "  ", " Bo ")]
    assert [(s.number, s.nickname, s.name) for s, _ in joined] == [
        (1, "Ada", "Ada"), (2, None, "Student 2"), (3, None, "Student 3"), (4, "Bo", "Bo")]
    assert len({token for _, token in joined}) == 4
    student, token = joined[0]
    assert isinstance(student, Student) and student.stage == 1
    assert student.joined.tzinfo is not None
    again = db.student(pacing.code, token)
    assert again.id == student.id and again.seen >= student.seen


def test_join_takes_the_code_as_typed_and_starts_on_the_open_stage(db, klass):
    pacing, token = klass
    db.pace(pacing.code, token, stage=3)
    typed = f" {pacing.code[:3].lower()}-{pacing.code[3:]} "
    student, _ = db.join(typed)
    assert student.stage == 3
    with pytest.raises(ClassClosed, match="No class has the code"):
        db.join("AAAAAA")
    with pytest.raises(ClassClosed):
        db.pacing("")


def test_moving_is_free_or_follows_the_teacher(db, klass):
    pacing, teacher = klass
    _, token = db.join(pacing.code)
    assert db.move(pacing.code, token, 4).stage == 4
    assert db.student(pacing.code, token).stage == 4
    db.pace(pacing.code, teacher, mode="follow", stage=2)
    with pytest.raises(AnswerRefused, match="follows the teacher"):
        db.move(pacing.code, token, 3)
    assert db.move(pacing.code, token, 2).stage == 2
    for stage in (0, 5, "2", None, 2.0):
        with pytest.raises(AnswerRefused):
            db.move(pacing.code, token, stage)


def test_answers_are_read_by_the_question_and_locked(db, klass):
    pacing, _ = klass
    code = pacing.code
    _, token = db.join(code)
    assert db.answer(code, token, 1, " 0.25 ") == 0.25
    assert db.answer(code, token, 2, "the C-bound rises") == "the C-bound rises"
    with pytest.raises(AnswerRefused, match="already locked"):
        db.answer(code, token, 1, 0.3)
    assert db.my_votes(code, token) == {(1, 1): 0.25, (2, 1): "the C-bound rises"}


def test_an_integer_question_keeps_its_integer(db):
    pacing, _ = db.create_class(3)   # lesson 3, stage 2: a whole number in [0, 19]
    _, token = db.join(pacing.code)
    assert db.answer(pacing.code, token, 2, "7") == 7
    assert db.my_votes(pacing.code, token) == {(2, 1): 7.0}


def test_the_second_vote_only_when_opened_and_after_the_first(db, klass):
    pacing, teacher = klass
    code = pacing.code
    _, token = db.join(code)
    with pytest.raises(AnswerRefused, match="after the first"):
        db.answer(code, token, 1, 0.5, round=2)
    db.answer(code, token, 1, 0.5)
    with pytest.raises(AnswerRefused, match="not open"):
        db.answer(code, token, 1, 0.6, round=2)
    db.open_second_vote(code, teacher, 1)
    for bad_round in (3, 0, True, 2.0):
        with pytest.raises(AnswerRefused, match="round"):
            db.answer(code, token, 1, 0.6, round=bad_round)
    assert db.answer(code, token, 1, 0.6, round=2) == 0.6
    with pytest.raises(AnswerRefused, match="already locked"):
        db.answer(code, token, 1, 0.7, round=2)
    assert db.my_votes(code, token) == {(1, 1): 0.5, (1, 2): 0.6}


def test_record_replaces_a_run_and_its_answer_marks_the_votes(db, klass):
    pacing, teacher = klass
    code = pacing.code
    _, token = db.join(code)
    db.record(code, token, 1, {"test_error": 0.3, "pac_bound": float("inf")})
    db.answer(code, token, 1, 0.5)
    db.record(code, token, 1, {}, answer="0.4")   # the run's answer: the vote 0.5 is wrong
    db.record(code, token, 1, {"test_error": 0.1, "c_bound": 0.5, "seed": 3, "m": 40})
    [run] = db.results(code, teacher, 1)
    assert (run.seed, run.m, run.answer) == (3, 40, "0.4")
    assert [v.right for v in db.votes(code, teacher, 1)] == [False]
    assert run.values == dict.fromkeys(RESULT_FIELDS) | {"test_error": 0.1, "c_bound": 0.5}
    db.record(code, token, 1, {}, answer="0.2")
    [run] = db.results(code, teacher, 1)
    assert run.answer == "0.2" and set(run.values.values()) == {None}
    with pytest.raises(AnswerRefused):
        db.record(code, token, 1, {"secret": 1.0})
    with pytest.raises(AnswerRefused):
        db.record(code, token, 1, {"seed": 1.5})
    [vote] = db.votes(code, teacher, 1)
    assert vote.right is False   # 0.5 against 0.2 still wrong
    db.record(code, token, 1, {}, answer="0.5")
    assert [v.right for v in db.votes(code, teacher, 1)] == [True]
    with pytest.raises(AnswerRefused):
        db.record(code, token, 1, {}, answer="x" * 201)


def test_the_class_results_are_anonymous(db, klass):
    pacing, _ = klass
    code = pacing.code
    tokens = [db.join(code, f"N{i}")[1] for i in range(3)]
    for i, token in enumerate(tokens):
        db.record(code, token, 2, {"test_error": 0.1 * (3 - i), "seed": i, "m": 50})
    results = db.class_results(code, tokens[0], 2)
    assert [r.seed for r in results] == [2, 1, 0]   # by test error, not by student
    assert {r.student for r in results} == {None}
    assert db.class_results(code, tokens[0], 1) == []


def test_the_class_votes_only_once_released_and_anonymous(db, klass):
    pacing, teacher = klass
    code = pacing.code
    (_, ada), (_, bo) = db.join(code, "Ada"), db.join(code, "Bo")
    db.answer(code, ada, 1, 0.7)
    db.answer(code, bo, 1, 0.2)
    with pytest.raises(NotAllowed, match="releases"):
        db.class_votes(code, ada, 1)
    db.release(code, teacher, 1)
    votes = db.class_votes(code, ada, 1)
    assert [v.value for v in votes] == [0.2, 0.7]
    assert {(v.student, v.nickname) for v in votes} == {(None, None)}
    with pytest.raises(NotAllowed):
        db.class_votes(code, ada, 2)
