"""What a teacher or a student types, checked before it is stored: nicknames, answers, stages,
run results and the class's settings.  What passes is stored as plain text; what does not is
refused with the store's typed exceptions, never passed on."""
import math
import numbers
import unicodedata

from ..constraints import short_repr
from ..lessons import LessonError, lesson as lesson_of
from ._errors import AnswerRefused, NicknameRefused
from ._schema import NICKNAME_LENGTH, RESULT_FIELDS

__all__ = ["TEXT_LENGTH", "MODES", "clean_nickname", "check_lesson", "check_stage",
           "check_mode", "read_answer", "clean_run", "clean_text", "csv_cell"]

TEXT_LENGTH = 200        # characters of an answer or a run's answer
MODES = ("free", "follow")
_RUN_INTEGERS = ("seed", "m")
_INT64 = 2 ** 63


def clean_nickname(nickname):
    """``nickname`` stripped, None when empty (anonymous); NicknameRefused when it is not text,
    longer than :data:`NICKNAME_LENGTH` or has control or invisible characters."""
    if nickname is None:
        return None
    if not isinstance(nickname, str):
        raise NicknameRefused(f"A nickname is text; got {short_repr(nickname)}.")
    nickname = nickname.strip()
    if len(nickname) > NICKNAME_LENGTH:
        raise NicknameRefused(f"A nickname has at most {NICKNAME_LENGTH} characters; "
                              f"this one has {len(nickname)}.")
    if any(unicodedata.category(c).startswith("C") for c in nickname):
        raise NicknameRefused("A nickname has no control or invisible characters.")
    return nickname or None


def check_lesson(number):
    """The lesson numbered ``number`` (from 1); AnswerRefused otherwise."""
    try:
        return lesson_of(number)
    except LessonError as error:
        raise AnswerRefused(str(error)) from None


def check_stage(lesson, stage):
    """``stage`` when ``lesson`` has it (from 1); AnswerRefused otherwise."""
    if isinstance(stage, bool) or not isinstance(stage, int) or \
            not 1 <= stage <= len(lesson.stages):
        raise AnswerRefused(f"The stage must be an integer in [1, {len(lesson.stages)}]; "
                            f"got {short_repr(stage)}.")
    return stage


def check_mode(mode):
    if mode not in MODES:
        raise AnswerRefused(f"The mode must be one of {', '.join(MODES)}; "
                            f"got {short_repr(mode)}.")
    return mode


def clean_text(text):
    """``text`` (a str, or None) when at most :data:`TEXT_LENGTH` characters; AnswerRefused."""
    if text is not None and (not isinstance(text, str) or len(text) > TEXT_LENGTH):
        raise AnswerRefused(f"An answer is text of at most {TEXT_LENGTH} characters; got "
                            f"{short_repr(text)}.")
    return text


def read_answer(lesson, stage, value):
    """``value`` as the stage's question reads it, with its stored text and number (None for
    a choice): ``(read, text, number)``; AnswerRefused for what the question does not take."""
    if value is None or isinstance(value, bool) or \
            not isinstance(value, (str, numbers.Real)):
        raise AnswerRefused(f"An answer is a choice or a number; got {short_repr(value)}.")
    if isinstance(value, str):
        clean_text(value)
    elif not _finite(value):
        raise AnswerRefused(f"An answer is a finite number; got {short_repr(value)}.")
    question = lesson.stage(check_stage(lesson, stage)).question
    try:
        read = question.read(value)
    except LessonError as error:
        raise AnswerRefused(str(error)) from None
    return read, str(read), float(read) if question.numeric else None


def vote_right(lesson, stage, vote, answer):
    """Whether a stored ``vote`` (a ``votes`` row's value: text, or a float for a number) is
    right when the student's own run answers ``answer`` (text), by the reveal's rule
    (:meth:`cbviz.lessons.Reveal.right`); None when there is no answer yet."""
    if answer is None:
        return None
    question = lesson.stage(stage).question
    if not question.numeric:
        return vote == answer
    try:
        return abs(float(vote) - float(answer)) <= question.tolerance + 1e-12
    except ValueError:
        return None


def clean_run(values):
    """The ``runs`` columns of a run's ``values`` (keys of :data:`RESULT_FIELDS`, "seed",
    "m"): not finite -> None; AnswerRefused for another key or what is not a number."""
    unknown = sorted(set(values) - set(RESULT_FIELDS) - set(_RUN_INTEGERS), key=str)
    if unknown:
        raise AnswerRefused(f"A run records {', '.join(RESULT_FIELDS + _RUN_INTEGERS)}; "
                            f"got {short_repr(unknown)}.")
    columns = {}
    for key, value in values.items():
        if value is not None and (isinstance(value, bool) or
                                  not isinstance(value, numbers.Real)):
            raise AnswerRefused(f"{key} must be a number; got {short_repr(value)}.")
        if key in _RUN_INTEGERS and value is not None and \
                (isinstance(value, numbers.Integral) or _finite(value)):
            if not (-_INT64 <= value < _INT64 and float(value).is_integer()):
                raise AnswerRefused(f"{key} must be a 64-bit integer; got {short_repr(value)}.")
            columns[key] = int(value)
        else:
            columns[key] = float(value) if _finite(value) else None
    return columns


def _finite(value):
    """Whether the number ``value`` is finite (an int too large for a float is not)."""
    try:
        return value is not None and math.isfinite(value)
    except OverflowError:
        return False


def csv_cell(value):
    """A CSV cell as text; one a spreadsheet would run as a formula (starting with = + - @, a
    tab or a carriage return, and not a number) prefixed with ``'``."""
    text = "" if value is None else str(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text
