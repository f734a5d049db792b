"""What a protocol-level tab knows of its page: the element tree, the ForwardMsg cache, and
what the page shows (its widgets: :mod:`benchmarks._protocol_widgets`).  Each piece does what
Streamlit's frontend (``streamlit/static``, 1.67) does with the same messages, so that the
:class:`benchmarks.protocol.Tab` built on it sends the ``BackMsg`` a browser would send.
Private to :mod:`benchmarks.protocol`.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from cbviz.ui.live_chart import NAME as LIVE
from cbviz.ui.live_chart import figure_of, received
from cbviz.ui.live_status import markdown_of

from ._protocol_widgets import WIDGETS, Widget, WidgetError, options_of, value_of, widget_type

ROOTS = ("main", "sidebar", "event", "bottom")  # delta_path[0]
#: elements whose text :meth:`Page.texts` returns (captions are markdown of type CAPTION)
TEXT_TYPES = ("markdown", "alert", "heading", "text")
_EMPHASIS = re.compile(r"(?<!\\)(\*\*|__|`|(?<![\w*])\*(?!\s)|(?<!\s)\*(?![\w*]))")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~<>$])")


def plain(text):
    """``text`` without Markdown's emphasis and code marks and with its escaped characters
    (``0\\.5``) as they show (what a reader sees of it, near enough to search it)."""
    return _ESCAPED.sub(r"\1", _EMPHASIS.sub("", text))


# --- the tree -------------------------------------------------------------------------------

@dataclass
class Node:
    """An element (``children`` None) or a block, as the frontend's AppNode: the run that
    drew it last, and the fragment it belongs to."""

    kind: str               # the element's type ("markdown", "button", ...) or the block's
    proto: object           # the Element or the Block
    run_id: str
    fragment_id: str
    children: list | None = None
    script: str = ""        # the script that drew it (the entry script or a page's)

    def walk(self):
        yield self
        for child in self.children or ():
            if child is not None:
                yield from child.walk()


class Tree:
    """The four roots (main, sidebar, event, bottom) and what the deltas put under them, and
    the parts of the live charts' figures the page was sent (name -> JSON), as the page's
    ``live_chart.js`` keeps them."""

    def __init__(self):
        self.roots = [Node("root", None, "", "", []) for _ in ROOTS]
        self.chart_parts = {}

    def _slot(self, path):
        node = self.roots[path[0]]
        for i in path[1:-1]:
            if node.children is None or i >= len(node.children) or node.children[i] is None:
                raise KeyError(f"delta path {list(path)} has no parent block")
            node = node.children[i]
        if node.children is None:
            raise KeyError(f"delta path {list(path)}: the parent is an element")
        return node.children, path[-1]

    def put(self, path, node):
        children, i = self._slot(path)
        children.extend([None] * (i + 1 - len(children)))
        old = children[i]
        # a block drawn again in the same place keeps its children until the run ends
        if (node.children is not None and old is not None and old.children is not None
                and old.kind == node.kind):
            node.children = old.children
        children[i] = node
        chart = node.proto.bidi_component if node.kind == "bidi_component" else None
        if chart is not None and chart.component_name == LIVE and chart.bytes:
            self.chart_parts.update(received(json.loads(chart.bytes)["p"], self.chart_parts))

    def clear_stale(self, run_id, fragment_ids):
        """Drop what the run ``run_id`` did not draw again (a fragment run: only in its
        fragments), as the frontend's ``clearStaleNodes`` at the end of a run."""
        self._prune(lambda node: node.run_id == run_id
                    or bool(fragment_ids) and node.fragment_id not in fragment_ids)

    def keep_script(self, script):
        """Another page: keep only what the script ``script`` (the entry script) drew."""
        self._prune(lambda node: node.script == script)

    def _prune(self, keep):
        """Drop every node for which ``keep(node)`` is false, with what is under it."""
        def pruned(node):
            if node.children is not None:
                node.children = [pruned(c) for c in node.children if c and keep(c)]
            return node
        for root in self.roots:
            pruned(root)

    def nodes(self):
        for root in self.roots:
            yield from root.walk()


# --- the ForwardMsg cache ---------------------------------------------------------------------

