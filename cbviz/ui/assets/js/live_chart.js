// cbviz's live chart (cbviz/ui/live_chart.py): a Plotly chart redrawn in place, its figure
// sent in content-addressed parts that the page keeps between redraws.
//
// A payload is JSON: {"f": {"t": template, "l": layout, "d": [[trace, {key: array, ...}],
// ...]}, "p": {name: part, ...}}, each part given by its name (a hash): the template, the
// layout, each trace without its data arrays and each array (key: "x", "y", "z", ...); "p"
// carries only the parts this page was not sent before.  A part that is a string "dtype:bdata"
// is a 1-D typed array ({dtype, bdata}); a part {"+": name, "t": bdata} is the array named
// extended by those bytes (a history one step longer).  The page keeps every part it is
// sent, drawn or not, most recently used last, up to KEEP of them (the server assumes far
// fewer).  A part a shown chart lacks (a redraw it never got) is asked for again through the
// "missing" trigger.  "n" numbers the session's payloads: a chart draws the newest it got.
//
// The payload's "a" is the chart's text alternative (cbviz.plots.figure_summary): the chart
// is an image (role "img") named by it, its SVG hidden from screen readers.  Under the chart,
// "Data table" shows the figure's data as tables (built when opened) and "Download PNG" saves
// it; Plotly's own toolbar is off (its buttons were ten Tab stops, one of them a "share").

const KEEP = 1024;
const CONFIG = {displaylogo: false, displayModeBar: false};
const MAX_ROWS = 2000;  // rows a data table shows; more are counted, not listed
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

function keep(carried) {  // the parts a payload carries, kept whether or not its figure draws
  for (const [name, value] of Object.entries(carried)) {
    let part = value;
    if (part && part["+"] !== undefined) {  // a tail: the array it extends, then these bytes
      const before = parts.get(part["+"]);
      if (before === undefined) continue;  // that array never came: the figure asks for it
      const at = before.indexOf(":");
      part = before.slice(0, at + 1) + btoa(atob(before.slice(at + 1)) + atob(part.t));
    }
    parts.delete(name);
    parts.set(name, part);
  }
}

function assemble(payload) {  // the figure, or null when a part is missing
  const { t: template, l: layout, d: data } = payload.f;
  const refs = [template, layout];
  for (const [shell, arrays] of data) refs.push(shell, ...Object.values(arrays));
  for (const ref of refs) {  // in the server's order: the most recently used last
    const part = parts.get(ref);
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
                       + "?v=" + HERE.searchParams.get("p"), HERE).href;

const TYPED = {f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array,
               i1: Int8Array, u4: Uint32Array, u2: Uint16Array, u1: Uint8Array};

function values(v) {  // a data array as a JS array (a typed array decoded), or null
  if (Array.isArray(v)) return v;
  if (!v || typeof v !== "object" || !("bdata" in v)) return null;
  const bytes = Uint8Array.from(atob(v.bdata), (c) => c.charCodeAt(0));
  const flat = Array.from(new TYPED[v.dtype](bytes.buffer));
  if (!v.shape) return flat;
  const cols = Number(String(v.shape).split(",").pop());
  const rows = [];
  for (let i = 0; i < flat.length; i += cols) rows.push(flat.slice(i, i + cols));
  return rows;
}

function plain(html) {  // a Plotly title's first line, as text
  const t = typeof html === "object" && html !== null ? html.text : html;
  const first = String(t || "").split(/<br\s*\/?>/i)[0];  // parsed inert: nothing runs or loads
  return new DOMParser().parseFromString(first, "text/html").body.textContent.trim();
}

function cell(v) {
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(+v.toFixed(4));
  return v === null || v === undefined ? "" : String(v);
}

function table(caption, head, rows) {
  const t = document.createElement("table");
  t.createCaption().textContent = caption;
  const tr = t.createTHead().insertRow();
  for (const h of head) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = h;
    tr.appendChild(th);
  }
  const body = t.createTBody();
  for (const row of rows.slice(0, MAX_ROWS)) {
    const r = body.insertRow();
    row.forEach((v, i) => {
      const c = i === 0 ? document.createElement("th") : document.createElement("td");
      if (i === 0) c.scope = "row";
      c.textContent = cell(v);
      r.appendChild(c);
    });
  }
  if (rows.length > MAX_ROWS) {
    t.createTFoot().insertRow().insertCell().textContent =
      `first ${MAX_ROWS} of ${rows.length} rows`;
  }
  return t;
}

