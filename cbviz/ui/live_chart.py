"""A Plotly chart that stays on screen between reruns, redrawn in place, sent in parts.

``st.plotly_chart`` mounts a new chart (a new ``<div>``, ``Plotly.newPlot``) whenever its
figure changes, even under a fixed key: a Step redraws every chart from scratch and forgets
the zoom a student set (``uirevision`` cannot act on a new ``<div>``).  :func:`live_chart`
keeps one ``<div>`` per key and hands each new figure to ``Plotly.react``: the zoom and the
legend choices stay, nothing blanks, and a Step costs the browser less.  The ``<div>``
(class ``cbviz-live-chart``) counts its redraws in ``data-draws``, for tests and timings.

What a Step sends is what changed.  A figure goes as parts (its template, its layout, each
trace without its data arrays, each array), each named by a hash of its JSON; a part this
session's page already holds goes by name only.  The session keeps the parts it sent
(:data:`KEEP` of them, the most recently used, at most :data:`KEEP_BYTES`); the page keeps
more (``live_chart.js``), and a chart on the page that lacks one (a redraw it never got) asks
for every part again.  So the training and test points, the template and an unchanged layout
cross the network once per page, not at every Step.

The chart's code (``assets/js/live_chart.js``) and plotly.js (the copy shipped with the
``plotly`` Python package) are files that Streamlit serves from the folders of declared custom
components (file routes only: those components are never drawn); their addresses carry a hash
of their content (``?v=``), so a proxy can let browsers keep them (``cbviz serve`` does).
"""
from __future__ import annotations

import base64
import hashlib
import json
import pickle
import urllib.parse
from collections import OrderedDict
from pathlib import Path

import numpy as np
import plotly
import streamlit as st
from plotly.io.json import to_json_plotly
from streamlit.components import v1, v2
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ..plots import figure_summary
from ..plots.style import TEMPLATE

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
CHART_JS = Path(__file__).parent / "assets" / "js" / "live_chart.js"
KEEP, KEEP_BYTES = 128, 1_000_000  # parts a session remembers sending (the page keeps 1024)
STORE = "live_chart_parts"        # session state: part name -> its JSON, most recent last
SLOTS = "live_chart_arrays"       # session state: chart key -> {(trace, key): array's name}
COUNT = "live_chart_payloads"     # session state: how many payloads the session has made
NAME = "cbviz_live_chart"         # the component's name, in the page's messages


_FILES = {"plotlyjs": PLOTLY_JS, "cbviz_js": CHART_JS}   # served folders: name -> a file


def _address(name, **query):
    """The address of ``_FILES[name]`` relative to the page's, with a hash of its content
    (Streamlit names a declared component ``<declaring module>.<name>``)."""
    file = _FILES[name]
    version = hashlib.sha256(file.read_bytes()).hexdigest()[:8]   # sent with every chart
    return f"component/{__name__}.{name}/{file.name}?" + urllib.parse.urlencode(
        {"v": version, **query})


def _serve_files():
    """Have this server serve the two folders, once.  Streamlit declares a component only
    within a script run, so this runs from a chart, not at import: ``cbviz app`` imports this
    module before its server starts."""
    if get_script_run_ctx() is not None and not _served:
        for name, file in _FILES.items():
            v1.declare_component(name, path=str(file.parent))
        _served.append(True)


_served = []  # the folders are declared (a process has one server)


PLOTLY_SRC = _address("plotlyjs")
# the module finds plotly.js beside its own folder, and its version in its own address
CHART_SRC = _address("cbviz_js", p=PLOTLY_SRC.rpartition("=")[2])

# what each chart element carries (Streamlit sends it with every one): the module's loader,
# on two lines (Streamlit takes a one-line string with a "/" for a file's path)
_chart = v2.component(NAME, isolate_styles=False, js="export default async c=>\n(await import("
                      f'new URL("{CHART_SRC}",location.href))).draw(c)')


# numpy dtype -> plotly.js typed array type; int64 and uint64 go as the smallest that holds them
_TYPED = {np.dtype(name): code for name, code in (
    ("int8", "i1"), ("uint8", "u1"), ("int16", "i2"), ("uint16", "u2"), ("int32", "i4"),
    ("uint32", "u4"), ("float32", "f4"), ("float64", "f8"))}
_PLAIN = (str, int, float, bool, type(None))   # what a figure holds most: nothing to convert