class MessageCache:
    """The frontend's ForwardMessageCache: cacheable messages by hash, each with the script
    run count at which it was last used; the hashes go with every rerun
    (``cached_message_hashes``) and the server then sends only a reference (``ref_hash``)."""

    def __init__(self):
        self.messages = {}  # hash -> [serialized message, run count, fragment id]
        self.run_count = 0
        self.hits = self.misses = 0

    def hashes(self):
        return list(self.messages)

    def resolve(self, msg, raw):
        """``msg`` itself, or the cached message it refers to (with the reference's metadata).
        Raises KeyError for a reference to a message this tab never had."""
        kind = msg.WhichOneof("type")
        if kind != "ref_hash" and msg.metadata.cacheable and msg.hash:
            entry = self.messages.get(msg.hash)
            if entry is None:
                fragment = msg.delta.fragment_id if kind == "delta" else ""
                self.messages[msg.hash] = [raw, self.run_count, fragment]
            else:
                entry[1] = self.run_count
        if kind != "ref_hash":
            return msg
        entry = self.messages.get(msg.ref_hash)
        if entry is None:
            self.misses += 1
            raise KeyError(f"cached ForwardMsg missing: {msg.ref_hash}")
        self.hits += 1
        entry[1] = self.run_count
        full = ForwardMsg()
        full.ParseFromString(entry[0])
        full.metadata.CopyFrom(msg.metadata)
        return full

    def run_finished(self, max_age, fragment_ids):
        """A run ended: age every message (a fragment run: only those of its fragments) and
        drop those unused for more than ``max_age`` runs."""
        self.run_count += 1
        for h, (_, count, fragment) in list(self.messages.items()):
            if fragment_ids and fragment not in fragment_ids:
                continue
            if self.run_count - count > max_age:
                del self.messages[h]


# --- reading the page -------------------------------------------------------------------------

def text_of(node):
    """The text of a text element or of a status line (:mod:`cbviz.ui.live_status`)."""
    if node.kind not in TEXT_TYPES:
        return None
    body = getattr(node.proto, node.kind).body
    return markdown_of(body) or body if node.kind == "markdown" else body


def chart_of(node, parts):
    """A Plotly figure (dict) drawn by ``st.plotly_chart`` or by cbviz's live chart (its parts
    found in ``parts`` when the payload does not carry them), else None."""
    if node.kind == "plotly_chart":
        return json.loads(node.proto.plotly_chart.spec)
    chart = node.proto.bidi_component if node.kind == "bidi_component" else None
    if chart is None or chart.component_name != LIVE:
        return None
    if chart.bytes:
        return figure_of(chart.bytes, parts)
    figure = json.loads(chart.json or "{}").get("figure")  # a whole figure (before issue #29)
    return json.loads(figure) if isinstance(figure, str) else figure


class Page:
    """The reading half of a tab: what its page shows.  A mixin of ``Tab``; the state it reads
    is set up by ``Tab._reset``."""

    def texts(self):
        """Every markdown (captions included), alert, heading and text body on the page, in
        page order (main area, then the sidebar), as the script wrote them (Markdown)."""
        return [t for t in (text_of(n) for n in self.tree.nodes()) if t is not None]

    def search(self, pattern):
        """The first match of regular expression ``pattern`` in the page's texts read without
        Markdown's emphasis (as :func:`plain`), or None."""
        for text in self.texts():
            m = re.search(pattern, plain(text))
            if m:
                return m
        return None

    def headings(self):
        return [n.proto.heading.body for n in self.tree.nodes() if n.kind == "heading"]

    def exceptions(self):
        """The exceptions shown on the page now (type: message)."""
        return [f"{n.proto.exception.type}: {n.proto.exception.message}"
                for n in self.tree.nodes() if n.kind == "exception"]

    def charts(self):
        """The Plotly figures on the page (dicts), in page order."""
        charts = (chart_of(n, self.tree.chart_parts) for n in self.tree.nodes())
        return [c for c in charts if c is not None]

    def widgets(self):
        """Every widget on the page with the value this tab holds for it."""
        out = []
        for n in self.tree.nodes():
            if n.kind not in WIDGETS:
                continue
            p = getattr(n.proto, n.kind)
            state = self.states.get(p.id, p.form_id)
            out.append(Widget(p.id, widget_type(n.kind, p), p.label, options_of(n.kind, p),
                              None if state is None else value_of(state), p.form_id,
                              n.fragment_id, p.disabled, p))
        return out

    def widget(self, label, *, key=None):
        """The widget whose label is ``label``, else whose label starts with ``label`` and a
        colon ("Your guess" finds "Your guess: Does the C-bound ..."), else whose key is
        ``label`` (with ``key=``: whose key is ``key``).  WidgetError when none or several
        match, naming what the page has."""
        every = self.widgets()
        if key is not None:
            found = [w for w in every if w.key == key]
        else:
            found = [w for w in every if w.label == label] or \
                    [w for w in every if w.label.startswith(label + ": ")] or \
                    [w for w in every if w.key == label]
        if len(found) == 1:
            return found[0]
        if not found:
            shown = ", ".join(f"{w.label!r} ({w.type}{', key ' + w.key if w.key else ''})"
                              for w in every)
            what = f"key {key!r}" if key is not None else repr(label)
            raise WidgetError(f"no widget {what} on page /{self.url_path}; it has: "
                              f"{shown or 'no widget'}")
        raise WidgetError(f"{len(found)} widgets labelled {label!r}: give key=, one of "
                          f"{[w.key for w in found]}")
