"""Streamlit helpers shared by the pages (the only package code that imports streamlit)."""
from pathlib import Path

ICON = Path(__file__).parent / "assets" / "icon.png"  # the app's favicon, served by the app
