"""Hostile inputs (issue 13): one table of cases and the verdict each must get.

Families: ``csv`` files through :func:`cbviz.data.load_csv` (and the app's side of an upload:
the label-column picker :func:`cbviz.data.csv_columns` and the app's wording
:func:`cbviz.ui.messages.for_app`); ``link`` values through ``Settings.from_link``; ``json``
settings files through :func:`cbviz.ui.runs.read_json` and then ``Settings.from_link``, as
the step page applies them; ``pool`` sizes through the pools' ``fit``; ``seed`` values
through every function that takes one.

A verdict is ``ACCEPTED`` (the case's ``check`` must hold on the result) or a regex that the
refusal message must match, raised as the family's typed error (never a traceback of
another type).  Every refusal also must not echo more than 80 characters of the user's input.
"""
from __future__ import annotations

import codecs
import dataclasses
import functools
import json
import re
import tracemalloc
from collections import Counter

import numpy as np
import pytest

from cbviz.data import DataError, csv_columns, load_csv, make_toy, prepare, train_test
from cbviz.ui.messages import for_app
from cbviz.ui.runs import read_json
from cbviz.voters import HyperplanePool, RBFPool, StumpPool
from cbviz.problem import Settings, build_problem

ACCEPTED = "accepted"
MAX_ECHO = 80           # characters of user input a message may repeat
MAX_REFUSAL_MB = 20     # memory a refused pool may take before refusing (tracemalloc peak)


@dataclasses.dataclass(frozen=True)
class Case:
    family: str
    id: str
    input: object
    verdict: str                  # ACCEPTED or a regex of the refusal message
    check: object = None          # accepted: predicate on the result
    app: str = ""                 # csv refusals: regex of the app's wording
    error: type = ValueError      # seed refusals: the exact exception type (the other
                                  # families: DataError for csv, ValueError for json and pool)


# ------------------------------------------------------------------------------ csv files

ROWS = [(0.13, 1.5, 0), (2.5, -0.7, 1), (1.0, 2.0, 0), (3.1, 0.25, 1), (0.2, 0.4, 0),
        (2.2, 1.1, 1)]
X_ROWS = np.array([r[:2] for r in ROWS])


def table(header="a,b,label", rows=ROWS, sep=",", decimal=".", end="\n"):
    """CSV text: ``header`` (None: no header row), then one line per row."""
    def cell(v):
        return str(v).replace(".", decimal) if isinstance(v, float) else str(v)
    lines = ([header.replace(",", sep)] if header is not None else []) + \
        [sep.join(cell(v) for v in row) for row in rows]
    return end.join(lines) + end


BASE = table()


def csv(text, encoding="utf-8", **kwargs):
    return (text.encode(encoding) if isinstance(text, str) else text), kwargs


def same_x(expected=X_ROWS, names=("a", "b")):
    return lambda ds: (np.array_equal(ds.X, expected) and ds.feature_names == tuple(names)
                       and np.array_equal(ds.y, [-1, 1, -1, 1, -1, 1]))


def with_note(text, check=None):
    check = check or same_x()
    return lambda ds: check(ds) and any(text in n for n in ds.notes)


IRIS = table(None, [(5.1, 3.5, "setosa"), (7.0, 3.2, "versicolor"), (4.9, 3.0, "setosa"),
                    (6.4, 3.2, "versicolor"), (4.7, 3.2, "setosa"), (6.9, 3.1, "versicolor")])
THREE = table(rows=[(0.1, 0.2, "x"), (0.3, 0.4, "y"), (0.5, 0.1, "z"), (0.2, 0.3, "x"),
                    (0.6, 0.5, "y"), (0.7, 0.9, "z")])
ODD_CLASSES = table(rows=[(0.1, 0.2, '"x, y"'), (0.3, 0.4, "(z)"), (0.5, 0.1, "w")])
WIDE = ",".join(f"c{j}" for j in range(4999)) + ",label\n" + "".join(
    ",".join(str((i * j) % 7) for j in range(4999)) + f",{i % 2}\n" for i in range(6))
API = r"\b(pair|one_vs_rest|drop_nan|label|max_bytes)="

