"""A browser tab without a browser: Streamlit's websocket protocol, spoken as its frontend does.

:class:`Tab` opens a page of a running Streamlit server (``/_stcore/stream``, the frontend's
subprotocol handshake), sends the ``BackMsg`` protobufs the frontend sends (``rerun_script``
with the query string, the page, every widget's state, the ForwardMsg cache's hashes and the
context) and keeps what the ``ForwardMsg`` stream draws: the element tree by delta path, the
widgets with their values, texts, Plotly figures, the query string.  Clicks, widget changes and
form submits are timed from the send to the run's end (``script_finished``), with the bytes and
messages received.  Every wait is on a message, never a sleep.  ``tests/benchmarks/
test_protocol.py`` checks, message by message, that it sends what Chromium sends.

``python -m benchmarks.protocol --url http://127.0.0.1:8501 --page step_through_cbboost
--query "source=toy&toy=moons" --tabs 50 --click Step --every 3 --duration 60 [--server-pid PID]``
runs many tabs at once (:mod:`benchmarks._protocol_load`) and prints page-load and action
latencies, errors, bytes per action and the server's CPU per action.

Example::

    async with Tab("http://127.0.0.1:8501") as tab:
        await tab.open("step_through_cbboost", "source=toy&toy=moons")
        action = await tab.click("Step")
        print(action.latency, action.bytes, tab.search(r"Iteration (\\d+) of (\\d+)"))

Like a browser, a tab keeps the cookies the server sets (:class:`~benchmarks._protocol_http.Jar`)
and sends them with its later requests and its websocket handshake, so behind ``cbviz serve``
nginx's sticky cookie keeps a tab on its worker; ``Tab.worker`` is the worker that took the
websocket (nginx's ``X-Cbviz-Worker`` header).

What the frontend does that a tab does not: no static files (JavaScript, CSS, the component's
``plotly.min.js``) are fetched, only the page's HTML, the health check and the host config
(``http=False``: none of them); widget values bound to the URL (``bind="query-params"``) are not
written to the query string by the tab; date and time inputs, data editors and custom
components' own state are left to their defaults on the server.
"""
from __future__ import annotations

import asyncio
import time
import urllib.parse
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState, ContextInfo

from ._protocol_http import Jar, get
from ._protocol_page import MessageCache, Page, Tree, plain
from ._protocol_receive import Receiver
from ._protocol_widgets import STATEFUL, States, WidgetError, user_value

__all__ = ["Action", "Tab", "TabClosed", "WidgetError", "main", "normalized", "plain"]

SETTABLE = {*STATEFUL, "toggle", "select_slider"} - {"file_uploader"}
USER_AGENT = "cbviz-protocol-tab/1 (Streamlit websocket protocol; benchmarks.protocol)"


class TabClosed(ConnectionError):
    """The server closed the tab's websocket (or it was never opened)."""


@dataclass
class Action:
    """One thing the tab did and what it cost: seconds from the send to the end of the run
    (``latency``; None while it runs), the ForwardMsgs and payload bytes received from the send
    until the next action, and the errors seen meanwhile (exception elements, a closed socket,
    a cache miss, a timeout).  ``connect``: for an ``open``, the seconds spent on the HTTP
    requests and the websocket handshake before the first ``BackMsg``."""

    kind: str           # "open", "click", "set", "submit"
    target: str
    sent: float         # time.perf_counter() at the send
    latency: float | None = None
    connect: float | None = None
    bytes: int = 0
    messages: int = 0
    errors: list = field(default_factory=list)

    @property
    def done(self):
        return self.latency is not None


