"""Every figure builder of cbviz.plots has an example in its docstring, and the examples run."""
import doctest
import inspect

import pytest

import cbviz.plots as plots
from cbviz.plots import cbound, comparison, curves, landscapes, regions, style, tables

MODULES = (cbound, comparison, curves, landscapes, regions, style, tables)


def _builders():
    public = [getattr(plots, name) for name in plots.__all__ if callable(getattr(plots, name))]
    public += [f for name, f in vars(cbound).items()
               if name.endswith("_figure") and inspect.isfunction(f)
               and f.__module__ == cbound.__name__]
    return public


@pytest.mark.parametrize("builder", _builders(), ids=lambda f: f.__name__)
def test_every_builder_has_an_example(builder):
    assert "\n    Examples\n    --------\n    >>> " in builder.__doc__


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_the_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             verbose=False)
    assert result.failed == 0
    if module is not style:
        assert result.attempted > 0
