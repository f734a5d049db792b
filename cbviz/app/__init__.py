"""The Streamlit app, shipped inside the package, and ``cbviz serve`` (a class behind nginx).

The top layer: it may import :mod:`cbviz.ui` and everything below it; nothing in ``cbviz``
imports it except :mod:`cbviz.cli`.  Importing this package loads no Streamlit: it only names
the files that ``cbviz app`` and ``cbviz serve`` run, all of them package data, so that a wheel
installed anywhere runs the app without the source checkout.

Module map
----------
``streamlit_app.py``    the entry script: navigation, shared sidebar, home page
``app_pages/``          one script per page; a page's file name is its URL path
                        (``/lessons``, ``/gradient_vs_exhaustive``, ...): class links use
                        them.  One exception: ``step_through.py`` (it steps all seven
                        algorithms) keeps the URL path ``/step_through_cbboost`` of its old
                        name (``url_path`` in the entry script), so older links still open it.
                        Not ``pages/``: beside the entry script that name switches Streamlit
                        to its old multipage mode, which runs the folder's scripts instead of
                        the entry script on a session's first run
``.streamlit/``         the server's configuration, applied because the app runs with this
                        folder as its working directory
``nginx.conf.template`` nginx in front of several workers (``cbviz serve``)
:mod:`~cbviz.app.streamlit_server`  one headless Streamlit process on a free local port, and
                        the health check of a server or of the proxy in front of it
:mod:`~cbviz.app.serve` ``cbviz serve``: N workers behind nginx, supervised
"""
from pathlib import Path

__all__ = ["CONFIG", "ENTRY", "FOLDER", "NGINX_TEMPLATE", "PAGES"]

#: the folder of the app: Streamlit runs with it as working directory (its ``.streamlit/``)
FOLDER = Path(__file__).resolve().parent
#: the entry script ``streamlit run`` is given
ENTRY = FOLDER / "streamlit_app.py"
#: the page scripts (the entry script names them relative to its own folder)
PAGES = FOLDER / "app_pages"
#: Streamlit's configuration of the app
CONFIG = FOLDER / ".streamlit" / "config.toml"
#: the nginx configuration ``cbviz serve`` fills in
NGINX_TEMPLATE = FOLDER / "nginx.conf.template"
