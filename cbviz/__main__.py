"""``python -m cbviz COMMAND``: the same as the ``cbviz`` command (:mod:`cbviz.cli`)."""
import sys

from .cli import main

sys.exit(main())