def _typed(value):
    """``value`` (a trace or layout as a dict) with its numpy arrays as plotly.js typed arrays,
    as Plotly's ``Figure.to_dict`` gives them; Plotly's own conversion takes 4 ms a figure,
    mostly in checks that cbviz's arrays (plain numpy) never need."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_typed(v) for v in value]
    if not isinstance(value, np.ndarray) or value.size == 0:
        return value
    if value.dtype.kind in "iu" and value.dtype.itemsize == 8:
        for kind in (("int8", "int16", "int32") if value.dtype.kind == "i" else
                     ("uint8", "uint16", "uint32")):
            if np.iinfo(kind).min <= value.min() and value.max() <= np.iinfo(kind).max:
                value = value.astype(kind)
                break
    if value.dtype not in _TYPED:
        return value
    out = {"dtype": _TYPED[value.dtype],
           "bdata": base64.b64encode(np.ascontiguousarray(value)).decode("ascii")}
    if value.ndim > 1:
        out["shape"] = str(value.shape)[1:-1]
    return out


def _is_array(value):
    """A data array of a trace: a typed array (``{"dtype", "bdata"}``) or a list."""
    return isinstance(value, list) or (isinstance(value, dict) and "bdata" in value)


def _json(part):
    """``part`` as compact JSON; through Plotly's encoder only when the standard one cannot
    write it (a NaN, which Plotly writes as null; a numpy integer): that encoder writes the
    JSON, reads it back and writes it again, three times the cost."""
    try:
        return json.dumps(part, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return to_json_plotly(part)


_TEMPLATE_JSON = _json(TEMPLATE)   # the template every figure of cbviz.plots shares (3 kB)


def split(figure):
    """``figure`` (a ``go.Figure``, or its dict as cbviz.plots' ``spec=True`` gives it) as
    ``(figure, parts)``: the figure ``{"t": template's name, "l": layout's name, "d": [[name of
    the trace without its arrays, {key: name of the array, ...}], ...]}`` (JSON text) and the
    parts as ``((name, JSON), ...)`` in the order the figure names them.  A 1-D typed array
    goes as the string ``"dtype:bdata"``.  Depends on the figure alone: shareable."""
    parts = {}

    def name(part, text=None):
        flat = isinstance(part, dict) and part.keys() == {"dtype", "bdata"}
        if text is None:
            text = f'"{part["dtype"]}:{part["bdata"]}"' if flat else _json(part)
        key = base64.urlsafe_b64encode(hashlib.blake2b(text.encode(), digest_size=6).digest())
        key = key.decode()  # 8 characters, 48 bits: no collision among a session's parts
        parts.setdefault(key, text)
        return f'"{key}"'

    if isinstance(figure, dict):   # plots' ``spec=True``: already dicts, the template shared
        layout, data = dict(figure["layout"]), figure["data"]
    else:
        layout, data = figure.layout.to_plotly_json(), [t.to_plotly_json() for t in figure.data]
    template = layout.pop("template", {})
    template = name(template, _TEMPLATE_JSON if template is TEMPLATE else None)
    layout = name(_typed(layout))
    traces = []
    for trace in map(_typed, data):
        arrays = {k: trace.pop(k) for k in [k for k, v in trace.items() if _is_array(v)]}
        shell = name(trace)
        refs = ",".join(f'"{k}":{name(v)}' for k, v in arrays.items())
        traces.append(f"[{shell},{{{refs}}}]")
    return f'{{"t":{template},"l":{layout},"d":[{",".join(traces)}]}}', tuple(parts.items())


def _tail(before, after):
    """What ``after`` (a 1-D typed array's JSON, ``"dtype:bdata"``) adds to ``before`` (its
    bytes in base64), or None when it does not extend it."""
    if not (before[:1] == after[:1] == '"') or ":" not in before or ":" not in after:
        return None
    (kind, _, head), (kind2, _, whole) = (before[1:-1].partition(":"),
                                          after[1:-1].partition(":"))
    head, whole = base64.b64decode(head), base64.b64decode(whole)
    if kind != kind2 or len(whole) <= len(head) or not whole.startswith(head):
        return None
    return base64.b64encode(whole[len(head):]).decode()


def payload(figure, sent, label="", last=None, number=None):
    """The bytes that draw ``figure`` (a figure or :func:`split`'s pair) on a page that holds
    the parts in ``sent`` (an OrderedDict name -> JSON, updated here as the page's store will
    be): ``{"f": figure, "p": {name: part, ...}, "a": label, "n": number}`` with only the
    parts ``sent`` lacked; ``label``: the chart's text alternative; ``number``: the payload's
    place in the session's sequence (the page draws a chart's newest payload, whichever order
    they reach it in).

    ``last``: this chart's arrays sent before, (trace, key) -> name (updated here).  A new
    array that extends the one sent in its place (a history one iteration longer) goes as
    ``{"+": that array's name, "t": its tail's bytes in base64}``: a Step sends what it
    added."""
    figure, parts = figure if isinstance(figure, tuple) else split(figure)
    extends = {}
    if last is not None:
        for i, (_, arrays) in enumerate(json.loads(figure)["d"]):
            for k, name in arrays.items():
                before, last[i, k] = last.get((i, k)), name
                if before in sent and name not in sent:
                    extends[name] = before
    new = []
    for key, text in parts:
        if key in sent:
            sent.move_to_end(key)
            continue
        tail = _tail(sent[extends[key]], text) if key in extends else None
        sent[key] = text
        new.append(f'"{key}":{text}' if tail is None else
                   f'"{key}":{{"+":"{extends[key]}","t":"{tail}"}}')
    size = sum(map(len, sent.values()))
    while len(sent) > KEEP or (size > KEEP_BYTES and len(sent) > 1):
        size -= len(sent.popitem(last=False)[1])
    about = json.dumps({"a": label, **({} if number is None else {"n": number})},
                       ensure_ascii=False)[1:]
    return f'{{"f":{figure},"p":{{{",".join(new)}}},{about}'.encode()


def received(parts, held):
    """The parts of a payload (its ``"p"``: name -> value) as the page keeps them (name ->
    JSON), a tail joined to the array it extends (in ``held``, name -> JSON): for tests and
    protocol-level clients."""
    out = {}
    for name, value in parts.items():
        if isinstance(value, dict) and "+" in value:
            kind, _, head = json.loads(out.get(value["+"]) or held[value["+"]]).partition(":")
            joined = base64.b64decode(head) + base64.b64decode(value["t"])
            value = f"{kind}:{base64.b64encode(joined).decode()}"
        out[name] = json.dumps(value)
    return out


@st.cache_resource(max_entries=4096, ttl=3600, show_spinner=False)
def _shared(key, _figure, title):
    """:func:`split` of the figure ``_figure()`` makes and its summary, once per ``key`` and
    process: strings only, read by every session, written by none."""
    figure = _figure()
    return split(figure), figure_summary(figure, title)


def content_key(*values):
    """A digest of ``values`` (numpy arrays, anything picklable: a DataFrame pickles in 0.06 ms
    where pandas' own hashing takes 1.4), for :func:`live_chart`'s ``shared``: equal only for
    equal contents (128 bits; pickles of equal values made alike are alike)."""
    h = hashlib.blake2b(digest_size=16)
    for value in values:
        if isinstance(value, np.ndarray):
            h.update(f"{value.dtype}{value.shape}".encode())
            h.update(np.ascontiguousarray(value).tobytes())
        else:
            h.update(pickle.dumps(value, protocol=5))
    return h.hexdigest()


def _resend():
    """The page lacks a part: forget what it was sent, so every part goes again."""
    st.session_state[STORE] = OrderedDict()
    st.session_state[SLOTS] = {}


def live_chart(figure, key, shared=None, title=None):
    """Draw ``figure`` (a Plotly figure or its dict) full width under ``key``; a rerun that
    draws another figure under the same key updates the chart in place.

    The chart is an image named by :func:`cbviz.plots.figure_summary` (``title``, else the
    figure's own, then its current values), with its data as tables one click away and a PNG
    download under it (WCAG 2.1, 1.1.1).

    ``shared``: a key that names the figure's content (what it is drawn from, say a hash of
    the run's records and the iteration); ``figure`` is then a function that makes it, called
    only for a key this process has not seen: the students of a class on one link step
    through the same runs, and make each figure once between them."""
    _serve_files()
    sent = st.session_state.setdefault(STORE, OrderedDict())
    last = st.session_state.setdefault(SLOTS, {}).setdefault(key, {})
    if shared is None:
        parts, label = split(figure), figure_summary(figure, title)
    else:
        parts, label = _shared(shared, figure, title)
    number = st.session_state[COUNT] = st.session_state.get(COUNT, 0) + 1
    _chart(key=key, data=payload(parts, sent, label, last, number),
           on_missing_change=_resend)


def figure_of(data, parts):
    """The figure (a dict) a payload draws, its parts looked up in ``parts`` (name -> JSON,
    e.g. this session's :data:`STORE`) when the payload does not carry them: for tests and
    protocol-level clients, which see payloads without running the page's code."""
    message = json.loads(data)
    parts = {**parts, **received(message["p"], parts)}

    def part(name):
        value = json.loads(parts[name])
        if isinstance(value, str):
            dtype, _, bdata = value.partition(":")
            return {"dtype": dtype, "bdata": bdata}
        return value

    figure = message["f"]
    layout = {**part(figure["l"]), "template": part(figure["t"])}
    data = [{**part(shell), **{k: part(n) for k, n in arrays.items()}}
            for shell, arrays in figure["d"]]
    return {"data": data, "layout": layout}
