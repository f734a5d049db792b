"""What the class store refuses, one exception a reason; each message can be shown as it is."""

__all__ = ["ClassError", "ClassClosed", "NotAllowed", "AnswerRefused", "RateLimited",
           "NicknameRefused", "SchemaError"]


class ClassError(ValueError):
    """A request the class store refuses."""


class ClassClosed(ClassError):
    """No class has that code, or it ended or expired."""


class NotAllowed(ClassError):
    """A missing, guessed or foreign token: the action is not this caller's."""


class AnswerRefused(ClassError):
    """An answer, stage or round the class does not take (or a vote already locked)."""


class RateLimited(ClassError):
    """More writes from one student than :data:`RATE_LIMIT` allows."""


class NicknameRefused(ClassError):
    """A nickname too long or with control characters."""


class SchemaError(RuntimeError):
    """The database was written by another version of cbviz's class store."""
