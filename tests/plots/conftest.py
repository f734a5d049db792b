"""Small real runs the figure tests draw from: two moons (80 training, 60 test examples), ten
thresholds per feature, ten CB-Boost iterations with their candidates kept."""
import pytest
from sklearn.datasets import make_moons

from cbviz.algorithms import CBBoost
from cbviz.voters import StumpPool


@pytest.fixture(scope="module")
def data():
    X, y = make_moons(80, noise=0.2, random_state=0)
    X_test, y_test = make_moons(60, noise=0.2, random_state=1)
    return X, 2 * y - 1, X_test, 2 * y_test - 1


@pytest.fixture(scope="module")
def pool(data):
    return StumpPool(10).fit(data[0])


@pytest.fixture(scope="module")
def run(data, pool):
    X, y, X_test, y_test = data
    return CBBoost(10, keep_candidates=True).start(
        pool.operator(X), y, pool.operator(X_test), y_test, describe=pool.describe).run()


@pytest.fixture(scope="module")
def frame(run):
    return run.to_frame()
