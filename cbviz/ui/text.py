"""User text shown literally in markdown: :func:`cbviz.markdown.md`, for the pages."""
from ..markdown import md

__all__ = ["md"]
