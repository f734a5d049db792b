"""``benchmarks.processes.pin``: the load tool's --split-cores keeps the server on a core of its own."""
import os
import subprocess
import sys

import pytest

from benchmarks.processes import pin

CORES = sorted(os.sched_getaffinity(0))


@pytest.mark.skipif(len(CORES) < 2, reason="needs two cores")
def test_a_pinned_process_and_the_threads_it_starts_later_stay_on_their_core():
    code = ("import os, sys, threading\n"
            "sys.stdin.readline()\n"  # wait until pinned
            "seen = []\n"
            "t = threading.Thread(target=lambda: seen.append(sorted(os.sched_getaffinity(0))))\n"
            "t.start(); t.join()\n"
            "print(sorted(os.sched_getaffinity(0)), seen[0])\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    pin(child.pid, {CORES[-1]})
    out, _ = child.communicate("go\n", timeout=30)
    assert out.split() == [f"[{CORES[-1]}]", f"[{CORES[-1]}]"]
    assert os.sched_getaffinity(0) == set(CORES)  # the caller is not moved


def test_a_process_that_is_gone_is_an_error_and_not_a_silent_pass():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    with pytest.raises(FileNotFoundError):
        pin(child.pid, {CORES[0]})
