"""The headless Chromium that the benchmarks and the browser tests drive through Playwright.

No path is written here: :func:`cbviz.export.chromium_path` finds it (``BROWSER_PATH``, else a
system Chromium), the same lookup kaleido's figure export uses.
"""
from cbviz.export import chromium_path

__all__ = ["CHROMIUM", "DRAWN", "FLAGS", "IDLE", "STATES_JS"]

#: the browser's executable, or None when this machine has none
CHROMIUM = chromium_path()
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: true in the page once Streamlit's script has finished its run
IDLE = ("() => { const a = document.querySelector(\"[data-testid='stApp']\");"
        " return a && a.getAttribute('data-test-script-state') === 'notRunning'; }")
#: true once, besides, every element is drawn: an element whose code loads on demand (the file
#: uploader, the pills) shows Streamlit's placeholder (``stSkeleton``) until it has loaded, and
#: only a drawn widget gives the frontend its state to send with the next click
DRAWN = ("() => (" + IDLE + ")()"
         " && !document.querySelector(\"[data-testid='stSkeleton']\")")
#: the page's connection and script states (Streamlit's test attributes), for a failure's message
STATES_JS = ("() => [document.querySelector('[data-test-connection-state]')"
             "?.getAttribute('data-test-connection-state'),"
             " document.querySelector(\"[data-testid='stApp']\")"
             "?.getAttribute('data-test-script-state')]")
