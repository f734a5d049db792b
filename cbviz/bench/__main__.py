"""``python -m cbviz.bench``: :func:`cbviz.bench.cli.main`."""
import sys

from .cli import main

sys.exit(main())
