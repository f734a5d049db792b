"""Plotly figures in the sphinx-gallery pages, readable offline.

Each example shows its figure with ``fig.show()``.  Plotly's own scraper
(:mod:`plotly.io._sg_scraper`) embeds it as interactive HTML and writes a PNG thumbnail
through kaleido (a Chromium is needed: ``BROWSER_PATH`` or Debian's ``/usr/bin/chromium``).
Its HTML loads plotly.js from a CDN; here that script tag is dropped and the gallery pages load
the copy of plotly.js shipped in the ``plotly`` package instead (see ``setup`` in ``conf.py``),
so the built site works without a network.
"""
from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path

import plotly
import plotly.io as pio
from plotly.io._sg_scraper import plotly_sg_scraper

from cbviz.export import chromium_path

# kaleido and the browser driver it uses log every start and clean-up at INFO level
for _name in ("kaleido", "choreographer", "logistro"):
    logging.getLogger(_name).setLevel(logging.WARNING)

_CDN = re.compile(r'<script charset="utf-8" src="https://cdn\.plot\.ly/[^"]*"[^>]*></script>')
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def reset(gallery_conf, fname, *, when=None):
    """Before each example: figures go to the scraper, kaleido finds the Chromium."""
    pio.renderers.default = "sphinx_gallery_png"
    path = chromium_path()
    if path:
        os.environ.setdefault("BROWSER_PATH", path)


def scraper(block, block_vars, gallery_conf, **kwargs):
    """plotly's scraper, with the CDN script tags removed."""
    return _CDN.sub("", plotly_sg_scraper(block, block_vars, gallery_conf, **kwargs))


def copy_plotly_js(static_dir):
    """Put plotly.js in the built site's ``_static``; returns its file name."""
    static_dir = Path(static_dir)
    static_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(PLOTLY_JS, static_dir / "plotly.min.js")
    return "plotly.min.js"
