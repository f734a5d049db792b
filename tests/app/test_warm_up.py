"""The app's start-up work (:func:`cbviz.app.streamlit_server.warm_up`): after it, no
student's Step imports or compiles anything; ``cbviz app`` does it before the server starts."""
import subprocess
import sys

from cbviz import cli
from cbviz.app import ENTRY, streamlit_server

# in a fresh process (this one may have compiled the kernels already): the warm-up, then one
# Step of every algorithm in every mode on the step page's problems, counting what numba
# compiles or loads from its disk cache meanwhile
FRESH = """
import numba.core.dispatcher as dispatcher
from cbviz.app.streamlit_server import _modes, warm_up
from cbviz.algorithms.klboost import _sweeps
from cbviz.algorithms.base import ParameterError
from cbviz.algorithms.registry import ALGORITHMS, make_algorithm
from cbviz.problem import POOLS, Settings, build_problem

warm_up()
import gc
print("frozen", gc.get_freeze_count() > 0)
print("lazy", [len(f.signatures) for f in
               (_sweeps._block_patterns, _sweeps._stump_blocks, _sweeps._apply_last)])
compiled = []
original = dispatcher.Dispatcher.compile
def counted(self, sig):
    compiled.append(self.py_func.__qualname__)
    return original(self, sig)
dispatcher.Dispatcher.compile = counted
problems = [Settings(pool=pool) for pool in POOLS] + [Settings(n_samples=500, n_thresholds="all")]
for settings in problems:
    problem = build_problem(settings)
    for key, spec in ALGORITHMS.items():
        if problem.n_voters > 200 and not spec.iterative:
            continue
        for params in _modes(spec):
            try:
                run = make_algorithm(key, 5, 0.05, **params).start(
                    problem.H_train, problem.split.y_train, problem.H_test, problem.split.y_test)
            except ParameterError:   # fitted trees and an algorithm that needs a finite pool
                continue
            run.step()
print("compiled", compiled)
"""


def test_after_the_warm_up_a_step_compiles_nothing():
    out = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines()
                 if line.startswith(("frozen", "lazy", "compiled")))
    assert lines["frozen"] == "True"   # start-up's objects out of the collector's scans
    # the KL learner's kernels compile on first use: the warm-up (no Step of the app) used
    # them, the one that reads the stump codes for codes of one and of two bytes
    assert lines["lazy"] == "[2, 1, 1]", out.stdout
    assert lines["compiled"] == "[]", out.stdout


def test_the_warm_up_imports_what_the_app_scripts_import():
    imports = streamlit_server._app_imports()
    assert {("streamlit", ()), ("cbviz", ("plots", "progress")),
            ("cbviz.ui.sidebar", ("apply_settings", "publish_sidebar"))} <= set(imports)


def test_cbviz_app_warms_up_before_streamlit_starts(monkeypatch, tmp_path):
    import streamlit.web.cli as streamlit_cli

    seen = []
    monkeypatch.chdir(tmp_path)   # `cbviz app` moves to the app's folder
    monkeypatch.setattr(streamlit_server, "check_database", lambda where: None)
    monkeypatch.setattr(streamlit_server, "warm_up", lambda: seen.append("warm"))
    monkeypatch.setattr(streamlit_cli, "main", lambda prog_name: seen.append(sys.argv[1:3]))
    assert cli.main(["app", "--server.headless", "true"]) == 0
    assert seen == ["warm", ["run", str(ENTRY)]]


def test_the_servers_of_the_tests_and_of_cbviz_serve_start_through_cbviz_app():
    assert streamlit_server._command(ENTRY)[1:] == ["-m", "cbviz", "app"]
    assert streamlit_server._command("/elsewhere/bare.py")[-2:] == ["run", "/elsewhere/bare.py"]
