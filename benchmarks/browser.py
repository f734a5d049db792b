"""The headless Chromium that the benchmarks and the browser tests drive through Playwright.

No path is written here: :func:`cbviz.export.chromium_path` finds it (``BROWSER_PATH``, else a
system Chromium), the same lookup kaleido's figure export uses.
"""
from cbviz.export import chromium_path

__all__ = ["CHROMIUM", "FLAGS", "IDLE"]

#: the browser's executable, or None when this machine has none
CHROMIUM = chromium_path()
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: true in the page once Streamlit's script has finished its run
IDLE = ("() => { const a = document.querySelector(\"[data-testid='stApp']\");"
        " return a && a.getAttribute('data-test-script-state') === 'notRunning'; }")