CSV_CASES = [
    # decimal commas
    Case("csv", "decimal-comma-extra-fields", csv("a,b,label\n0,13,1,5,0\n2,5,0,7,1\n"),
         r"^line 2 has 5 fields but the first line has 3; every row needs one value per column\. "
         r"If its numbers use a decimal comma, separate the fields with ';'\.$"),
    Case("csv", "decimal-comma-one-extra-field", csv("a,b,label\n0,13,1.5,0\n2.5,0.7,1\n"),
         r"^line 2 has 4 fields but the first line has 3"),
    Case("csv", "decimal-comma-quoted-no-extra-field",
         csv('a,b,label\n"0,13",1.5,0\n"2,5",0.7,1\n'),
         r"non-numeric feature column: 'a' \(e\.g\. '0,13': a decimal comma\? separate the "
         r"fields with ';'", app=r"or choose another Label column"),
    Case("csv", "decimal-comma-semicolons", csv(table(sep=";", decimal=",")), ACCEPTED,
         with_note("numbers read with a decimal comma (fields separated by ';')")),
    Case("csv", "decimal-comma-tabs", csv(table(sep="\t", decimal=",")), ACCEPTED,
         with_note("decimal comma (fields separated by tab)")),
    Case("csv", "decimal-comma-pipes", csv(table(sep="|", decimal=",")), ACCEPTED,
         with_note("decimal comma (fields separated by '|')")),
    Case("csv", "decimal-comma-and-point-mixed", csv("a;b;label\n0,5;1.5;1\n0,7;2,5;0\n"),
         r"non-numeric feature column: 'b' \(e\.g\. '2,5': this column mixes decimal commas "
         r"and decimal points; use one mark\)"),
    # separators, line ends
    Case("csv", "semicolons", csv(table(sep=";")), ACCEPTED, same_x()),
    Case("csv", "tabs", csv(table(sep="\t")), ACCEPTED, same_x()),
    Case("csv", "pipes", csv(table(sep="|")), ACCEPTED, same_x()),
    Case("csv", "windows-line-ends", csv(table(end="\r\n")), ACCEPTED, same_x()),
    Case("csv", "row-with-a-field-missing", csv("a,b,label\n0.1,0.2,0\n0.3,1\n"),
         r"^line 3 has 2 fields but the first line has 3; every row needs one value per "
         r"column\.$"),
    # column names
    Case("csv", "second-label-column", csv(table("label,b,label")),
         r"^column names must be unique; repeated: 'label' \(2 times\)\. Rename the copies$"),
    Case("csv", "duplicated-feature", csv(table("a,a,label")), r"repeated: 'a' \(2 times\)"),
    Case("csv", "duplicated-after-spaces", csv(table("a, a ,label")),
         r"repeated: 'a' \(2 times\)"),
    Case("csv", "names-differing-by-case", csv(table("A,a,label")), ACCEPTED,
         same_x(names=("A", "a"))),
    Case("csv", "name-of-200-characters", csv(table("n" * 200 + ",b,label")), ACCEPTED,
         same_x(names=("n" * 200, "b"))),
    Case("csv", "name-of-201-characters", csv(table("n" * 201 + ",b,label")),
         r"^the name of column 1 has 201 characters \('n{40}…'\); at most 200 are accepted"),
    Case("csv", "name-of-10000-characters", csv(table("a,b," + "L" * 10_000)),
         r"^the name of column 3 has 10,000 characters"),
    Case("csv", "empty-name-with-values", csv(",a,label\n0,0.1,1\n1,0.2,0\n2,0.3,1\n"),
         r"^column 1 has values but no name in the header row"),
    Case("csv", "separator-ending-every-line",
         csv(table().replace("\n", ",\n")), ACCEPTED,
         with_note("dropped 1 empty column without a name")),
    Case("csv", "formula-like-name", csv(table("=cmd(),b,label")), ACCEPTED,
         same_x(names=("=cmd()", "b"))),
    # header row or not: the label picker offers what the loader reads
    Case("csv", "no-header-numbers", csv(table(None)), ACCEPTED,
         with_note("no header row found", same_x(names=("col0", "col1")))),
    Case("csv", "no-header-class-names", csv(IRIS), ACCEPTED,
         lambda ds: ds.m == 6 and ds.feature_names == ("col0", "col1")
         and ds.label_mapping == {"versicolor": 1, "setosa": -1}),
    Case("csv", "numbers-as-column-names", csv(table("1,2,label")), ACCEPTED,
         same_x(names=("1", "2"))),
    # encodings
    Case("csv", "utf8-bom", csv(codecs.BOM_UTF8 + BASE.encode()), ACCEPTED, same_x()),
    Case("csv", "utf16-le-bom", csv(BASE, "utf-16"), ACCEPTED, with_note("decoded as UTF-16")),
    Case("csv", "utf16-be-bom", csv(codecs.BOM_UTF16_BE + BASE.encode("utf-16-be")), ACCEPTED,
         with_note("decoded as UTF-16")),
    Case("csv", "utf16-le-no-bom", csv(BASE, "utf-16-le"), ACCEPTED,
         with_note("decoded as UTF-16-LE (no byte-order mark)")),
    Case("csv", "utf16-be-no-bom", csv(BASE, "utf-16-be"), ACCEPTED,
         with_note("decoded as UTF-16-BE (no byte-order mark)")),
    Case("csv", "utf32-bom", csv(BASE, "utf-32"), ACCEPTED, with_note("decoded as UTF-32")),
    Case("csv", "utf16-truncated", csv(codecs.BOM_UTF16_LE + b"a\x00,\x00b"),
         r"^the file looks like UTF-16 text but is not valid UTF-16 \(byte 6: truncated data\)"),
    Case("csv", "latin1-bytes", csv(table("été,b,label"), "latin-1"), ACCEPTED,
         with_note("decoded as latin-1", same_x(names=("été", "b")))),
    Case("csv", "nul-bytes", csv(b"a,b,label\n0.1,0\x002,1\n"),
         r"^the file is not text \(it contains NUL bytes\)"),
    Case("csv", "binary-file", csv(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4),
         r"^the file is not text"),
    # sizes
    Case("csv", "empty-file", csv(""), r"^the file is empty$"),
    Case("csv", "blank-lines-only", csv("\n \n\t\n"), r"^the file is empty$"),
    Case("csv", "header-only", csv("a,b,label\n"), r"^the file has a header but no data rows$"),
    Case("csv", "one-column", csv("label\n1\n0\n"), r"^found a single column \('label'\)"),
    Case("csv", "one-row", csv(table(rows=ROWS[:1])),
         r"^only one class 0 in column 'label'; need two$"),
    Case("csv", "5000-columns", csv(WIDE), ACCEPTED, lambda ds: ds.m == 6 and ds.d == 4284),
    Case("csv", "5001-columns", csv(",".join(f"c{j}" for j in range(5001)) + "\n" + "1," * 5000
                                    + "0\n"),
         r"^5,001 columns; at most 5,000 are read"),
    Case("csv", "100000-columns", csv(",".join(f"c{j}" for j in range(100_000)) + "\n"),
         r"^100,000 columns; at most 5,000 are read"),
    # classes
    Case("csv", "one-class", csv(table(rows=[r[:2] + (1,) for r in ROWS])),
         r"^only one class 1 in column 'label'; need two$"),
    Case("csv", "three-classes", csv(THREE),
         r"^column 'label' has 3 classes: 'x' \(2\), 'y' \(2\), 'z' \(2\)\. Pick two with "
         r"pair=\('x', 'y'\)", app=r'Pick two with Class pair "x vs y" .* with Class pair '
         r'"x vs rest"'),
    Case("csv", "three-classes-with-a-pair", csv(THREE, pair=("z", "x")), ACCEPTED,
         lambda ds: ds.m == 4 and ds.label_mapping == {"z": 1, "x": -1}),
    Case("csv", "classes-with-commas-and-brackets", csv(ODD_CLASSES),
         r"has 3 classes: .*Pick two with pair=\('\(z\)', 'w'\)",
         app=r'Pick two with Class pair "\(z\) vs w"'),
    Case("csv", "class-of-10000-characters", csv(table(rows=[(0.1, 0.2, "z" * 10_000),
                                                            (0.3, 0.4, "y"), (0.5, 0.6, "w")])),
         r"has 3 classes: 'z{40}…' \(1\)"),
    Case("csv", "formula-like-classes", csv(table(rows=[(0.1, 0.2, "=1+1"),
                                                       (0.3, 0.4, "@SUM(A1)")])),
         ACCEPTED, lambda ds: ds.label_mapping == {"@SUM(A1)": 1, "=1+1": -1}),
    # missing values
    Case("csv", "empty-field", csv(BASE.replace("1.5", "", 1)),
         r"^1 missing value \(NaN, empty, '\?' or infinite\) in 1 of 6 rows, in columns 'b' "
         r"\(1\); pass drop_nan=True", app=r'switch on "Drop rows with missing values"'),
    Case("csv", "question-mark", csv(BASE.replace("1.5", "?", 1)), r"^1 missing value",
         app=r'switch on "Drop rows with missing values"'),
    Case("csv", "NaN-text", csv(BASE.replace("1.5", "NaN", 1)), r"^1 missing value"),
    Case("csv", "empty-field-dropped", csv(BASE.replace("1.5", "", 1), drop_nan=True),
         ACCEPTED, with_note("dropped 1 row with missing values",
                             lambda ds: ds.m == 5 and np.array_equal(ds.X, X_ROWS[1:]))),
    Case("csv", "question-mark-dropped", csv(BASE.replace("1.5", "?", 1), drop_nan=True),
         ACCEPTED, lambda ds: ds.m == 5 and np.array_equal(ds.X, X_ROWS[1:])),
    Case("csv", "every-row-missing-dropped",
         csv(table(rows=[(0.1, "?", 0), (0.2, "", 1)]), drop_nan=True),
         r"^no rows left after dropping rows with missing values$"),
    Case("csv", "row-without-label", csv(BASE + "0.5,0.5,\n"), ACCEPTED,
         with_note("dropped 1 row with no label in column 'label'")),
    # text and formulas in feature columns
    Case("csv", "text-column", csv(BASE.replace("1.5", "red", 1)),
         r"^non-numeric feature column: 'b' \(e\.g\. 'red'\); encode such columns as numbers",
         app=r"\(or choose another Label column\)$"),
    Case("csv", "text-cell-of-10000-characters", csv(BASE.replace("1.5", "t" * 10_000, 1)),
         r"non-numeric feature column: 'b' \(e\.g\. 't{40}…'\)"),
    Case("csv", "formula-cell", csv(BASE.replace("1.5", "=cmd()", 1)),
         r"non-numeric feature column: 'b' \(e\.g\. '=cmd\(\)'\)"),
    Case("csv", "formula-cells-plus-at", csv(BASE.replace("1.5", "+cmd|' /C calc'!A0", 1)
                                             .replace("0.13", "@SUM(1+1)")),
         r"non-numeric feature columns: 'a' \(e\.g\. '@SUM\(1\+1\)'\), 'b' \(e\.g\. "
         r"\"\+cmd\|' /C calc'!A0\"\)"),
    # magnitudes
    Case("csv", "1e308", csv(BASE.replace("1.5", "1e308")),
         r"^column 'b' has values beyond ±1e\+100 \(e\.g\. '1e\+308'\); rescale it"),
    Case("csv", "minus-1e308", csv(BASE.replace("0.13", "-1e308")),
         r"^column 'a' has values beyond ±1e\+100 \(e\.g\. '-1e\+308'\)"),
    Case("csv", "1e400-beyond-float64", csv(BASE.replace("1.5", "1e400")),
         r"^column 'b' has values beyond ±1e\+100 \(e\.g\. '1e400'\)"),
    Case("csv", "1e100-at-the-limit", csv(BASE.replace("1.5", "1e100")), ACCEPTED,
         lambda ds: ds.X[0, 1] == 1e100),
    Case("csv", "inf", csv(BASE.replace("1.5", "inf")),
         r"^1 missing value \(NaN, empty, '\?' or infinite\) in 1 of 6 rows"),
    Case("csv", "minus-inf-dropped", csv(BASE.replace("1.5", "-inf"), drop_nan=True),
         ACCEPTED, lambda ds: ds.m == 5 and np.isfinite(ds.X).all()),
    Case("csv", "every-feature-constant", csv(table(rows=[(1.0, 2.0, 0), (1.0, 2.0, 1)])),
         r"^every feature column is constant on the rows used \('a', 'b'\)"),
    # the label column
    Case("csv", "label-column-absent", csv(BASE, label="target"),
         r"^label column 'target' not found; available columns: 'a', 'b', 'label'\.$"),
    Case("csv", "label-column-misspelt", csv(BASE, label="labl"),
         r"not found; available columns: 'a', 'b', 'label'\. Did you mean 'label'\?$"),
    Case("csv", "label-column-of-10000-characters", csv(BASE, label="q" * 10_000),
         r"^label column 'q{39}… not found"),
    Case("csv", "label-column-chosen", csv(BASE.replace("label", "c"), label="c"), ACCEPTED,
         same_x()),
]


