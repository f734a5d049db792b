"""A Plotly chart that stays on screen between reruns and is redrawn in place.

``st.plotly_chart`` mounts a new chart (a new ``<div>``, ``Plotly.newPlot``) whenever its
figure changes, even under a fixed key: a Step redraws every chart from scratch and forgets
the zoom a student set (``uirevision`` cannot act on a new ``<div>``).  :func:`live_chart`
keeps one ``<div>`` per key and hands each new figure to ``Plotly.react``: the zoom and the
legend choices stay, nothing blanks, and a Step costs the browser less.  The ``<div>``
(class ``cbviz-live-chart``) counts its redraws in ``data-draws``, for tests and timings.

plotly.js is the copy shipped with the ``plotly`` Python package (the one its standalone HTML
export embeds).  Streamlit serves it from the folder of a declared custom component (a file
route only: that component is never drawn) and the page loads it once.
"""
from __future__ import annotations

from pathlib import Path

import plotly
from streamlit.components import v1, v2

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
_files = v1.declare_component("plotlyjs", path=str(PLOTLY_JS.parent))
SRC = f"component/{_files.name}/{PLOTLY_JS.name}"  # relative to the page's address

_JS = """
const CONFIG = {displaylogo: false};

function plotly(src) {  // one load per page; plotly.js sets window.Plotly: the page keeps its own
  if (!window.cbvizPlotly) {
    window.cbvizPlotly = new Promise((resolve, reject) => {
      const before = window.Plotly;
      const tag = document.createElement("script");
      tag.src = src;
      tag.onload = () => {
        const loaded = window.Plotly;
        if (before !== undefined) window.Plotly = before;
        resolve(loaded);
      };
      tag.onerror = () => {
        window.cbvizPlotly = undefined;  // the next redraw tries again
        reject(new Error("plotly.js did not load from " + src));
      };
      document.head.appendChild(tag);
    });
  }
  return window.cbvizPlotly;
}

export default function (component) {
  const { data, parentElement } = component;
  const src = new URL(data.src, window.location.href).href;
  let div = parentElement.querySelector("div.cbviz-live-chart");
  if (!div) {
    div = document.createElement("div");
    div.className = "cbviz-live-chart";
    parentElement.appendChild(div);
  }
  const figure = JSON.parse(data.figure);
  const layout = figure.layout;
  const page = getComputedStyle(parentElement);  // the app's font and text color
  layout.font = {family: page.fontFamily, color: page.color, ...(layout.font || {})};
  div.style.height = (layout.height || 450) + "px";
  plotly(src)
    .then((Plotly) => {
      // the sidebar opens or closes: the page width changes, the window's does not
      if (!div.cbvizResize) {
        div.cbvizResize = new ResizeObserver(() => {
          if (div.data) Plotly.Plots.resize(div);
        });
        div.cbvizResize.observe(div);
      }
      return Plotly.react(div, figure.data, layout, CONFIG);
    })
    .then(() => { div.dataset.draws = String(Number(div.dataset.draws || 0) + 1); })
    .catch((err) => { div.textContent = "The chart could not be drawn: " + err.message; });
  return () => {
    if (div.cbvizResize) div.cbvizResize.disconnect();
    plotly(src).then((Plotly) => Plotly.purge(div)).catch(() => {});
  };
}
"""

_chart = v2.component("cbviz_live_chart", js=_JS, isolate_styles=False)


def live_chart(figure, key):
    """Draw ``figure`` (a Plotly figure) full width under ``key``; a rerun that draws another
    figure under the same key updates the chart in place."""
    _chart(key=key, data={"figure": figure.to_json(), "src": SRC})

