"""``python -m cbviz.bench``: :func:`cbviz.bench.commands.main`."""
import sys

from .commands import main

sys.exit(main())
