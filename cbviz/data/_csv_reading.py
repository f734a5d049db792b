"""From a CSV file to a table: size limit, decoding, separator, decimal mark, header row."""
from __future__ import annotations

import codecs
import csv
import io
import itertools
import numbers
import os
import re

import pandas as pd

from ._common import label_text, plural, short_repr
from .dataset import DataError


def _size_text(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def read_bytes(file, max_bytes):
    """Return (bytes or str, display name) from a path, bytes or file-like object."""
    limit = f"the limit is {max_bytes / 1e6:g} MB" if max_bytes >= 100_000 \
        else f"the limit is {max_bytes:,} bytes"
    if isinstance(file, (bytes, bytearray, memoryview)):
        data, name = bytes(file), "uploaded"
    elif isinstance(file, (str, os.PathLike)):
        path = os.fspath(file)
        if not os.path.isfile(path):
            raise DataError(f"no such file: {short_repr(path)}")
        size = os.path.getsize(path)
        if size > max_bytes:
            raise DataError(f"file is {_size_text(size)}; {limit}")
        with open(path, "rb") as fh:
            data = fh.read()
        name = os.path.splitext(os.path.basename(path))[0] or "csv"
    elif hasattr(file, "read"):
        size = getattr(file, "size", None)
        try:
            file.seek(0)                        # read from the start (reruns re-read uploads)
            if size is None:
                file.seek(0, io.SEEK_END)
                size = file.tell()
                file.seek(0)
        except (AttributeError, OSError, ValueError):
            pass
        if isinstance(size, numbers.Integral) and size > max_bytes:
            raise DataError(f"file is {_size_text(size)}; {limit}")
        data = file.read()
        raw_name = getattr(file, "name", None)
        name = (os.path.splitext(os.path.basename(str(raw_name)))[0]
                if isinstance(raw_name, (str, os.PathLike)) else "") or "uploaded"
    else:
        raise DataError("file must be a path, bytes or a file-like object; "
                        f"got {type(file).__name__}")
    n = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
    if n > max_bytes:
        raise DataError(f"file is {_size_text(n)}; {limit}")
    return data, name

MAX_COLUMNS = 5000
MAX_NAME_CHARS = 200   # a column name labels voters, axes and messages
_HEAD_LINES = 50       # the lines that decide the layout (separator, header row), read alike
                       # by csv_columns and load_csv


def _decode_as(data, codec, note):
    try:
        return data.decode(codec), (note,)
    except UnicodeDecodeError as err:
        name = codec.upper()
        raise DataError(f"the file looks like {name} text but is not valid {name} (byte "
                        f"{err.start:,}: {err.reason}); save it again as UTF-8 CSV") from None


def decode_text(data):
    """Text of the file: UTF-32 or UTF-16 by its byte-order mark, UTF-16 without one by its
    pattern of NUL bytes, UTF-8 (with or without BOM), else latin-1 (with a note)."""
    if isinstance(data, str):
        return data, ()
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                       (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):   # UTF-32's little-endian mark starts with UTF-16's: first
            return _decode_as(data, codec, f"decoded as {codec.upper()}")
    head = data[:4096]
    if len(head) >= 4:
        for zeros, codec in ((head[1::2], "utf-16-le"), (head[0::2], "utf-16-be")):
            if zeros.count(0) > 0.9 * (len(head) // 2):   # ASCII text as UTF-16
                return _decode_as(data, codec, f"decoded as {codec.upper()} (no byte-order mark)")
    try:
        return data.decode("utf-8-sig"), ()
    except UnicodeDecodeError:
        return data.decode("latin-1"), ("decoded as latin-1 (not valid UTF-8)",)


def _check_header(fields, headerless):
    """Refuse too many columns, and names that are repeated or too long (empty names are
    handled once the values are read)."""
    if len(fields) > MAX_COLUMNS:
        raise DataError(f"{len(fields):,} columns; at most {MAX_COLUMNS:,} are read (the "
                        f"voter pool grows with every feature: 10 thresholds per feature would "
                        f"be {20 * len(fields):,} stumps). Keep the columns you need")
    if headerless:
        return
    for j, f in enumerate(fields):
        if len(f) > MAX_NAME_CHARS:
            raise DataError(f"the name of column {j + 1} has {len(f):,} characters "
                            f"({label_text(f)}); "
                            f"at most {MAX_NAME_CHARS} are accepted (names label the voters, the "
                            "axes and the messages): shorten it")
    seen = {}
    for f in fields:
        if f:
            seen[f] = seen.get(f, 0) + 1
    dup = [f"{label_text(f)} ({n} times)" for f, n in seen.items() if n > 1]
    if dup:
        raise DataError(f"column names must be unique; repeated: {', '.join(dup[:5])}. "
                        "Rename the copies")


def check_widths(lines, delim, width):
    """Refuse rows with another number of fields than the header (pandas would shift such a
    row, e.g. a decimal comma in a comma-separated file, silently).

    ``lines``: a text stream.  Without quote characters a field cannot hold the separator,
    so the fields of a line are its separators + 1 (counted by ``str.count``, ~10x faster than
    the csv module on a large file); with quotes the csv module reads them."""
    text = lines.getvalue() if isinstance(lines, io.StringIO) else None
    if text is not None and '"' not in text:
        counts = [line.count(delim) + 1 if line else width for line in text.splitlines()]
        bad = next((i for i, c in enumerate(counts) if c != width), None)
        if bad is None:
            return
        lines = io.StringIO("\n".join(text.splitlines()[:bad + 1]))
    for number, row in enumerate(csv.reader(lines, delimiter=delim), start=1):
        if row and len(row) != width:
            hint = (" If its numbers use a decimal comma, separate the fields with ';'."
                    if delim == "," and len(row) > width else "")
            raise DataError(f"line {number} has {len(row)} fields but the first line has "
                            f"{width}; every row needs one value per column.{hint}")


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _first_row_is_data(rows, decimal):
    """True when the first row holds values, not names: all its fields are numbers, or its
    fields that are not numbers (a class label) each occur again in their column below."""
    first, below = [f.strip() for f in rows[0]], rows[1:]
    numeric = [is_number(f.replace(decimal, ".")) for f in first]
    if len(first) < 2 or not any(numeric):
        return False
    return all(num or any(len(r) > j and r[j].strip() == f for r in below)
               for j, (f, num) in enumerate(zip(first, numeric)))


_DECIMAL_COMMA = re.compile(r"(?:^|[;\t|])\s*-?\d+,\d+\s*(?=[;\t|]|$)", re.M)


def parse_csv(text: str, head_only=False):
    """``(frame, notes, decimal mark)``: the file's values, columns named.  The separator, the
    decimal mark and whether the first row is a header are decided from the first lines (the
    same for ``head_only``, which reads only those lines)."""
    if not text.strip():
        raise DataError("the file is empty")
    if "\x00" in text[:4096]:
        raise DataError("the file is not text (it contains NUL bytes); export it as CSV "
                        "(comma-separated text)")
    head = list(itertools.islice((line for line in io.StringIO(text) if line.strip()),
                                 _HEAD_LINES))
    first = head[0].rstrip("\r\n")
    delim = max([",", ";", "\t", "|"], key=first.count)
    if first.count(delim) == 0:
        delim = ","
    # with ; tab or | between fields, "0,13" is a number written with a decimal comma
    decimal = "," if delim != "," and _DECIMAL_COMMA.search(text[:65536]) else "."
    body = "".join(head) if head_only else text
    try:
        rows = list(csv.reader(head, delimiter=delim))
        fields = [f.strip() for f in rows[0]]
        headerless = _first_row_is_data(rows, decimal)
        _check_header(fields, headerless)
        check_widths(io.StringIO(body), delim, len(fields))
    except csv.Error as err:  # e.g. a carriage return inside a field of a binary file
        raise DataError(f"the file does not read as a CSV table ({str(err).split(' - ')[0]}); "
                        "is it a text file with one example per line?") from None
    notes = [] if decimal == "." else ["numbers read with a decimal comma (fields separated "
                                       f"by {'tab' if delim == chr(9) else repr(delim)})"]
    try:
        df = pd.read_csv(io.StringIO(body), sep=delim, skipinitialspace=True, decimal=decimal,
                         na_values=["?"], header=None if headerless else "infer")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as err:
        raise DataError(f"could not parse the file as CSV ({str(err).strip()[:120]}); check "
                        "that it is comma-, semicolon- or tab-separated text with a header row"
                        ) from None
    if headerless:
        df.columns = [f"col{j}" for j in range(df.shape[1])]
        notes.append(f"no header row found: columns named col0..col{df.shape[1] - 1}")
    else:
        df.columns = [str(c).strip() for c in df.columns]
        df, dropped = _unnamed_columns(df, fields)
        notes += dropped
    if df.shape[0] == 0:
        raise DataError("the file has a header but no data rows")
    if df.shape[1] < 2:
        raise DataError(f"found a single column ({label_text(df.columns[0])}); need at least one "
                        "feature column and a label column (separators understood: , ; tab |)")
    return df, notes, decimal


def _unnamed_columns(df, fields):
    """Columns with an empty name in the header row: dropped with a note when they hold no
    value (a separator at the end of every line), refused otherwise (a row index?)."""
    empty = [j for j, f in enumerate(fields) if not f]
    if not empty:
        return df, []
    filled = [j for j in empty if df.iloc[:, j].notna().any()]
    if filled:
        raise DataError(f"column {filled[0] + 1} has values but no name in the header row (a "
                        "row number written by a spreadsheet or by pandas?); name it, or remove "
                        "it if it is not a feature")
    note = (f"dropped {plural(len(empty), 'empty column')} without a name (a separator at the "
            "end of every line?)")
    return df.drop(columns=df.columns[empty]), [note]
