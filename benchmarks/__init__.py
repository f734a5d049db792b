"""Benchmarks of the running app, kept in the source checkout and out of the installed package.

They drive the app in a real browser (Playwright and a system Chromium), speak its websocket
protocol as the browser does, or read the processes of a server from Linux's ``/proc``, and
compare against numbers measured on this project's machines: tools for the people who change
cbviz, not for those who use it.  Run them from the repository folder, e.g.
``python -m benchmarks.load --sessions 5 20``; the tests import them through pytest's
``pythonpath`` (``pyproject.toml``).

Module map
----------
:mod:`benchmarks.latency`     click-to-idle time of a Step beside a bare one-button app
:mod:`benchmarks.load`        a class at once on one server (``--workers``: behind nginx)
:mod:`benchmarks.load_fleet`  a class on several workers behind nginx, and the kill drill
:mod:`benchmarks.class_load`  a live class (issue #28) behind nginx: a teacher's dashboard and
                              N protocol-level students joining and voting; latencies, the
                              dashboard's lag, votes stored / sent, CPU per worker
:mod:`benchmarks.class_of_100` issue #29's numbers: CPU and bytes per action, classes of 100
:mod:`benchmarks.students`    one student's session (the part ``load`` and ``load_fleet`` share)
:mod:`benchmarks.protocol`    a tab without a browser (Streamlit's websocket protocol, checked
                              against Chromium) and many at once: ``python -m benchmarks.protocol``
:mod:`benchmarks.browser`     the headless Chromium the tools and the browser tests drive
:mod:`benchmarks.processes`   memory, CPU time, descendants and cores of processes (Linux)
``bare_app.py``               the smallest Streamlit app (the latency tool's peer)
``_<module>_*.py``            private parts of ``<module>`` (``_protocol_page.py``, ...)
"""
