"""A small class at once on the real server (``python -m benchmarks.load`` runs the full one).

Four browser sessions at the same time, two on the same settings (one cached problem) and two
on their own data sets; four Steps each with a visit to another page halfway.  Needs Debian's
Chromium (``.ci/run`` installs it; CBVIZ_REQUIRE_BROWSER=1 makes its absence a failure).
"""

import pytest
from helpers import require_chromium

from benchmarks.load import plan, report, run_classes

require_chromium()

pytestmark = pytest.mark.browser
SESSIONS, STEPS = 4, 4


@pytest.fixture(scope="module")
def measured():
    return run_classes([SESSIONS], STEPS, ttl=5)


def test_the_plan_mixes_shared_and_own_settings():
    queries = plan(SESSIONS)
    assert queries.count(queries[0]) == SESSIONS // 2 and len(set(queries)) == 1 + SESSIONS // 2


def test_each_session_sees_only_its_own_data_and_the_lone_runs_numbers(measured):
    _, _, results = measured
    result = results[SESSIONS]
    assert not result.failed, report(*measured)
    assert len(result.latencies) == SESSIONS * STEPS  # every Step of every session was timed


def test_the_server_answers_its_health_check_throughout(measured):
    _, _, results = measured
    health = results[SESSIONS].health
    assert health and all(t is not None and t < 5 for _, t in health), report(*measured)


def test_memory_comes_back_after_the_sessions_close(measured):
    """After the sessions are dropped the server holds no more than 60 MB over what it held
    once one warm-up session had come and gone (libraries, compiled kernels, the bounded
    caches)."""
    _, warm, results = measured
    assert results[SESSIONS].memory["after"] <= warm.memory["after"] + 60, report(*measured)
