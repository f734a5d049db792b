"""The teacher's side of the class store: start a class, pace it, read what the class answered
and measured, end it.  Every action but :meth:`~TeacherActions.create_class` and
:meth:`~TeacherActions.purge_expired` needs the class's code and the teacher's token."""
import csv
import io
import secrets
from datetime import timedelta

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from ..constraints import short_repr
from ._access import Store, bump_version, read_pacing, teacher_class, utc_now
from ._errors import AnswerRefused, ClassError
from ._inputs import check_lesson, check_mode, check_stage, csv_cell
from ._records import run_of, student_of, vote_of
from ._schema import class_stages, classes, runs, students, votes
from ._tokens import new_code, new_teacher_token, token_hash

__all__ = ["TeacherActions", "CSV_COLUMNS", "SEED_RANGE", "DAYS_RANGE"]

CSV_COLUMNS = ("student", "nickname", "stage", "round", "answer", "right", "answered_at")
SEED_RANGE = (0, 10 ** 5)   # a class's seed, drawn in it when not given
DAYS_RANGE = (1, 365)       # how long a class lasts before it expires
_CODE_TRIES = 20


def _whole(name, value, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise AnswerRefused(f"{name} must be an integer in [{low}, {high}]; got "
                            f"{short_repr(value)}.")
    return value


class TeacherActions(Store):
    """What the teacher of a class does (mixed into :class:`~cbviz.classroom.Database`)."""

    def create_class(self, lesson, *, mode="free", hold_reveals=False, own_samples=False,
                     days=30, seed=None):
        """Start a class on lesson ``lesson`` (from 1): ``(pacing, teacher_token)``.  It expires
        after ``days`` (1 to 365); ``seed`` seeds its runs (random in :data:`SEED_RANGE`)."""
        stages = len(check_lesson(lesson).stages)
        check_mode(mode)
        _whole("days", days, *DAYS_RANGE)
        seed = secrets.randbelow(SEED_RANGE[1] + 1) if seed is None else \
            _whole("seed", seed, 0, 2 ** 31 - 1)
        token, now = new_teacher_token(), utc_now()
        row = dict(lesson=lesson, teacher_hash=token_hash(token), mode=mode, stage=1,
                   paused=False, hold_reveals=bool(hold_reveals), own_samples=bool(own_samples),
                   seed=seed, version=1, created=now, expires=now + timedelta(days=days),
                   ended=False, last_number=0)
        for _ in range(_CODE_TRIES):   # a new code is taken at the first try but 1 in 10^8
            try:
                with self.writer.begin() as conn:
                    class_id = conn.execute(insert(classes).values(code=new_code(), **row)
                                            .returning(classes.c.id)).scalar_one()
                    conn.execute(insert(class_stages), [
                        dict(class_id=class_id, stage=k, released=False, second_vote=False)
                        for k in range(1, stages + 1)])
                    klass = conn.execute(select(classes).where(classes.c.id == class_id)).one()
                    return read_pacing(conn, klass), token
            except IntegrityError:   # the code was taken meanwhile
                continue
        raise ClassError("No free class code was found; try again.")

    def teacher(self, code, teacher_token):
        """The class's :class:`Pacing`, for its teacher (an ended class too)."""
        with self.engine.connect() as conn:
            return read_pacing(conn, teacher_class(conn, code, teacher_token))

    def _change(self, code, teacher_token, change):
        """Run ``change(conn, class row)`` as the teacher and bump the version: the Pacing."""
        with self.writer.begin() as conn:
            klass = teacher_class(conn, code, teacher_token, writing=True)
            bump_version(conn, klass.id, **(change(conn, klass) or {}))
            return read_pacing(conn, conn.execute(
                select(classes).where(classes.c.id == klass.id)).one())

    def pace(self, code, teacher_token, *, mode=None, stage=None, paused=None,
             hold_reveals=None):
        """Change the pacing: what is not None among ``mode`` ("free" or "follow"), the open
        ``stage``, ``paused`` and ``hold_reveals``."""
        def change(conn, klass):
            values = {"paused": paused, "hold_reveals": hold_reveals}
            values = {key: bool(value) for key, value in values.items() if value is not None}
            if mode is not None:
                values["mode"] = check_mode(mode)
            if stage is not None:
                values["stage"] = check_stage(check_lesson(klass.lesson), stage)
            return values
        return self._change(code, teacher_token, change)

    def _set_stage(self, code, teacher_token, stage, **flag):
        def change(conn, klass):
            check_stage(check_lesson(klass.lesson), stage)
            conn.execute(update(class_stages).where(class_stages.c.class_id == klass.id,
                                                    class_stages.c.stage == stage)
                         .values(**flag))
        return self._change(code, teacher_token, change)

    def release(self, code, teacher_token, stage, released=True):
        """Release (or hold again) the reveal and the class's votes of ``stage``."""
        return self._set_stage(code, teacher_token, stage, released=bool(released))

    def open_second_vote(self, code, teacher_token, stage, opened=True):
        """Open (or close) the second vote on ``stage``."""
        return self._set_stage(code, teacher_token, stage, second_vote=bool(opened))

    def roster(self, code, teacher_token):
        """The class's students, by number."""
        with self.engine.connect() as conn:
            klass = teacher_class(conn, code, teacher_token)
            rows = conn.execute(select(students).where(students.c.class_id == klass.id)
                                .order_by(students.c.number))
            return [student_of(row) for row in rows]

    def _named(self, conn, table, klass, stage=None):
        """``table``'s rows of the class (of ``stage`` unless None) with the students' numbers
        and nicknames, by number."""
        query = select(table, students.c.number, students.c.nickname) \
            .join(students, students.c.id == table.c.student_id) \
            .where(table.c.class_id == klass.id)
        if stage is not None:
            query = query.where(table.c.stage == stage)
        return conn.execute(query.order_by(students.c.number, table.c.stage,
                                           *([table.c.round] if table is votes else [])))

    def votes(self, code, teacher_token, stage):
        """Every vote on ``stage`` (both rounds), with the students' numbers and nicknames."""
        with self.engine.connect() as conn:
            klass = teacher_class(conn, code, teacher_token)
            return [vote_of(row) for row in self._named(conn, votes, klass, stage)]

    def results(self, code, teacher_token, stage):
        """Every student's run recorded at ``stage``, with the students' numbers."""
        with self.engine.connect() as conn:
            klass = teacher_class(conn, code, teacher_token)
            return [run_of(row) for row in self._named(conn, runs, klass, stage)]

    def answers_csv(self, code, teacher_token):
        """Every vote of the class as CSV (:data:`CSV_COLUMNS`, times in UTC ISO 8601), each
        cell plain text, a cell a spreadsheet would run as a formula prefixed with ``'``."""
        with self.engine.connect() as conn:
            klass = teacher_class(conn, code, teacher_token)
            rows = self._named(conn, votes, klass).all()
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(CSV_COLUMNS)
        for row in rows:
            right = "" if row.right is None else str(row.right).lower()
            writer.writerow([csv_cell(cell) for cell in (
                row.number, row.nickname, row.stage, row.round, row.value, right,
                row.answered_at.isoformat())])
        return out.getvalue()

    def end_class(self, code, teacher_token, delete=True):
        """End the class: with ``delete``, remove it and every row of it; else keep its rows
        for the teacher to read (students are refused from now on)."""
        with self.writer.begin() as conn:
            klass = teacher_class(conn, code, teacher_token)
            if delete:
                conn.execute(classes.delete().where(classes.c.id == klass.id))
            else:
                bump_version(conn, klass.id, ended=True)

    def purge_expired(self, now=None):
        """Delete the classes past their expiry (at ``now``, default the current time) and
        every row of them: how many classes."""
        with self.writer.begin() as conn:
            return conn.execute(classes.delete().where(
                classes.c.expires <= (now or utc_now()))).rowcount