function axisTitle(layout, trace, axis) {
  const ref = trace[axis + "axis"] || axis;
  return plain((layout[axis + "axis" + ref.slice(1)] || {}).title) || axis;
}

function same(a, b) {
  return a && b && a.length === b.length && a.every((v, i) => v === b[i]);
}

function tables(figure) {  // the figure's data: one table per grid, per run of traces on one x
  const out = [], layout = figure.layout, title = plain(layout.title) || "Chart";
  let group = null;
  const flush = () => {
    if (!group) return;
    const rows = group.x.map((x, i) => [x, ...group.ys.map((y) => y[i])]);
    out.push(table(`${title}: ${group.names.join(", ")}`, [group.head, ...group.names], rows));
    group = null;
  };
  figure.data.forEach((trace, k) => {
    const name = plain(trace.name) || `series ${k + 1}`;
    const type = trace.type || "scatter";
    if (type === "heatmap" || type === "contour") {
      flush();
      const z = values(trace.z);
      if (!z) return;
      const x = values(trace.x) || z[0].map((_, i) => i);
      const y = values(trace.y) || z.map((_, i) => i);
      const what = plain((trace.colorbar || {}).title) || name;
      const head = [`${axisTitle(layout, trace, "y")} \\ ${axisTitle(layout, trace, "x")}`,
                    ...x.map(cell)];
      out.push(table(`${title}: ${what}`, head, z.map((row, i) => [y[i], ...row])));
      return;
    }
    let x = values(trace.x), y = values(trace.y);
    if (trace.orientation === "h") [x, y] = [y, x];
    if (!y || (x && x.length === 2 && x[0] === x[1])) return;  // no data, or a guide line
    if (!x) x = y.map((_, i) => i + 1);
    if (group && same(group.x, x)) {
      group.names.push(name);
      group.ys.push(y);
      return;
    }
    flush();
    group = {x, ys: [y], names: [name], head: axisTitle(layout, trace, trace.orientation === "h" ? "y" : "x")};
  });
  flush();
  return out;
}

const STYLE = `
.cbviz-chart-tools{display:flex;gap:.5rem;margin:.25rem 0 .5rem}
.cbviz-chart-button{font:inherit;font-size:.875rem;line-height:1.6;color:inherit;cursor:pointer;
  background:transparent;border:1px solid #6b6f76;border-radius:.375rem;padding:0 .6rem}
.cbviz-chart-button:hover{border-color:currentColor}
.cbviz-chart-button[aria-expanded=true]{background:#f0f2f6}
.cbviz-chart-data{max-height:24rem;overflow:auto;margin-bottom:.5rem}
.cbviz-chart-data table{border-collapse:collapse;font-size:.8rem;margin:0 0 .75rem}
.cbviz-chart-data caption{text-align:left;font-weight:600;padding:.25rem 0}
.cbviz-chart-data th,.cbviz-chart-data td{border:1px solid #c7c9cf;padding:.1rem .4rem;
  text-align:right;font-variant-numeric:tabular-nums}`;

function style() {  // the buttons' and tables' look, once per page
  if (document.getElementById("cbviz-chart-style")) return;
  const tag = document.createElement("style");
  tag.id = "cbviz-chart-style";
  tag.textContent = STYLE;
  document.head.appendChild(tag);
}