class Tab(Receiver, Page):
    """One simulated browser tab on the Streamlit server at ``url`` (``http://host:port``,
    with the base path if it has one).  ``http``: before the websocket, GET the page's HTML,
    ``/_stcore/health`` (which sets the XSRF cookie the frontend hands back in its handshake)
    and ``/_stcore/host-config``, as the frontend does; every request carries the tab's
    cookies (``cookies``).  ``timezone``, ``locale``,
    ``color_scheme``: the context the frontend reports (``context_info``).  ``auto_rerun``:
    rerun fragments with ``run_every`` on their schedule, as the frontend's timers do.
    ``timeout``: seconds any wait may take (TimeoutError after)."""

    def __init__(self, url, *, timeout=60.0, http=True, timezone="UTC", timezone_offset=0,
                 locale="en-US", color_scheme="light", auto_rerun=True):
        self.base = url.rstrip("/")
        self.timeout, self.http, self.auto_rerun = timeout, http, auto_rerun
        self.context = dict(timezone=timezone, timezone_offset=timezone_offset, locale=locale,
                            is_embedded=False, color_scheme=color_scheme)
        self.sent = []        # every BackMsg sent, in order
        self.actions = []     # every Action
        self.errors = []      # every error seen, as text
        self.received = 0     # ForwardMsgs received in all
        self.handshake = {}   # the websocket handshake's subprotocols, origin and XSRF cookie
        self.cookies = Jar()  # the tab's cookies, kept from one page load to the next
        self.worker = None    # the worker behind nginx that took the websocket, if it says
        self._ws = self._reader = None
        self._closing = False
        self._changed = asyncio.Event()
        self._reset()

    def _reset(self):
        self.tree, self.states, self.cache = Tree(), States(), MessageCache()
        self.query_string, self.url_path = "", ""
        self.addresses = []              # every query string the server set, in order
        self.page_script_hash = self.main_script_hash = ""
        self.pages = {}                  # url path -> page script hash (navigation)
        self.max_cached_message_age = 2
        self.script_running = False
        self._run_id, self._new_session, self._navigation = "", False, False
        self._pending = []               # [seq, Action | None]: reruns not finished yet
        self._sends = self._sends_at_start = 0
        self._timers = {}                # fragment id -> (interval, task)
        self._closed = None

    # --- connection ---------------------------------------------------------------------------

    async def open(self, page="", query="", *, wait=True):
        """Load ``page`` (its URL path, "" for the home page) with ``query`` (a query string
        without "?") as a browser does from an address: a new websocket and session, and the
        first ``rerun_script`` naming the page by its path.  Returns the Action (page load)."""
        await self.close()
        self._reset()
        page, query = page.strip("/"), query.lstrip("?")
        self.url_path, self.query_string = page, query
        action = Action("open", f"/{page}" + (f"?{query}" if query else ""), time.perf_counter())
        self.actions.append(action)
        split = urllib.parse.urlsplit(self.base)
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException
        try:
            if self.http:
                address = f"{split.path}/{page}" + (f"?{query}" if query else "")
                for target in (address, f"{split.path}/_stcore/health",  # sets the XSRF cookie
                               f"{split.path}/_stcore/host-config"):
                    await self._get(target)
            cookie = self.cookies.get("_streamlit_xsrf")
            # the frontend's handshake: subprotocol "streamlit", then the XSRF cookie's value
            # (the server checks it against the cookie), then the last session's id on a
            # reconnect; the browser sends its cookies with it
            self.handshake = {"subprotocols": ["streamlit", cookie or "PLACEHOLDER_AUTH_TOKEN"],
                              "origin": f"{split.scheme}://{split.netloc}", "cookie": cookie}
            self._ws = await connect(
                f"{'wss' if split.scheme == 'https' else 'ws'}://{split.netloc}{split.path}"
                "/_stcore/stream", subprotocols=self.handshake["subprotocols"],
                origin=self.handshake["origin"],
                additional_headers={"Cookie": self.cookies.header()} if self.cookies else {},
                user_agent_header=USER_AGENT, proxy=None, max_size=None, ping_interval=None,
                open_timeout=self.timeout)
        except (OSError, asyncio.TimeoutError, WebSocketException) as exc:
            action.errors.append(f"connect: {exc!r}")
            self.errors.append(f"connect: {exc!r}")
            raise TabClosed(f"no websocket to {self.base}: {exc!r}") from exc
        answer = self._ws.response.headers
        self.cookies.take(answer.get_all("Set-Cookie"))
        self.worker = answer.get("X-Cbviz-Worker", "").split(",")[-1].strip() or None
        self._reader = asyncio.create_task(self._read())
        action.connect = time.perf_counter() - action.sent
        self._rerun(action, page_name=page)
        if wait:
            await self.wait_idle()
        return action

    async def close(self):
        """Close the websocket (the server keeps the session for its disconnected TTL)."""
        for _, task in self._timers.values():
            task.cancel()
        self._timers.clear()
        self._closing = True
        try:
            if self._ws is not None:
                await self._ws.close()
            if self._reader is not None:
                await asyncio.gather(self._reader, return_exceptions=True)
        finally:
            self._ws = self._reader = None
            self._closing = False

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()

    async def _get(self, target):
        """A plain HTTP/1.1 GET of ``target`` on the server, with the tab's cookies."""
        status = await get(self.base, target, self.cookies, timeout=self.timeout,
                              user_agent=USER_AGENT)
        if len(status.split()) < 2 or not status.split()[1].startswith(("2", "3")):
            self.errors.append(f"GET {target}: {status}")

    # --- sending ------------------------------------------------------------------------------

    def _rerun(self, action, *, states=None, fragment_id="", page_name="", auto=False):
        """Send ``rerun_script`` as the frontend's ``sendRerunBackMsg``."""
        if self._ws is None or self._closed is not None:
            raise TabClosed(self._closed or "the tab is not open")
        first = not self.page_script_hash
        client = ClientState(
            query_string=self.query_string,
            page_script_hash="" if first else self.page_script_hash,
            page_name=page_name if first else "", fragment_id=fragment_id, is_auto_rerun=auto,
            cached_message_hashes=self.cache.hashes(),
            context_info=ContextInfo(url=f"{self.base}/{self.url_path}", **self.context))
        client.widget_states.SetInParent()  # sent even when empty, as the frontend does
        client.widget_states.MergeFrom(states if states is not None else self.states.message())
        msg = BackMsg(rerun_script=client)
        self._new_session = False
        self._sends += 1
        self._pending.append([self._sends, action])
        self.sent.append(msg)
        task = asyncio.ensure_future(self._ws.send(msg.SerializeToString()))
        task.add_done_callback(self._send_failed)

    def _send_failed(self, task):
        if not task.cancelled() and task.exception() is not None:
            self._close_with(f"send failed: {task.exception()!r}")

    def _act(self, kind, target):
        action = Action(kind, target, time.perf_counter())
        self.actions.append(action)
        return action

    async def click(self, label, *, key=None, wait=True):
        """Click the button ``label`` (its text, or its key with ``key=``): a ``trigger_value``
        with every widget's state, in the button's fragment.  A form's submit button is
        :meth:`submit`.  Returns the Action (finished when ``wait``)."""
        w = self.widget(label, key=key)
        if w.type not in ("button", "download_button"):
            raise WidgetError(f"{w.label!r} is a {w.type}, not a button: use Tab.set")
        if w.is_submit:
            return await self._submit(w, wait)
        self._usable(w)
        action = self._act("click", w.label)
        self._rerun(action, states=self.states.message(w.id), fragment_id=w.fragment_id)
        return await self._finish(action, wait)

    async def set(self, label, value, *, key=None, wait=True):
        """Change widget ``label`` to ``value`` as a person would: an option (its index or its
        text) for a radio, selectbox, select slider, pills or segmented control (a list for
        several), a number for a number input or slider, a string for a text input, a bool for
        a checkbox or toggle.  A widget in a form keeps the value until :meth:`submit` (returns
        None); any other sends a rerun (returns its Action)."""
        w = self.widget(label, key=key)
        if w.type not in SETTABLE:
            raise WidgetError(f"{w.label!r} is a {w.type}: Tab.set cannot change it")
        self._usable(w)
        self.states.user_set(w, user_value(w, value))
        if w.form_id or getattr(w.proto, "ignore_rerun", False):
            return None
        action = self._act("set", w.label)
        self._rerun(action, fragment_id=w.fragment_id)
        return await self._finish(action, wait)

    async def submit(self, name, *, wait=True):
        """Submit a form by its submit button's label or by the form's key: the values set in
        the form go with the button's trigger, as the frontend's ``submitForm``."""
        buttons = [w for w in self.widgets() if w.is_submit]
        chosen = [w for w in buttons if w.label == name] or \
                 [w for w in buttons if w.form_id == name][:1]
        if not chosen:
            raise WidgetError(f"no form submit button or form {name!r} on the page; submit "
                              f"buttons: {[(w.label, w.form_id) for w in buttons]}")
        if len(chosen) > 1:
            raise WidgetError(f"{len(chosen)} submit buttons labelled {name!r}: name the form "
                              f"instead, one of {[w.form_id for w in chosen]}")
        return await self._submit(chosen[0], wait)

    async def _submit(self, w, wait):
        self._usable(w)
        self.states.submit(w.form_id)
        action = self._act("submit", w.label)
        self._rerun(action, states=self.states.message(w.id), fragment_id=w.fragment_id)
        return await self._finish(action, wait)

    def _usable(self, w):
        if w.disabled:
            raise WidgetError(f"{w.label!r} is disabled")

    async def _finish(self, action, wait):
        if wait:
            await self.wait_idle()
        return action

    # --- receiving ----------------------------------------------------------------------------

    async def wait_idle(self, timeout=None):
        """Wait until every rerun this tab asked for has finished and the server says the
        script is not running; TimeoutError after ``timeout`` (default: the tab's) seconds,
        TabClosed if the socket closes first."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while self._pending or self.script_running:
            if self._closed is not None:
                raise TabClosed(self._closed)
            self._changed.clear()
            left = deadline - time.monotonic()
            try:
                await asyncio.wait_for(self._changed.wait(), max(left, 0))
            except asyncio.TimeoutError:
                late = [a for _, a in self._pending if a is not None]
                for a in late:
                    a.errors.append("timeout")
                self.errors.append(f"timeout: {[a.target for a in late]} not finished")
                raise TimeoutError(f"the run did not end within {self.timeout} s: "
                                   f"{[a.target for a in late]}") from None
        if self._closed is not None and self._ws is not None:
            raise TabClosed(self._closed)

    async def wait_for(self, predicate, timeout=None):
        """Wait until ``predicate(self)`` is true, checked after each message (for what the
        server pushes without a click: a fragment's ``run_every``, another session's doing);
        TimeoutError after ``timeout`` (default: the tab's) seconds, TabClosed if the socket
        closes first."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while not predicate(self):
            if self._closed is not None:
                raise TabClosed(self._closed)
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), max(deadline - time.monotonic(), 0))
            except asyncio.TimeoutError:
                raise TimeoutError(f"not reached within {self.timeout} s: {predicate}") from None


