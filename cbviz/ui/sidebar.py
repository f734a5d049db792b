"""The shared sidebar: data set, split, normalization, noise, voter pool and delta.

Drawn once per script run by the app's entry script (``cbviz/app/streamlit_app.py``).  The
settings live in one session-state dict (``STORE``) that survives runs in which a widget is
hidden (Streamlit forgets the state of a widget that is not drawn): every widget (key
``s_<field>``) is filled from the store before it is drawn and writes back to it when
changed.  The URL query string mirrors the store, so a link reproduces the view.  Changing
the data or the voters resets every run, with a notice.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from types import MappingProxyType

import streamlit as st

from .. import data
from ..lessons import link_preset
from ..markdown import md
from ..problem import (
    LIMITS,
    POOLS,
    THRESHOLD_CHOICES,
    NoFileYet,
    Settings,
    build_problem,
)
from . import address, class_link, hide, state, tasks
from .controls import number_field
from .notation import draw_glossary
from .messages import for_app

DEFAULTS = Settings()
_DEFAULT_VALUES = MappingProxyType(DEFAULTS.to_dict())   # once, read-only: every widget asks
EXAMPLE_CSV = Path(__file__).resolve().parent / "assets" / "example.csv"  # package data
RUN_PREFIX = "run_"  # session-state keys of runs that a data change resets


STORE = "settings_store"


def _key(name):
    return f"s_{name}"


def _store():
    """The session's settings (field -> value); created from the defaults."""
    return state.store(STORE, _DEFAULT_VALUES)


def _bound(name):
    """Widget arguments that tie widget ``s_<name>`` to the settings store."""
    _store()
    return state.bind(STORE, name, _key(name))


def _number(where, label, name, **options):
    """The number field of setting ``name`` (its range from ``LIMITS``): an emptied field keeps
    the setting (:func:`cbviz.ui.controls.number_field`), never Streamlit's default; the
    notice that says so spans the sidebar, under the field's row."""
    _store()
    return number_field(where, label, *LIMITS[name], STORE, name, _key(name), notice=st,
                        **options)


def apply_settings(values):
    """Queue settings (dict) to be written into the widgets before they are drawn next run."""
    st.session_state["pending_settings"] = dict(values)


def _load_pending():
    """Write queued settings (from a JSON file) or, on a session's first run, the URL's (over
    the defaults, or over the preset of the lesson a lesson link names).

    Each value is checked on its own: a bad one is ignored (and named on the page), the others
    apply.
    """
    pending = st.session_state.pop("pending_settings", None)
    base = DEFAULTS
    if pending is None and not st.session_state.get("query_loaded"):
        pending = dict(st.query_params)
        base = link_preset(pending) or DEFAULTS   # a lesson link: its lesson's preset
        st.session_state["link"] = pending  # the pages read their own keys from it
        # a link made after an upload (it names the label column: a reload, or a worker that
        # died) brings every setting back but the file
        st.session_state["csv_again"] = (pending.get("source") == "csv"
                                         and bool(pending.get("csv_label")))
    st.session_state["query_loaded"] = True
    if not pending:
        return
    settings, ignored = Settings.from_link(pending, base)
    if ignored:
        st.session_state["settings_error"] = ignored
    _store().update(settings.to_dict())


@st.cache_data(show_spinner=False, max_entries=1)
def _catalogue():
    return data.catalogue()


@st.cache_data(show_spinner=False, max_entries=64)
def _classes(name):
    return [str(c) for c in data.class_labels(name)]


def _data_widgets():
    source = st.radio("Data", ["toy", "real", "csv"], horizontal=True,
                      format_func={"toy": "toy 2-D", "real": "benchmark", "csv": "CSV upload"}.get,
                      **_bound("source"))
    csv_file = None
    if source == "toy":
        st.selectbox("Toy set", data.TOY_KINDS, **_bound("toy"))
        c1, c2 = st.columns(2)
        _number(c1, "Points", "n_samples", step=50)
        _number(c2, "Seed", "data_seed")
        st.slider("Spread (Gaussian jitter of the points)", *LIMITS["toy_noise"], step=0.05,
                  **_bound("toy_noise"),
                  help="standard deviation of the noise added to each coordinate; the classes "
                       "overlap more as it grows")
    elif source == "real":
        cat = _catalogue()
        real = cat[cat.kind == "real"].set_index("name")
        names = list(real.index)
        if _store()["real"] not in names:
            _store()["real"] = DEFAULTS.real
        name = st.selectbox("Data set", names,
                            format_func=lambda n: f"{n} (m={real.m[n]}, d={real.d[n]})",
                            **_bound("real"))
        st.caption(real.description[name])
        _pair_widgets(name, real.classes[name] > 2 or name == "digits")
    else:
        csv_file = _csv_widgets()
    return csv_file