function box(parentElement) {  // the chart, its text alternative and its two buttons, once
  let outer = parentElement.querySelector("div.cbviz-chart");
  if (outer) return outer;
  style();
  outer = document.createElement("div");
  outer.className = "cbviz-chart";
  const div = document.createElement("div");
  div.className = "cbviz-live-chart";
  div.setAttribute("role", "img");
  const tools = document.createElement("div");
  tools.className = "cbviz-chart-tools";
  const data = document.createElement("div");
  data.className = "cbviz-chart-data";
  data.id = "cbviz-data-" + Math.random().toString(36).slice(2);
  data.hidden = true;
  data.tabIndex = 0;  // it scrolls: reachable by keyboard
  data.setAttribute("role", "region");
  data.setAttribute("aria-label", "Data table");
  const show = document.createElement("button");
  show.type = "button";
  show.className = "cbviz-chart-button";
  show.textContent = "Data table";
  show.setAttribute("aria-expanded", "false");
  show.setAttribute("aria-controls", data.id);
  show.addEventListener("click", () => {
    data.hidden = !data.hidden;
    show.setAttribute("aria-expanded", String(!data.hidden));
    data.setAttribute("aria-label", "Data table: " + div.getAttribute("aria-label").split(". ")[0]);
    if (!data.hidden) data.replaceChildren(...tables(outer.cbvizFigure));
  });
  const save = document.createElement("button");
  save.type = "button";
  save.className = "cbviz-chart-button";
  save.textContent = "Download PNG";
  save.addEventListener("click", () => plotly(PLOTLY).then((Plotly) =>
    Plotly.downloadImage(div, {format: "png", filename: outer.cbvizFile || "chart"})));
  tools.append(show, save);
  outer.append(div, tools, data);
  parentElement.appendChild(outer);
  return outer;
}

function render(outer, div, figure, parentElement) {
  outer.cbvizFigure = figure;
  outer.cbvizFile = plain(figure.layout.title).toLowerCase().replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "") || "chart";
  const table = outer.querySelector("div.cbviz-chart-data");
  if (!table.hidden) table.replaceChildren(...tables(figure));
  const layout = figure.layout;
  const page = getComputedStyle(parentElement);  // the app's font and text color
  layout.font = {family: page.fontFamily, color: page.color, ...(layout.font || {})};
  div.style.height = (layout.height || 450) + "px";
  plotly(PLOTLY)
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
    .then(() => {
      for (const svg of div.querySelectorAll("svg")) svg.setAttribute("aria-hidden", "true");
      div.dataset.draws = String(Number(div.dataset.draws || 0) + 1);
    })
    .catch((err) => { div.textContent = "The chart could not be drawn: " + err.message; });
}

const RETRIES = [50, 150, 400];  // ms: the charts of one run draw in any order

export function draw(component) {
  const { data, parentElement, setTriggerValue } = component;
  let payload = JSON.parse(new TextDecoder().decode(data));
  keep(payload.p);
  const outer = box(parentElement);
  const div = outer.querySelector("div.cbviz-live-chart");
  // Each element imports this module anew, so while it loads two figures of one chart may
  // come in either order: the chart draws the newest it was given ("n", the session's count).
  if (div.cbvizNewest && div.cbvizNewest.n > payload.n) payload = div.cbvizNewest;
  div.cbvizNewest = payload;
  div.setAttribute("aria-label", payload.a || "Chart");  // named before anything is drawn
  const drawn = div.cbvizGen = (div.cbvizGen || 0) + 1;
  let live = true;  // until Streamlit takes the chart off the page or redraws it
  // A part may come with another chart of the same run, drawn after this one: look again a
  // few times, then have the server send every part again, if the chart is still shown (a
  // chart's ask names the page the browser is on, so one asked after a click on another page
  // would bring the student back).
  const attempt = (n) => {
    if (!live || div.cbvizGen !== drawn) return;  // gone, or a newer figure took over
    const figure = assemble(payload);
    if (figure !== null) render(outer, div, figure, parentElement);
    else if (n < RETRIES.length) setTimeout(() => attempt(n + 1), RETRIES[n]);
    else if (div.isConnected) setTriggerValue("missing", Date.now());  // new: every ask heard
  };
  attempt(0);
  return () => {  // an unmount, or a redraw on its way: purge only a chart no redraw took over
    live = false;
    plotly(PLOTLY).then((Plotly) => {
      if (div.cbvizGen !== drawn) return;
      if (div.cbvizResize) div.cbvizResize.disconnect();
      div.cbvizResize = undefined;
      Plotly.purge(div);
    }).catch(() => {});
  };
}