def normalized(msg):
    """A ``BackMsg`` (or its bytes) as a dict to compare with what another client sent: its
    fields, with the widget states by id (their order is the order the widgets were mounted)
    and the cache's hashes as a sorted list (the order they were cached)."""
    from google.protobuf.json_format import MessageToDict
    if isinstance(msg, (bytes, bytearray)):
        raw, msg = msg, BackMsg()
        msg.ParseFromString(raw)
    which = msg.WhichOneof("type")
    if which != "rerun_script":
        return {which: MessageToDict(msg)}
    c = msg.rerun_script
    return {
        "query_string": c.query_string, "page_script_hash": c.page_script_hash,
        "page_name": c.page_name, "fragment_id": c.fragment_id,
        "is_auto_rerun": c.is_auto_rerun, "is_history_navigation": c.is_history_navigation,
        "has_widget_states": c.HasField("widget_states"),
        "widget_states": {w.id: _state(w) for w in c.widget_states.widgets},
        "cached_message_hashes": sorted(c.cached_message_hashes),
        "context_info": MessageToDict(c.context_info),
    }


def _state(widget_state):
    """``(field, value)`` of a WidgetState (``(None, None)``: no value)."""
    from google.protobuf.json_format import MessageToDict
    which = widget_state.WhichOneof("value")
    if which is None:
        return None, None
    head, *rest = which.split("_")
    return which, MessageToDict(widget_state)[head + "".join(p.title() for p in rest)]


def main(argv=None):
    from ._protocol_load import main as run
    return run(argv)


if __name__ == "__main__":
    main()