# ------------------------------------------------------------------------------ links

DEFAULTS = Settings()
FIELDS = {f.name for f in dataclasses.fields(Settings)}
NUMBER_FIELDS = {  # field: (allowed range as the message says it, integer?)
    "n_samples": ("an int in [20, 20000]", True), "toy_noise": ("a float in [0, 1]", False),
    "data_seed": ("an int in [0, 1000000]", True), "train_ratio": ("a float in [0.1, 0.9]", False),
    "split_seed": ("an int in [0, 1000000]", True), "feature_noise": ("a float in [0, 5]", False),
    "n_pool": ("an int in [1, 2000]", True), "prior_fraction": ("a float in [0, 0.8]", False),
    "delta": ("a float in [0.001, 1]", False), "tree_depth": ("an int in [1, 10]", True),
}
HUGE = "999999999999999999999"
TEN_KB = "7" * 10_240


def link(key, value, verdict, check=None):
    shown = value if len(value) <= 12 else f"{value[:6]}...({len(value)} chars)"
    return Case("link", f"{key}={shown}", {key: value}, verdict, check)


def refused(key, allowed, got):
    """The one refusal of a data setting (cbviz.constraints), ``got`` a regex of the value."""
    return (rf"^The '{re.escape(key)}' parameter of the data settings must be {allowed}\. "
            rf"Got {got} instead\.$")


