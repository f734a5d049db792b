"""Join codes, tokens and their hashes: only a token's SHA-256 is stored, compared in constant
time."""
import hashlib
import hmac
import secrets

__all__ = ["CODE_ALPHABET", "CODE_LENGTH", "new_code", "normalize_code", "new_teacher_token",
           "new_student_token", "token_hash", "hash_matches"]

# no 0/O, 1/I/L, 2/Z, 5/S, 8/B: a code read aloud or off a projector is typed right
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6


def new_code():
    """A random join code of :data:`CODE_LENGTH` characters of :data:`CODE_ALPHABET`."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(text):
    """A code as typed (any case, spaces, dashes) as stored; "" for what is not text."""
    if not isinstance(text, str):
        return ""
    return text.upper().replace(" ", "").replace("-", "")


def new_teacher_token():
    return secrets.token_urlsafe(32)


def new_student_token():
    return secrets.token_urlsafe(16)


def token_hash(token):
    """The SHA-256 hex digest of ``token`` (the only form a token is stored in)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def hash_matches(token, stored):
    """Whether ``token`` (any object, None when missing) hashes to ``stored``, in constant time."""
    return isinstance(token, str) and bool(token) and \
        hmac.compare_digest(token_hash(token), stored)
