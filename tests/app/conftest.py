"""Shared by the app's browser tests: a headless Chromium per test module."""
import pytest
from helpers import chromium


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched
