"""Developer tools that measure the app (they need the [test] extra: Playwright + Chromium)."""
