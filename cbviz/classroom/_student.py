"""The students' side of the class store: follow the pacing, join, move, vote, record the run.

A student is known by the token :meth:`~StudentActions.join` returns; every write (move,
answer, record) counts against :data:`RATE_LIMIT`, in the database, so every worker
shares the count.  What a student reads of the others is anonymous: their runs, and their
votes once the teacher released the stage.
"""
from sqlalchemy import insert, select, update

from ..constraints import short_repr
from ._access import Store, count_write, find_class, read_pacing, student_rows, utc_now
from ._errors import AnswerRefused, NotAllowed, RateLimited
from ._inputs import (check_lesson, check_stage, clean_nickname, clean_run, clean_text,
                      read_answer, vote_right)
from ._records import run_of, student_of, vote_of, vote_value
from ._schema import RESULT_FIELDS, class_stages, classes, runs, students, votes
from ._tokens import new_student_token, token_hash

__all__ = ["StudentActions"]

_ROUNDS = (1, 2)


class StudentActions(Store):
    """What the students of a class do (mixed into :class:`~cbviz.classroom.Database`)."""

    def pacing(self, code):
        """The class's :class:`Pacing` (no token: it holds no name nor answer)."""
        with self.engine.connect() as conn:
            return read_pacing(conn, find_class(conn, code))

    def join(self, code, nickname=None):
        """Join the class, anonymous unless ``nickname``: ``(student, student_token)``; the
        student's number is the class's next, taken under the class row's lock."""
        nickname = clean_nickname(nickname)
        token, now = new_student_token(), utc_now()
        with self.writer.begin() as conn:
            klass = find_class(conn, code)
            number = conn.execute(
                update(classes).where(classes.c.id == klass.id)
                .values(last_number=classes.c.last_number + 1)
                .returning(classes.c.last_number)).scalar_one()
            row = conn.execute(insert(students).values(
                class_id=klass.id, token_hash=token_hash(token), number=number,
                nickname=nickname, stage=klass.stage, joined=now, seen=now, window_start=now,
                window_count=0).returning(*students.c)).one()
        return student_of(row), token

    def student(self, code, student_token):
        """The student of this token in this class (NotAllowed otherwise), now seen."""
        with self.writer.begin() as conn:
            _, student = student_rows(conn, code, student_token)
            return student_of(conn.execute(
                update(students).where(students.c.id == student.id)
                .values(seen=utc_now()).returning(*students.c)).one())

    def _write(self, code, student_token, action):
        """``action(conn, class row, student row)`` as the student, counted against the rate
        limit; the count stands when the action is refused (refused before it writes)."""
        with self.writer.begin() as conn:
            klass, student = student_rows(conn, code, student_token)
            try:
                count_write(conn, student.id)
                return action(conn, klass, student)
            except (RateLimited, AnswerRefused) as error:
                refusal = error
        raise refusal

    def move(self, code, student_token, stage):
        """The student to ``stage``: in "follow" mode no further than the teacher's."""
        def action(conn, klass, student):
            check_stage(check_lesson(klass.lesson), stage)
            if klass.mode == "follow" and stage > klass.stage:
                raise AnswerRefused(f"The class follows the teacher: stage {klass.stage} is "
                                    "open, not further.")
            return student_of(conn.execute(
                update(students).where(students.c.id == student.id)
                .values(stage=stage).returning(*students.c)).one())
        return self._write(code, student_token, action)

    def answer(self, code, student_token, stage, value, round=1):
        """The student's vote ``value`` on ``stage``, round 1 or (once the teacher opened the
        second vote there, after a first vote) 2; a vote is locked once cast.  Returns the
        value as the question read it."""
        def action(conn, klass, student):
            lesson = check_lesson(klass.lesson)
            read, text, number = read_answer(lesson, stage, value)
            if type(round) is not int or round not in _ROUNDS:
                raise AnswerRefused(f"The round is 1 or 2; got {short_repr(round)}.")
            cast = set(conn.execute(select(votes.c.round).where(
                votes.c.student_id == student.id, votes.c.stage == stage)).scalars())
            if round in cast:
                raise AnswerRefused(f"Your vote on stage {stage} is already locked.")
            if round == 2 and 1 not in cast:
                raise AnswerRefused("The second vote comes after the first.")
            if round == 2 and not conn.execute(select(class_stages.c.second_vote).where(
                    class_stages.c.class_id == klass.id, class_stages.c.stage == stage)).scalar():
                raise AnswerRefused("The second vote on this stage is not open.")
            answer = conn.execute(select(runs.c.answer).where(
                runs.c.student_id == student.id, runs.c.stage == stage)).scalar()
            conn.execute(insert(votes).values(
                class_id=klass.id, student_id=student.id, stage=stage, round=round, value=text,
                number_value=number, answered_at=utc_now(),
                right=vote_right(lesson, stage, read, answer)))
            return read
        return self._write(code, student_token, action)

    def _run_row(self, conn, klass, student, stage, values):
        """Update the student's run at ``stage`` with ``values``, inserting it if there is
        none (the student's row is locked: no other write of the student runs meanwhile)."""
        where = (runs.c.student_id == student.id) & (runs.c.stage == stage)
        values = dict(values, recorded_at=utc_now())
        if not conn.execute(update(runs).where(where).values(**values)).rowcount:
            conn.execute(insert(runs).values(class_id=klass.id, student_id=student.id,
                                             stage=stage, **values))

    def my_votes(self, code, student_token):
        """The student's votes: ``{(stage, round): value}``."""
        with self.engine.connect() as conn:
            _, student = student_rows(conn, code, student_token)
            rows = conn.execute(select(votes).where(votes.c.student_id == student.id))
            return {(row.stage, row.round): vote_value(row) for row in rows}

    def record(self, code, student_token, stage, values, answer=None):
        """The student's run at ``stage``: ``values`` (:data:`RESULT_FIELDS`, "seed", "m"; not
        finite -> None) replace any recorded before; ``answer`` (the run's answer to the
        stage's question, kept unless None) marks the student's votes there right or wrong,
        and the votes cast after it."""
        def action(conn, klass, student):
            check_stage(check_lesson(klass.lesson), stage)
            if not isinstance(values, dict):
                raise AnswerRefused("A run's values are a dict.")
            columns = dict.fromkeys(RESULT_FIELDS + ("seed", "m")) | clean_run(values)
            if answer is not None:
                columns["answer"] = clean_text(str(answer))
                lesson = check_lesson(klass.lesson)
                for row in conn.execute(select(votes).where(votes.c.student_id == student.id,
                                                            votes.c.stage == stage)).all():
                    conn.execute(update(votes).where(votes.c.id == row.id).values(
                        right=vote_right(lesson, stage, vote_value(row), columns["answer"])))
            self._run_row(conn, klass, student, stage, columns)
        self._write(code, student_token, action)

    def class_results(self, code, student_token, stage):
        """Every run of the class recorded at ``stage``, anonymous."""
        with self.engine.connect() as conn:
            klass, _ = student_rows(conn, code, student_token)
            check_stage(check_lesson(klass.lesson), stage)
            rows = conn.execute(select(runs).where(runs.c.class_id == klass.id,
                                                   runs.c.stage == stage)
                                .order_by(runs.c.test_error, runs.c.seed))
            return [run_of(row, anonymous=True) for row in rows]

    def class_votes(self, code, student_token, stage):
        """What the class voted on ``stage``, anonymous, once the teacher released the stage
        (NotAllowed before)."""
        with self.engine.connect() as conn:
            klass, _ = student_rows(conn, code, student_token)
            pacing = read_pacing(conn, klass)
            if stage not in pacing.released:
                raise NotAllowed("The class's votes are shown once the teacher releases them.")
            rows = conn.execute(select(votes).where(votes.c.class_id == klass.id,
                                                    votes.c.stage == stage)
                                .order_by(votes.c.round, votes.c.number_value, votes.c.value))
            return [vote_of(row, anonymous=True) for row in rows]
