// cbviz's live chart (cbviz/ui/live_chart.py): a Plotly chart redrawn in place, its figure
// sent in content-addressed parts that the page keeps between redraws.
//
// A payload is JSON: {"f": {"t": template, "l": layout, "d": [[trace, {key: array, ...}],
// ...]}, "p": {name: part, ...}}, each part given by its name (a hash): the template, the
// layout, each trace without its data arrays and each array (key: "x", "y", "z", ...); "p"
// carries only the parts this page was not sent before.  A part that is a string "dtype:bdata"
// is a 1-D typed array ({dtype, bdata}).  The page keeps the parts it
// was sent, most recently used last, up to KEEP of them (the server assumes far fewer).  A part
// it lacks (a redraw it never got) is asked for again through the "missing" trigger.

const KEEP = 1024;
const CONFIG = {displaylogo: false};
const parts = window.cbvizParts || (window.cbvizParts = new Map());

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

function assemble(payload) {  // the figure, or null when a part is missing
  const { t: template, l: layout, d: data } = payload.f;
  const refs = [template, layout];
  for (const [shell, arrays] of data) refs.push(shell, ...Object.values(arrays));
  for (const ref of refs) {  // in the server's order: the most recently used last
    const part = ref in payload.p ? payload.p[ref] : parts.get(ref);
    if (part === undefined) return null;
    parts.delete(ref);
    parts.set(ref, part);
  }
  const copy = (ref) => {  // Plotly may write into its input; "dtype:bdata": a typed array
    const part = parts.get(ref);
    if (typeof part !== "string") return structuredClone(part);
    const at = part.indexOf(":");
    return {dtype: part.slice(0, at), bdata: part.slice(at + 1)};
  };
  const figure = {layout: copy(layout), data: []};
  figure.layout.template = copy(template);
  for (const [shell, arrays] of data) {
    const trace = copy(shell);
    for (const [key, ref] of Object.entries(arrays)) trace[key] = copy(ref);
    figure.data.push(trace);
  }
  for (const old of parts.keys()) {
    if (parts.size <= KEEP) break;
    parts.delete(old);
  }
  return figure;
}

// plotly.js: in the folder beside this module's (cbviz/ui/live_chart.py declares both), its
// version given in this module's address
const HERE = new URL(import.meta.url);
const PLOTLY = new URL(HERE.pathname.replace(/cbviz_js\/live_chart\.js$/, "plotlyjs/plotly.min.js")
                       + "?v=" + HERE.searchParams.get("plotly"), HERE).href;

export function draw(component) {
  const src = PLOTLY;
  const { data, parentElement, setTriggerValue } = component;
  const payload = JSON.parse(new TextDecoder().decode(data));
  let div = parentElement.querySelector("div.cbviz-live-chart");
  if (!div) {
    div = document.createElement("div");
    div.className = "cbviz-live-chart";
    parentElement.appendChild(div);
  }
  const figure = assemble(payload);
  if (figure === null) {  // the server sends every part again
    setTriggerValue("missing", true);
    return () => {};
  }
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