def number_message(key, got):
    return refused(key, re.escape(NUMBER_FIELDS[key][0]), got)


def cannot(key):
    """The value as a link's text the field's type cannot read: refused as that text."""
    return r"'.*'"


LINK_CASES = [
    # every numeric field: too large, negative, huge, NaN / inf, not a number, 10 kB
    *(link(k, HUGE, number_message(k, r"(999999999999999999999|1e\+21)"))
      for k in NUMBER_FIELDS),
    *(link(k, "-1", number_message(k, r"-1(\.0)?")) for k in NUMBER_FIELDS),
    *(link(k, "nan", number_message(k, "nan" if not NUMBER_FIELDS[k][1] else cannot(k)))
      for k in NUMBER_FIELDS),
    *(link(k, "-inf", number_message(k, "-inf" if not NUMBER_FIELDS[k][1] else cannot(k)))
      for k in NUMBER_FIELDS),
    *(link(k, "lots", number_message(k, cannot(k))) for k in NUMBER_FIELDS),
    *(link(k, TEN_KB, number_message(k, "inf" if not NUMBER_FIELDS[k][1] else r"'7{59}…"))
      for k in NUMBER_FIELDS),
    link("toy_noise", "7", number_message("toy_noise", r"7\.0")),
    link("train_ratio", "0.95", number_message("train_ratio", r"0\.95")),
    link("n_samples", "300.5", number_message("n_samples", r"'300\.5'")),
    link("n_samples", "20000", ACCEPTED, lambda s: s.n_samples == 20000),
    link("data_seed", "4294967296", number_message("data_seed", r"4294967296")),
    link("split_seed", "4294967295", number_message("split_seed", r"4294967295")),
    link("split_seed", "1000000", ACCEPTED, lambda s: s.split_seed == 1_000_000),
    link("delta", "1e-3", ACCEPTED, lambda s: s.delta == 0.001),
    # choices and names
    link("source", "ftp", refused("source", "one of 'toy', 'real', 'csv'", "'ftp'")),
    link("toy", "moon", refused("toy", "one of 'moons', 'circles', 'xor', 'spirals', 'blobs', "
                                "'linear', 'checkerboard'", "'moon'")),
    link("toy", TEN_KB, refused("toy", "one of .*", "'7{59}…")),
    link("toy", "spirals", ACCEPTED, lambda s: s.toy == "spirals"),
    link("pool", "forest", refused("pool", "one of 'stumps', 'hyperplanes', 'rbf', 'trees'",
                                   "'forest'")),
    link("pool", "trees", ACCEPTED, lambda s: s.pool == "trees" and s.tree_depth == 3),
    link("tree_depth", "0", number_message("tree_depth", r"0")),
    link("tree_depth", "11", number_message("tree_depth", r"11")),
    link("tree_depth", "2.5", number_message("tree_depth", r"'2\.5'")),
    link("tree_depth", "10", ACCEPTED, lambda s: s.tree_depth == 10),
    link("constant_voter", "maybe", refused("constant_voter", "a bool", "'maybe'")),
    link("constant_voter", "true", ACCEPTED, lambda s: s.constant_voter is True),
    link("n_thresholds", "1000", refused("n_thresholds", "one of '1', '2', '3', '5', '10', '20', "
                                         "'50', '100', 'all'", "'1000'")),
    link("n_thresholds", "all", ACCEPTED, lambda s: s.n_thresholds == "all"),
    link("real", "no_such_set", r"^The 'real' parameter of the data settings must be a data set "
                                r"of the catalogue \(45 names: breast_cancer, digits, australian, "
                                r"\.\.\.\)\. Got 'no_such_set' instead\.$"),
    link("real", "moons", r"^The 'real' parameter .* a data set of the catalogue .*Got 'moons' "),
    link("real", "breast-cancer", r"Got 'breast-cancer' instead\. Close names: breast_cancer, "
                                  r"breast\.$"),
    link("real", TEN_KB, r"^The 'real' parameter .* a data set of the catalogue .*Got '7{59}…"),
    link("real", "wine", ACCEPTED, lambda s: s.real == "wine"),
    link("pair", "4 against 9", refused("pair", r"empty, 'a vs b' or 'a vs rest' \(at most 100 "
                                        r"characters\)", "'4 against 9'")),
    link("pair", TEN_KB + " vs 1", refused("pair", "empty, .*", "'7{59}…")),
    link("pair", "4 vs rest", ACCEPTED, lambda s: s.pair == "4 vs rest"),
    link("csv_label", "c" * 201, refused("csv_label", "empty or a column name of at most 200 "
                                         "characters", "'c{59}…")),
    link("csv_label", "c" * 200, ACCEPTED, lambda s: s.csv_label == "c" * 200),
    # booleans
    link("normalize", "maybe", refused("normalize", "a bool", "'maybe'")),
    link("normalize", "2", refused("normalize", "a bool", "'2'")),
    link("csv_drop_nan", TEN_KB, refused("csv_drop_nan", "a bool", "'7{59}…")),
    link("csv_drop_nan", "yes", ACCEPTED, lambda s: s.csv_drop_nan is True),
    # keys that are not settings are not looked at (the pages read their own)
    Case("link", "unknown-keys", {"algorithm": "cbboost", "steps": "9", "x" * 100: TEN_KB},
         ACCEPTED, lambda s: s == dataclasses.replace(DEFAULTS, delta=0.1)),
]


