"""A headless Streamlit server on a free local port, with its memory and CPU time (Linux).

Shared by the latency and load tools (:mod:`cbviz.tools.latency`, :mod:`cbviz.tools.load`).
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = ("() => { const a = document.querySelector(\"[data-testid='stApp']\");"
        " return a && a.getAttribute('data-test-script-state') === 'notRunning'; }")
_TICK = os.sysconf("SC_CLK_TCK")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class Server:
    """A running server: its URL and process id."""

    url: str
    pid: int

    def rss_mb(self):
        """Resident memory of the server process (MB)."""
        return rss_mb(self.pid)

    def cpu_seconds(self):
        """CPU time (user + system) the server process has used so far."""
        return cpu_seconds([self.pid])


def healthy(url, timeout=2.0):
    """Whether the app (or the proxy in front of it) at ``url`` answers its health check."""
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=timeout) as r:
            return r.read().strip() == b"ok"
    except OSError:
        return False


def wait_healthy(url, proc, seconds):
    """Wait until ``url`` is healthy; False when process ``proc`` ended or ``seconds`` ran out."""
    deadline = time.time() + seconds
    while not healthy(url):
        if proc.poll() is not None or time.time() > deadline:
            return False
        time.sleep(0.2)
    return True


@contextmanager
def serve(script, *options, env=None):
    """A headless Streamlit server for ``script`` (extra ``--server.x value`` options may be
    given); yields a :class:`Server` once its health endpoint answers."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", *options],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=None if env is None else {**os.environ, **env})
    url = f"http://127.0.0.1:{port}"
    try:
        if not wait_healthy(url, proc, 90):
            raise RuntimeError(f"streamlit did not start for {script}")
        yield Server(url, proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def rss_mb(pid):
    """Resident memory of process ``pid`` in MB (from /proc)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pids):
    """Total CPU time (user + system) of the processes ``pids`` that are still alive."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / _TICK


def machine_jiffies():
    """``(busy, total)`` clock ticks of all CPUs since boot (from /proc/stat)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def descendants(pid):
    """Process ids of every descendant of ``pid`` (children, their children, ...)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def pin(pid, cpus):
    """Keep every thread of process ``pid`` on the cores ``cpus`` (threads and processes it
    starts later inherit them)."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:  # the thread ended meanwhile
            pass
