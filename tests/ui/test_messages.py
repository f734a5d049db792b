"""Package messages in the app's words: stop reasons name the app's controls, never the
Python API (``eligible='all'``, ``max_iter``), and numbers never print as ``-0.000``."""
import re

import numpy as np
import pytest
from sklearn.datasets import make_moons

from cbviz.algorithms import CBBoost, CqBoost
from cbviz.plots._values import title_number
from cbviz.plots.style import fixed
from cbviz.ui.messages import for_app, setting
from cbviz.voters import StumpPool

# an assignment, a quoted value ('all'; not the apostrophe of "Theorem 3's") or a code name
CODE = re.compile(r"[=\"]|'[^' ]*'|\b(max_iter|n_estimators|eligible|reuse_voters|reweight)\b")
RULES = [(e, r) for e in ("theorem3", "all") for r in (False, True)]


def small_pool():
    """Moons and 12 stumps (3 thresholds per feature, with complements): every rule stops."""
    X, y = make_moons(200, noise=0.25, random_state=0)
    return StumpPool(n_thresholds=3).fit(X).transform(X), 2 * y - 1


@pytest.mark.parametrize("eligible,reuse", RULES)
def test_cbboost_stop_reasons_name_the_step_pages_controls(eligible, reuse):
    H, y = small_pool()
    reason = CBBoost(max_iter=5000, eligible=eligible, reuse_voters=reuse).start(H, y).run() \
        .stop_reason
    assert CODE.search(reason)  # the package's text names its keyword arguments
    shown = for_app(reason)
    assert not CODE.search(shown), shown
    if (eligible, reuse) != ("all", True):  # a wider rule is named by its control
        assert "Eligible voters set to all" in shown or "Re-use voters on" in shown
    if eligible == "all":
        assert "(Eligible voters set to all" in shown


def test_limits_and_switches_in_words():
    H, y = small_pool()
    reason = CBBoost(max_iter=2).start(H, y).run().stop_reason
    assert reason == "max_iter reached (2): the paper's rule, a fixed number of iterations T = 2"
    assert for_app(reason) == ("the iteration limit (2) was reached: the paper's rule, a fixed "
                               "number of iterations T = 2")
    capped = CqBoost(max_iter=2).start(H, y).run().stop_reason
    assert for_app(capped).startswith("the iteration limit (2) was reached before the paper's "
                                      "stopping rule: a cap cut the run short (Algorithm 1")
    assert for_app("n_estimators reached (50)") == "the iteration limit (50) was reached"
    assert for_app("every voter of the pool is already in the ensemble (reweight=False)") == \
        "every voter of the pool is already in the ensemble (Re-weight voters off)"
    assert setting("reuse_voters", True) == "Re-use voters on"
    assert setting("eligible", "theorem3") == "Eligible voters set to theorem3"


@pytest.mark.parametrize("value, digits, text", [
    (-1e-17, 3, "0.000"), (-0.0, 2, "0.00"), (np.float64(-4e-4), 3, "0.000"),
    (-5e-4 - 1e-12, 3, "-0.001"), (0.41249, 3, "0.412"), (-0.25, 1, "-0.2"), (1.0, 4, "1.0000")])
def test_fixed_never_prints_a_negative_zero(value, digits, text):
    assert fixed(value, digits) == text


def test_titles_print_zero_unsigned():
    assert title_number(-0.0) == "0" and title_number(np.float64(-0.0)) == "0" \
        and title_number(-2.5e-3) == "-0.0025"