def _csv_widgets():
    """Upload, label column, class pair, missing values; the example file to start from."""
    limit = st.get_option("server.maxUploadSize")
    csv_file = st.file_uploader(
        "CSV file", type=["csv", "txt"], key="csv_file",
        help=f"one row per example, one label column (default: the last); separators , ; tab "
             f"or |; decimal commas are read when fields are separated by ; tab or |; at most "
             f"{limit} MB")
    st.download_button("Example CSV file", EXAMPLE_CSV.read_bytes(), "cbviz_example.csv",
                       "text/csv", key="csv_example", on_click="ignore",
                       icon=":material/download:")
    if csv_file is not None:
        st.caption(f"File: {md(csv_file.name)} ({csv_file.size:,} bytes)")
        columns = _csv_columns(hashlib.sha256(csv_file.getvalue()).hexdigest(),
                               csv_file.getvalue())
        if columns:
            if _store()["csv_label"] not in columns:
                _store()["csv_label"] = columns[-1]
            st.selectbox("Label column", columns, **_bound("csv_label"))
    st.text_input("Class pair (if more than two classes)",
                  placeholder="a vs b   or   a vs rest", **_bound("pair"))
    st.toggle("Drop rows with missing values", **_bound("csv_drop_nan"),
              help="rows with an empty, NA or ? feature are dropped (and counted) instead of "
                   "refusing the file")
    return csv_file


@st.cache_data(show_spinner=False, max_entries=16)
def _csv_columns(digest, raw):
    """Column names of an uploaded file (parsed once per file, whatever the reruns)."""
    try:
        return data.csv_columns(raw)
    except data.DataError:  # the full loader gives the precise message
        return []


def _pair_widgets(name, multi):
    if not multi:
        _store()["pair"] = ""
        return
    classes = _classes(name)
    current = _store()["pair"].split(" vs ")
    default = _catalogue().set_index("name").default_pair[name]
    a_default = current[0] if len(current) == 2 and current[0] in classes else str(default[0])
    b_options = [c for c in classes] + ["rest"]
    b_default = current[1] if len(current) == 2 and current[1] in b_options else str(default[1])
    c1, c2 = st.columns(2)
    a = c1.selectbox("Class +1", classes, index=classes.index(a_default), key=f"pair_a_{name}")
    b = c2.selectbox("Class -1", b_options, index=b_options.index(b_default), key=f"pair_b_{name}")
    _store()["pair"] = f"{a} vs {b}"


def _split_widgets():
    st.slider("Train ratio", *LIMITS["train_ratio"], step=0.05, **_bound("train_ratio"))
    c1, c2 = st.columns(2)
    _number(c1, "Split seed", "split_seed")
    _number(c2, "Feature noise σ", "feature_noise", step=0.1,
            help="Gaussian noise added to every feature, std = σ × that feature's std on the "
                 "training part (cbviz's protocol; the CB-Boost paper's Sect. 5.4 uses its own, "
                 "in its Appendix F.1)")
    st.slider("Label noise (training labels flipped)", *LIMITS["label_noise"], step=0.05,
              **_bound("label_noise"),
              help="this share of the training labels, drawn at random (split seed), is flipped; "
                   "the test labels stay clean, so the test error is measured on the true classes")
    st.slider("Prior part (builds the voters only)", *LIMITS["prior_fraction"], step=0.05,
              **_bound("prior_fraction"),
              help="share of the training part held out to build the voter pool; the algorithms "
                   "learn on the rest and the PAC-Bayes bounds count only the rest (m = its "
                   "size), so the uniform prior over the pool does not depend on that sample. "
                   "0: the pool is built from the whole training part, as the papers do.")
    st.toggle("tanh normalization", **_bound("normalize"),
              help="tanh of standardized features, fitted on the training part only")


def _pool_widgets():
    pool = st.radio("Voters", POOLS, horizontal=True,
                    format_func={"stumps": "stumps", "hyperplanes": "hyperplanes",
                                 "rbf": "RBF", "trees": "fitted trees"}.get, **_bound("pool"))
    if pool == "trees":
        st.slider("Tree depth", *LIMITS["tree_depth"], **_bound("tree_depth"),
                  help="each round fits one tree of this depth to the algorithm's example "
                       "weights (depth 1: the best weighted stump; deeper: CART). For AdaBoost, "
                       "VEB-Boost and CB-Boost's gradient rule; the PAC-Bayes bounds do not "
                       "apply to voters fitted to the sample")
    elif pool == "stumps":
        st.select_slider("Thresholds per feature", THRESHOLD_CHOICES, **_bound("n_thresholds"),
                         help="equally spaced between the training min and max, or every "
                              "midpoint between distinct values; complements included")
    else:
        _number(st, "Voters in the pool (before complements)", "n_pool", step=10)
    if pool != "trees":
        st.toggle("Constant voter (bias)", **_bound("constant_voter"),
                  help="adds the voters +1 and -1, the same on every input, so the vote can "
                       "shift its threshold; none of the papers' pools has them")
    _number(st, "δ (confidence of the PAC-Bayes bounds)", "delta", step=0.01, format="%.3f")


