"""The HTTP side of a :class:`benchmarks.protocol.Tab`, as a browser's: a cookie jar and plain
HTTP/1.1 GETs that send its cookies and keep the ones the server sets.  Private to
:mod:`benchmarks.protocol`.

What the jar leaves out: a tab talks to one server, so a cookie's path, domain, expiry and
``Secure`` flag are not checked; a cookie is kept (by name, the last value set) as long as the
tab.
"""
from __future__ import annotations

import asyncio
import urllib.parse


class Jar(dict):
    """A tab's cookies: name -> value."""

    def take(self, set_cookies):
        """Keep the cookies of ``Set-Cookie`` header values (their attributes are dropped)."""
        for value in set_cookies:
            name, _, v = value.split(";", 1)[0].strip().partition("=")
            if name:
                self[name] = v

    def header(self):
        """The ``Cookie`` header's value a browser sends with them ("" without cookies)."""
        return "; ".join(f"{name}={value}" for name, value in self.items())


async def get(base, target, jar, *, timeout, user_agent):
    """GET ``target`` (a path and query) on the server at ``base`` with ``jar``'s cookies, as
    one HTTP/1.1 request on its own connection; the response's cookies go into ``jar``.
    Returns the status line."""
    split = urllib.parse.urlsplit(base)
    host, port = split.hostname, split.port or (443 if split.scheme == "https" else 80)
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(host, port, ssl=split.scheme == "https"), timeout)
    cookie = f"Cookie: {jar.header()}\r\n" if jar else ""
    try:
        writer.write(f"GET {target or '/'} HTTP/1.1\r\nHost: {split.netloc}\r\n"
                     f"User-Agent: {user_agent}\r\nAccept: */*\r\n{cookie}"
                     "Connection: close\r\n\r\n".encode())
        data = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    status, *lines = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    jar.take(value for name, _, value in (line.partition(":") for line in lines)
             if name.strip().lower() == "set-cookie")
    return status