# ------------------------------------------------------------------------------ settings files

def saved(settings=None, **run):
    body = {"algorithm": "cbboost", "params": {"direction": "gradient"}, "max_iter": 50,
            "iterations": 12, **run}
    return json.dumps({"cbviz": "step-through", "settings": settings or {"toy": "xor"},
                       "run": body}).encode()


def replays(algorithm, iterations, **values):
    return lambda result: (result[1]["algorithm"] == algorithm
                           and result[1]["iterations"] == iterations
                           and all(getattr(result[0], k) == v for k, v in values.items()))


JSON_CASES = [
    Case("json", "exported-file", saved(), ACCEPTED, replays("cbboost", 12, toy="xor")),
    Case("json", "file-of-the-cb-boost-only-days",
         b'{"settings": {"n_samples": 200}, "run": {"direction": "gradient", "max_iter": 9, '
         b'"iterations": 3}}', ACCEPTED, replays("cbboost", 3, n_samples=200)),
    Case("json", "a-list", b"[1, 2, 3]", r"not exported by cbviz"),
    Case("json", "a-string", b'"settings"', r"not exported by cbviz"),
    Case("json", "null", b"null", r"not exported by cbviz"),
    Case("json", "a-number", b"42", r"not exported by cbviz"),
    Case("json", "not-json", b"settings = {}", r"^not a JSON file \("),
    Case("json", "binary", bytes(range(256)), r"^not a JSON file \("),
    Case("json", "nested-400-kB", b"[" * 200_000 + b"]" * 200_000,
         r"^the file is 400,000 bytes; .*at most 20,000 are read"),
    Case("json", "nested-deep-under-the-size-cap", b"[" * 9000 + b"]" * 9000,
         r"^not a cbviz settings file \(nested too deeply\)$"),
    Case("json", "settings-a-list", b'{"settings": [], "run": {}}', r"must be JSON objects"),
    Case("json", "params-a-list", saved(params=[1]), r"^'params' must be a JSON object$"),
    Case("json", "unknown-algorithm", saved(algorithm="magic"),
         r"^unknown algorithm 'magic'; known: cbboost, mincq"),
    Case("json", "algorithm-a-list", saved(algorithm=["cbboost"]),
         r"^unknown algorithm \['cbboost'\]; known"),
    Case("json", "algorithm-of-10-kB", saved(algorithm=TEN_KB), r"^unknown algorithm '7{59}…"),
    Case("json", "unknown-hyper-parameter", saved(params={"speed": 2}),
         r"^CB-Boost has no hyper-parameter 'speed'$"),
    Case("json", "choice-unknown", saved(params={"direction": "sideways"}),
         r"^The 'direction' parameter of CBBoost must be one of 'exhaustive', 'gradient'\. "
         r"Got 'sideways' instead\.$"),
    Case("json", "choice-a-list", saved(params={"direction": ["gradient"]}),
         r"^The 'direction' parameter of CBBoost must be one of 'exhaustive', 'gradient'\. "
         r"Got \['gradient'\] instead\.$"),
    Case("json", "number-as-text", saved(algorithm="mincq", params={"mu": "0.05"}),
         r"^The 'mu' parameter of MinCq must be a float in \(0, 1\]\. Got '0\.05' instead\.$"),
    Case("json", "number-out-of-range", saved(algorithm="cqboost", params={"mu": 7}),
         r"^The 'mu' parameter of CqBoost must be a float in \(0, 1\]\. Got 7 instead\.$"),
    Case("json", "number-NaN", b'{"settings": {}, "run": {"algorithm": "vebboost", '
         b'"params": {"lam": NaN}, "max_iter": 5, "iterations": 1}}',
         r"^The 'lam' parameter of VEBBoost must be a float in \[0, 1\]\. Got nan instead\.$"),
    Case("json", "bool-as-text", saved(params={"reuse_voters": "true"}),
         r"^The 'reuse_voters' parameter of CBBoost must be a bool\. Got 'true' instead\.$"),
    Case("json", "steps-beyond-the-page", saved(iterations=10**9),
         r"^The 'iterations' parameter of the step page must be an int in \[0, 5000\]\. "
         r"Got 1000000000 instead\.$"),
    Case("json", "steps-negative", saved(iterations=-1),
         r"^The 'iterations' parameter of the step page must be an int in \[0, 5000\]\. Got -1 "),
    Case("json", "steps-as-text", saved(iterations="12"),
         r"^The 'iterations' parameter of the step page must be an int in \[0, 5000\]\. "
         r"Got '12' instead\.$"),
    Case("json", "max-iter-zero", saved(max_iter=0),
         r"^The 'max_iter' parameter of CBBoost must be an int in \[1, inf\)\. Got 0 instead\.$"),
    Case("json", "max-iter-huge", saved(max_iter=10**12),
         r"^The 'max_iter' parameter of the step page must be an int in \[1, 5000\]\. "
         r"Got 1000000000000 instead\.$"),
    Case("json", "max-iter-true", saved(max_iter=True),
         r"^The 'max_iter' parameter of CBBoost must be an int in \[1, inf\)\. "
         r"Got True instead\.$"),
    # the settings part, value by value as the sidebar applies it
    Case("json", "setting-wrong-type-text", saved({"n_samples": "many"}),
         refused("n_samples", r"an int in \[20, 20000\]", "'many'")),
    Case("json", "setting-fraction-for-an-integer", saved({"n_samples": 300.5}),
         refused("n_samples", r"an int in \[20, 20000\]", r"300\.5")),
    Case("json", "setting-true-for-a-number", saved({"delta": True}),
         refused("delta", r"a float in \[0\.001, 1\]", "True")),
    Case("json", "setting-null-for-text", saved({"toy": None}),
         refused("toy", "one of 'moons', .*", "None")),
    Case("json", "setting-list-for-text", saved({"pair": ["4", "9"]}),
         refused("pair", "text", r"\['4', '9'\]")),
    Case("json", "setting-unknown-data-set", saved({"real": "mnist"}),
         r"^The 'real' parameter of the data settings must be a data set of the catalogue"),
    Case("json", "setting-out-of-range", saved({"train_ratio": 0.95, "toy": "circles"}),
         refused("train_ratio", r"a float in \[0\.1, 0\.9\]", r"0\.95")),
]