def _current_settings():
    return Settings.from_dict(_store())


@st.cache_resource(show_spinner="Preparing data and voters...", max_entries=32, ttl="1h")
def _problem(key, csv_digest, _settings, _csv_bytes):
    """The problem of these settings (``key``: their JSON, which Streamlit hashes in a
    fraction of the time it takes to walk the dataclass), shared (read-only) by every session
    that uses them: at most 32, each dropped an hour after it was last built, so memory comes
    back."""
    return build_problem(_settings, _csv_bytes)


def draw_sidebar():
    """Draw the shared sidebar; return ``(settings, problem or None, error text or None)``."""
    _load_pending()
    csv_file = None
    if not hide.hidden("sidebar"):
        with st.sidebar:
            st.header("Data and voters")
            csv_file = _data_widgets()
            if not hide.hidden("advanced"):
                with st.expander("Split, noise, normalization", expanded=False):
                    _split_widgets()
                with st.expander("Voter pool and δ", expanded=True):
                    _pool_widgets()
        if not hide.hidden("glossary"):
            draw_glossary()
    ignored = st.session_state.pop("settings_error", None)
    if ignored:
        st.warning("Ignored from the link or file (the other settings apply): "
                   + md("; ".join(ignored)), icon=":material/link_off:")
    try:
        settings = _current_settings()
    except data.DataError as exc:
        return DEFAULTS, None, for_app(str(exc))
    address.write("shared", {**{k: str(v) for k, v in settings.to_dict().items()},
                             **hide.link_value(), **class_link.link_value()})
    _reset_runs_if_changed(settings)
    csv_bytes = csv_file.getvalue() if csv_file is not None else None
    digest = hashlib.sha256(csv_bytes).hexdigest() if csv_bytes is not None else ""
    try:
        problem = _problem(settings.to_json(), digest, settings, csv_bytes)
    except NoFileYet:
        return settings, None, None
    except data.DataError as exc:
        return settings, None, for_app(str(exc))
    return settings, problem, None


def _reset_runs_if_changed(settings):
    key = settings.data_key()
    old = st.session_state.get("data_key")
    st.session_state["data_key"] = key
    if old is not None and old != key:
        dropped = [k for k in st.session_state if str(k).startswith(RUN_PREFIX)]
        for k in dropped:
            del st.session_state[k]
        if dropped:
            st.session_state["reset_notice"] = ("Data or voters changed: the runs were reset.")


def show_reset_notice():
    """Show (once) the notice that a data change reset the runs."""
    notice = st.session_state.pop("reset_notice", None)
    if notice:
        st.info(notice, icon=":material/restart_alt:")


def publish_sidebar():
    """Draw the sidebar and leave its result in session state for the page of this run."""
    hide.load()
    tasks.collect()
    settings, problem, error = draw_sidebar()
    st.session_state.update(settings=settings, problem=problem, problem_error=error,
                            sidebar_drawn=True)
    show_reset_notice()


def require_problem():
    """The settings and problem of this run; a clear message and stop when there is none.

    The entry script draws the sidebar before the page; a page script run on its own (as
    ``AppTest`` does after a page switch) draws it here instead.
    """
    if not st.session_state.pop("sidebar_drawn", False):
        publish_sidebar()
        st.session_state.pop("sidebar_drawn")
    problem = st.session_state.get("problem")
    if problem is not None:
        st.session_state.pop("csv_again", None)
    if problem is None:
        error = st.session_state.get("problem_error")
        if st.session_state.get("csv_again") and not error:
            st.warning("**Upload your CSV file again.** This page was reopened from a link made "
                       "after an upload (a reload, or the server moved your session to another "
                       "worker): every setting is kept, but an uploaded file is not. Choose it "
                       "in the sidebar (Data: CSV upload).", icon=":material/upload_file:")
            st.stop()
        if error:
            st.error(f"**The data could not be used.** {md(error)}", icon=":material/error:")
        else:
            st.info("Choose a CSV file in the sidebar (Data: CSV upload), or download the "
                    "example file there to see the expected shape.", icon=":material/upload_file:")
        st.stop()
    return st.session_state["settings"], problem
