"""The address a teacher's class link points to: one that students' devices can open.

In order: the public URL the server was started with (``--public-url``, passed to the app as
``CBVIZ_PUBLIC_URL``); the browser's own address when it is not a loopback one; this machine's
network address when the server listens on the network (Streamlit's ``server.address``, or
nginx's under ``cbviz serve``, passed as ``CBVIZ_LISTEN_ADDRESS``); else the browser's loopback
address, with a warning.  Only :func:`page_class_base` reads Streamlit; nothing here sends a
packet (the network address is the source address of a route, found by a UDP ``connect``).
"""
from __future__ import annotations

import ipaddress
import os
import socket
from urllib.parse import urlsplit, urlunsplit

PUBLIC_URL_ENV = "CBVIZ_PUBLIC_URL"
LISTEN_ENV = "CBVIZ_LISTEN_ADDRESS"
WILDCARDS = ("", "0.0.0.0", "::")
# documentation addresses (RFC 5737, RFC 3849): a route to them tells the outgoing interface
_PROBES = ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1"))
LOOPBACK_WARNING = (
    "This link uses **{host}**, an address that only works on this computer: students' "
    "phones and laptops cannot open it. Start the app so that the class can reach it: "
    "`cbviz serve --public-url https://…` with the address students type, or "
    "`cbviz app --server.address 0.0.0.0` to serve it on this computer's network address.")


def public_url_problem(url):
    """What is wrong with ``url`` as the address students open the app at, or None."""
    try:
        parts = urlsplit(url)
        parts.port   # noqa: B018  (raises on a port that is not a number)
    except ValueError as exc:
        return f"{url!r} is not a web address ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return (f"{url!r} is not a web address: it must start with http:// or https:// and "
                "name a host, e.g. https://cbviz.school.example")
    if parts.query or parts.fragment:
        return f"{url!r} must be the app's address alone, without ?… or #…"
    return None


def is_loopback(host):
    """Whether ``host`` (a name or an IP address; None: unknown) only reaches this machine."""
    host = (host or "").lower().rstrip(".")
    if host in ("", "localhost") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def machine_address(families=(socket.AF_INET, socket.AF_INET6)):
    """A non-loopback IP address of this machine, or None: the source address of the route to
    a documentation address (``connect`` on a UDP socket picks the route and sends nothing)."""
    for family, target in _PROBES:
        if family not in families:
            continue
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((target, 9))
                ip = ipaddress.ip_address(s.getsockname()[0].split("%")[0])
        except OSError:
            continue
        if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified):
            return str(ip)
    return None


def network_host(listen_address):
    """The host students can reach a server listening on ``listen_address`` at, or None when
    it listens on loopback only (or on a Unix socket, or is unknown)."""
    if listen_address is None or listen_address.startswith("unix://"):
        return None
    if listen_address in WILDCARDS:
        return machine_address((socket.AF_INET,) if listen_address == "0.0.0.0" else
                               (socket.AF_INET, socket.AF_INET6))
    return None if is_loopback(listen_address) else listen_address


def class_base(browser_url, public_url=None, listen_address=None):
    """``(base URL of the class link, warning or None)`` for the page at ``browser_url``."""
    parts = urlsplit(browser_url)
    problem = public_url and public_url_problem(public_url)
    if public_url and not problem:
        page = parts.path.rstrip("/").rsplit("/", 1)[-1]
        return f"{public_url.rstrip('/')}/{page}", None
    prefix = (f"The class address set for this server is not used: {problem}. "
              if problem else "")
    if not is_loopback(parts.hostname):
        return browser_url, prefix or None
    host = network_host(listen_address)
    if host is None:
        return browser_url, prefix + LOOPBACK_WARNING.format(host=parts.hostname or "?")
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")), prefix or None


def page_class_base(default="http://localhost:8501/lessons"):
    """:func:`class_base` for the running page: its URL in the browser (``default`` if none
    was sent), ``CBVIZ_PUBLIC_URL`` and where the server listens (``CBVIZ_LISTEN_ADDRESS``,
    else Streamlit's ``server.address``: unset, it listens on every interface)."""
    import streamlit as st
    from streamlit import config
    listen = os.environ.get(LISTEN_ENV) or config.get_option("server.address") or ""
    return class_base(st.context.url or default, os.environ.get(PUBLIC_URL_ENV), listen)


__all__ = ["PUBLIC_URL_ENV", "LISTEN_ENV", "public_url_problem", "is_loopback",
           "machine_address", "network_host", "class_base", "page_class_base"]