# ------------------------------------------------------------------------------ pools and seeds

GB = r"would make [\d,]+ voters and need about [\d,.]+ GB; the cap is 2 GB"

POOL_CASES = [
    Case("pool", "stumps-1e9-thresholds", (StumpPool(n_thresholds=10**9), 300),
         r"^StumpPool\(n_thresholds=1000000000\) would make 4,000,000,000 voters and need "
         r"about 208\.0 GB; the cap is 2 GB"),
    Case("pool", "stumps-2**31-thresholds", (StumpPool(n_thresholds=2**31), 300),
         r"^StumpPool\(n_thresholds=2147483648\) " + GB),
    Case("pool", "stumps-1e7-thresholds-just-over", (StumpPool(n_thresholds=10**7), 300),
         r"40,000,000 voters and need about 2\.1 GB"),
    Case("pool", "stumps-1e9-quantile-thresholds",
         (StumpPool(n_thresholds=10**9, binning="quantile"), 300), ACCEPTED,
         lambda pool: pool.n_voters_ == 2 * 2 * 299),
    Case("pool", "stumps-zero-thresholds", (StumpPool(n_thresholds=0), 300),
         r"^n_thresholds must be a positive integer or 'all', got 0$"),
    Case("pool", "stumps-thresholds-as-text", (StumpPool(n_thresholds="10"), 300),
         r"^n_thresholds must be a positive integer or 'all', got '10'$"),
    Case("pool", "hyperplanes-1e9", (HyperplanePool(n_hyperplanes=10**9), 300),
         r"^HyperplanePool\(n_hyperplanes=1000000000\) " + GB),
    Case("pool", "hyperplanes-1e5-on-5000-examples",
         (HyperplanePool(n_hyperplanes=100_000), 5000), r"200,000 voters and need about 12\.0 GB"),
    Case("pool", "hyperplanes-true", (HyperplanePool(n_hyperplanes=True), 300),
         r"^n_hyperplanes must be a positive integer, got True$"),
    Case("pool", "rbf-1e9-on-20000-examples", (RBFPool(n_centers=10**9), 20_000),
         r"^RBFPool\(n_centers=1000000000\) would make 40,000 voters and need about 12\.8 GB"),
    Case("pool", "rbf-1e9-on-300-examples-is-every-point", (RBFPool(n_centers=10**9), 300),
         ACCEPTED, lambda pool: pool.n_voters_ == 600),
    Case("pool", "rbf-2000-on-14000-examples-as-the-app-allows", (RBFPool(n_centers=2000), 14000),
         ACCEPTED, lambda pool: pool.n_voters_ == 4000),
]

