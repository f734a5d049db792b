"""How a :class:`benchmarks.protocol.Tab` takes the server's ``ForwardMsg`` stream: the
frontend's handling of each message kind (a new run, deltas into the page's tree, the query
string, the end of a run with its stale elements dropped and the ForwardMsg cache aged, the
fragments' auto-rerun timers) and of a closed socket.  A mixin of ``Tab``, private to
:mod:`benchmarks.protocol`; the state it reads and writes is set up by ``Tab._reset``.
"""
from __future__ import annotations

import asyncio
import time

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from ._protocol_page import Node

DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
        ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}  # the run asked for is over
CLEARS = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


class Receiver:
    """The receiving half of a tab."""

    def _close_with(self, reason):
        if self._closed is None:
            self._closed = reason
            self.errors.append(reason)
            for _, action in self._pending:
                if action is not None:
                    action.errors.append(reason)
            if self.actions and not self._pending:
                self.actions[-1].errors.append(reason)
        self._changed.set()

    async def _read(self):
        from websockets.exceptions import ConnectionClosed
        try:
            async for raw in self._ws:
                if isinstance(raw, str):
                    self._close_with("a text frame from the server")
                    return
                self._receive(raw)
                self._changed.set()
        except ConnectionClosed:
            pass
        except Exception as exc:  # noqa: BLE001 - a broken message ends this tab, reported
            self._close_with(f"bad message: {exc!r}")
            return
        if self._closing:
            self._closed = "closed by the tab"
            self._changed.set()
            return
        code = self._ws.close_code if self._ws is not None else None
        reason = self._ws.close_reason if self._ws is not None else None
        self._close_with(f"websocket closed ({code if code is not None else 'no close frame'}"
                         f"{': ' + reason if reason else ''})")

    def _receive(self, raw):
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        self.received += 1
        action = self.actions[-1] if self.actions else None
        if action is not None:
            action.bytes += len(raw)
            action.messages += 1
        try:
            msg = self.cache.resolve(msg, raw)
        except KeyError as exc:
            self._error(str(exc))
            return
        kind = msg.WhichOneof("type")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(msg)

    def _error(self, text):
        self.errors.append(text)
        targets = [a for _, a in self._pending if a is not None] or self.actions[-1:]
        for a in targets:
            a.errors.append(text)

    def _on_new_session(self, msg):
        s = msg.new_session
        self._new_session = True
        self._run_id = msg.metadata.run.script_run_id
        self._sends_at_start = self._sends
        self.main_script_hash = s.main_script_hash
        self.max_cached_message_age = s.config.max_cached_message_age
        if not msg.metadata.run.fragment_ids:
            for _, task in self._timers.values():  # the run sets them again
                task.cancel()
            self._timers.clear()
        if not self._navigation:  # else the page is the one st.navigation names
            self._page_is(s.page_script_hash)

    def _page_is(self, page_hash):
        if self.page_script_hash and page_hash != self.page_script_hash:
            self.tree.keep_script(self.main_script_hash)  # the frontend's clearPageElements
        self.page_script_hash = page_hash

    def _on_session_status_changed(self, msg):
        self.script_running = msg.session_status_changed.script_is_running

    def _on_page_info_changed(self, msg):
        self.query_string = msg.page_info_changed.query_string
        self.addresses.append(self.query_string)

    def _on_navigation(self, msg):
        nav = msg.navigation
        self._navigation = True
        self._page_is(nav.page_script_hash)
        self.pages = {p.url_pathname: p.page_script_hash for p in nav.app_pages}
        for p in nav.app_pages:
            if p.page_script_hash == nav.page_script_hash:
                self.url_path = p.url_pathname

    def _on_page_not_found(self, msg):
        self._error(f"page not found: {msg.page_not_found.page_name!r}")

    def _on_session_event(self, msg):
        if msg.session_event.WhichOneof("type") == "script_compilation_exception":
            e = msg.session_event.script_compilation_exception
            self._error(f"{e.type}: {e.message}")

    def _on_delta(self, msg):
        delta, path = msg.delta, list(msg.metadata.delta_path)
        which = delta.WhichOneof("type")
        if which == "new_element":
            kind = delta.new_element.WhichOneof("type")
            node = Node(kind, delta.new_element, self._run_id, delta.fragment_id,
                        script=msg.metadata.active_script_hash)
            if kind == "exception":
                e = delta.new_element.exception
                self._error(f"{e.type}: {e.message}")
        elif which == "add_block":
            block = delta.add_block
            node = Node(block.WhichOneof("type") or "vertical", block, self._run_id,
                        delta.fragment_id, [], script=msg.metadata.active_script_hash)
        else:  # transient elements (spinners, toasts): not part of the page
            return
        try:
            self.tree.put(path, node)
        except KeyError as exc:
            self._error(str(exc))
            return
        self.states.seen(node)

    def _on_script_finished(self, msg):
        status, run = msg.script_finished, msg.metadata.run
        if status in CLEARS and (run.fragment_ids or run.script_run_id == self._run_id):
            self.tree.clear_stale(run.script_run_id, set(run.fragment_ids))
            self.states.keep_only({w.id for w in self.widgets()})
        if status != ForwardMsg.FINISHED_EARLY_FOR_RERUN and self._new_session:
            self.cache.run_finished(self.max_cached_message_age, set(run.fragment_ids))
        if status not in DONE:
            return
        done = [p for p in self._pending if p[0] <= self._sends_at_start] or self._pending[:1]
        now = time.perf_counter()
        for entry in done:
            self._pending.remove(entry)
            if entry[1] is not None:
                entry[1].latency = now - entry[1].sent

    def _on_auto_rerun(self, msg):
        interval, fragment = msg.auto_rerun.interval, msg.auto_rerun.fragment_id
        if not self.auto_rerun or not fragment or self._timers.get(fragment, (None,))[0] \
                == interval:
            return
        if fragment in self._timers:
            self._timers.pop(fragment)[1].cancel()

        async def every():
            while True:
                await asyncio.sleep(interval)  # the frontend's setInterval: a schedule
                if self._closed is None:
                    self._rerun(None, fragment_id=fragment, auto=True)
        self._timers[fragment] = (interval, asyncio.create_task(every()))

    def _on_stop_auto_rerun(self, msg):
        for fragment in msg.stop_auto_rerun.fragment_ids:
            if fragment in self._timers:
                self._timers.pop(fragment)[1].cancel()