SEED = r"seed must be an integer in \[0, 4294967295\] \(NumPy's seed range\); got "
RANDOM_STATE = r"^random_state must be None or an integer in \[0, 4294967295\] \(NumPy's seed " \
               r"range\); got "


@functools.cache
def toy():
    return make_toy("xor", 100, 0.1, 0)


SEED_CASES = [
    Case("seed", "toy-moons-2**32", lambda: make_toy("moons", 100, 0.1, 2**32),
         "^" + SEED + "4294967296$", error=DataError),
    Case("seed", "toy-xor-negative", lambda: make_toy("xor", 100, 0.1, -1), "^" + SEED + "-1$",
         error=DataError),
    Case("seed", "toy-circles-1e30", lambda: make_toy("circles", 100, 0.1, 10**30),
         "^" + SEED + "1{1}0{30}$", error=DataError),
    Case("seed", "toy-true", lambda: make_toy("xor", 100, 0.1, True), "^" + SEED + "True$",
         error=DataError),
    Case("seed", "toy-moons-2**32-1", lambda: make_toy("moons", 100, 0.1, 2**32 - 1), ACCEPTED,
         lambda ds: ds.m == 100),
    Case("seed", "split-2**32", lambda: train_test(toy(), 0.7, 2**32), "^" + SEED + "4294967296$",
         error=DataError),
    Case("seed", "prepare-negative", lambda: prepare(toy(), 0.7, -5, noise=0.3),
         "^" + SEED + "-5$", error=DataError),
    Case("seed", "prepare-2**32-1-with-noise", lambda: prepare(toy(), 0.7, 2**32 - 1, noise=0.3),
         ACCEPTED, lambda split: split.X_train.shape == (70, 2)),
    Case("seed", "hyperplanes-negative",
         lambda: HyperplanePool(random_state=-1).fit(toy().X), RANDOM_STATE + "-1$"),
    Case("seed", "hyperplanes-2**32", lambda: HyperplanePool(random_state=2**32).fit(toy().X),
         RANDOM_STATE + "4294967296$"),
    Case("seed", "rbf-numpy-negative",
         lambda: RBFPool(random_state=np.int64(-3)).fit(toy().X, toy().y),
         RANDOM_STATE + r"(np\.int64\()?-3\)?$"),
    Case("seed", "rbf-as-text", lambda: RBFPool(random_state="0").fit(toy().X, toy().y),
         RANDOM_STATE + "'0'$"),
    Case("seed", "hyperplanes-generator",
         lambda: HyperplanePool(10, random_state=np.random.default_rng(1)).fit(toy().X),
         ACCEPTED, lambda pool: pool.n_voters_ == 20),
    Case("seed", "settings-negative", lambda: Settings(data_seed=-1),
         number_message("data_seed", "-1"), error=DataError),
    Case("seed", "settings-2**32", lambda: Settings(split_seed=2**32),
         number_message("split_seed", "4294967296"), error=DataError),
    Case("seed", "settings-numpy-integer", lambda: Settings(split_seed=np.int64(5)), ACCEPTED,
         lambda s: s.split_seed == 5),
    Case("seed", "build-problem-largest-seeds",
         lambda: build_problem(Settings(toy="xor", n_samples=60, data_seed=10**6,
                                        split_seed=10**6, pool="hyperplanes", n_pool=10)),
         ACCEPTED, lambda problem: problem.n_voters == 20),
]

TABLE = CSV_CASES + LINK_CASES + JSON_CASES + POOL_CASES + SEED_CASES
COUNTS = Counter(case.family for case in TABLE)


# ------------------------------------------------------------------------------ runners

def longest_echo(message, texts):
    """Length of the longest piece of ``message`` that occurs in one of the user's ``texts``."""
    best = 0
    for start in range(len(message)):
        while start + best < len(message) and any(message[start:start + best + 1] in t
                                                   for t in texts):
            best += 1
    return best


def outcome(call, error):
    """``(result, None)`` or ``(None, message)`` when ``call`` raised ``error`` exactly."""
    try:
        return call(), None
    except Exception as exc:  # noqa: BLE001 - the type is asserted: no other may escape
        assert type(exc) is error, f"{type(exc).__name__}: {exc}"
        return None, str(exc)


def run_csv(case):
    content, kwargs = case.input
    result, message = outcome(lambda: load_csv(content, **kwargs), DataError)
    if message is None:
        # the app offers csv_columns' names and passes the chosen (default: last) one back
        columns = csv_columns(content)
        assert set(result.feature_names) <= set(columns)
        if "label" not in kwargs:
            again = load_csv(content, label=columns[-1], **kwargs)
            assert np.array_equal(again.X, result.X) and np.array_equal(again.y, result.y)
        return result, None, [content.decode("latin-1")]
    outcome(lambda: csv_columns(content), DataError)  # the label picker: names or DataError
    app = for_app(message)
    assert not re.search(API, app), app
    if case.app:
        assert re.search(case.app, app), app
    texts = [content.decode("utf-8", "replace")] + [str(v) for v in kwargs.values()]
    return None, message, texts


def run_link(case):
    key = next((k for k in case.input if k in FIELDS), None)
    companion = ("split_seed", "7", 7) if key == "delta" else ("delta", "0.1", 0.1)
    settings, ignored = Settings.from_link({**case.input, companion[0]: companion[1]}, DEFAULTS)
    assert getattr(settings, companion[0]) == companion[2]  # the rest of the link applies
    assert len(ignored) <= 1, ignored
    if not ignored:
        return settings, None, []
    assert ignored[0].startswith(f"The {key!r} parameter")   # the message names the key
    assert getattr(settings, key) == getattr(DEFAULTS, key)  # the bad value is left out
    return None, ignored[0], list(case.input.values())


def run_json(case):
    loaded, message = outcome(lambda: read_json(case.input), ValueError)
    if message is None:
        settings, ignored = Settings.from_link(loaded[0], DEFAULTS)
        if ignored:
            loaded, message = None, ignored[0]
        else:
            loaded = (settings, loaded[1])
    return loaded, message, [case.input.decode("latin-1")]


@functools.cache
def points(m):
    X = np.random.default_rng(m).normal(size=(m, 2))
    return X, np.where(X[:, 0] > 0, 1, -1)


def run_pool(case):
    pool, m = case.input
    X, y = points(m)
    tracemalloc.start()
    try:
        result, message = outcome(lambda: pool.fit(X, y), ValueError)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    if message is not None:
        assert peak < MAX_REFUSAL_MB * 1e6, f"{peak / 1e6:.0f} MB taken before refusing"
    return result, message, []


def run_seed(case):
    return (*outcome(case.input, case.error), [])


RUNNERS = {"csv": run_csv, "link": run_link, "json": run_json, "pool": run_pool,
           "seed": run_seed}


@pytest.mark.parametrize("case", TABLE, ids=[f"{c.family}-{c.id}" for c in TABLE])
def test_hostile_input_gets_its_verdict(case):
    result, message, texts = RUNNERS[case.family](case)
    if case.verdict == ACCEPTED:
        assert message is None, message
        assert case.check(result)
    else:
        assert message is not None, "accepted, expected a refusal"
        assert re.search(case.verdict, message), message
        assert longest_echo(message, texts) <= MAX_ECHO, message


def test_the_table_has_several_cases_per_family_and_decides_each():
    assert set(COUNTS) == {"csv", "link", "json", "pool", "seed"}
    assert min(COUNTS.values()) >= 10
    assert len({(c.family, c.id) for c in TABLE}) == len(TABLE)  # ids are unique
    for case in TABLE:
        assert (case.check is not None) == (case.verdict == ACCEPTED), case.id
        assert case.family == "csv" or not case.app
