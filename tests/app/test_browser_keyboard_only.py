"""A lesson walked with the keyboard only, from its link to every reveal (issue 30; WCAG 2.1:
2.1.1 Keyboard, 2.1.2 No Keyboard Trap, 2.4.7 Focus Visible, 1.4.11 Non-text Contrast).

Lesson 1 from ``/lessons?lesson=1&stage=1``, its four stages with Tab, Shift+Tab, Enter, Space,
the arrow keys and digits typed in a number field (never the mouse): a number answer (stages 1
and 3), a radio answer (2 and 4), a slider moved with the keys (2, 3) and a Step button (4).

At every stop the focused control (or the label, box or thumb that draws it: the focused
``<input>`` of a radio, switch or slider is visually hidden) must show a focus indicator with a
contrast of 3:1 against the colour behind it, computed in the page: the indicator's colour is
its outline (style not none, width >= 1 px), else a box-shadow, else a border whose colour
changed when the focus came (each composited over what is behind it), and "behind" is the
first opaque background of its ancestors (semi-transparent ones composited), with the WCAG
formula.  An indicator cut off by a clipping ancestor (more than half of it) does not count.
Every stop is printed: ``pytest -s`` lists them.

No trap: a full Tab cycle (on the first stage, and after the last reveal) comes back to its
first stop, each Tab moving the focus on, through the chart's two buttons; the chart's data
table (opened with Enter) is a stop that Tab leaves forward and Shift+Tab back; Escape closes
the glossary popover and gives the focus back to its button.

Every wait is on the page's state (the script idle, a text shown), never a sleep.
"""
import re

import pytest
from helpers import WAIT, require_chromium, settle, wait_text

from benchmarks.accessibility import STYLED
from cbviz.app.streamlit_server import serve
from cbviz.lessons import LESSONS, Lab

require_chromium()

pytestmark = pytest.mark.browser

# the border colour of every control and of its wrappers before a key moves the focus: a
# border that changes colour when the focus comes is an indicator, one that was there is not
SNAPSHOT = r"""() => {
  const seen = window.cbvizBorders = new WeakMap();
  const all = (root) => [...root.querySelectorAll('*')].flatMap(
      e => e.shadowRoot ? [e, ...all(e.shadowRoot)] : [e]);
  for (const e of all(document)) {
    if (e.tabIndex < 0 || !e.matches(
        'a[href], button, input, select, textarea, summary, [tabindex]')) continue;
    for (let a = e, i = 0; a && i < 6; a = a.parentElement, i++)
      if (!seen.has(a)) seen.set(a, getComputedStyle(a).borderTopColor);
  }
}"""

# the focused element and its focus indicator: {id, tag, type, role, name, group, checked,
# value, ratio, kind, color, on}, or null when the page has no focus (the body)
MEASURE = r"""async () => {
  // measured as the student sees it once the page is still: the focus styles' transitions
  // have run (a border fades in), and the focus is where it stays, on the same element with
  // the same box in two frames in a row (a redraw, a scroll or a late layout has ended).
  // Every wait is bounded, for a page that stops drawing frames stops the clock of its
  // transitions and frames too: the transitions' after 1 s, a frame's after 0.1 s, and 120
  // frames end the loop
  await Promise.race([
      Promise.all(document.getAnimations().filter(a => a instanceof CSSTransition)
                  .map(a => a.finished.catch(() => null))),
      new Promise(r => setTimeout(r, 1000))]);
  const focused = () => {
    let e = document.activeElement;
    while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
    return e;
  };
  let el = focused();
  for (let i = 0, last = null; i < 120; i++) {
    await Promise.race([new Promise(r => requestAnimationFrame(r)),
                        new Promise(r => setTimeout(r, 100))]);
    const now = focused();
    const r = now ? now.getBoundingClientRect() : {};
    const box = [r.top, r.left, r.width, r.height].join();
    if (now === el && box === last) break;
    [el, last] = [now, box];
  }
  if (!el || el === document.body || el === document.documentElement) return null;
  const canvas = window.cbvizCanvas || (window.cbvizCanvas = Object.assign(
      document.createElement('canvas'), {width: 1, height: 1}));
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const rgba = (css) => {  // any CSS colour as [r, g, b, a]: r, g, b 0-255, a 0-1
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = 'rgba(0, 0, 0, 0)';
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const over = (top, below) => top.slice(0, 3).map(  // top composited over an opaque colour
      (c, i) => c * top[3] + below[i] * (1 - top[3])).concat(1);
  const lum = (c) => c.slice(0, 3).map(v => v / 255).map(   // WCAG relative luminance
      v => v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
      .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const up = (e) => e.parentElement || (e.getRootNode() instanceof ShadowRoot ?
                                        e.getRootNode().host : null);
  const behind = (e) => {  // the opaque colour of e's box: its and its ancestors' backgrounds
    const layers = [];
    for (let a = e; a; a = up(a)) {
      const c = rgba(getComputedStyle(a).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    return layers.reverse().reduce((below, top) => over(top, below), [255, 255, 255, 1]);
  };
  const shown = (e) => {
    for (let a = e; a; a = up(a)) {
      const s = getComputedStyle(a);
      if (s.display === 'none' || s.visibility === 'hidden' || Number(s.opacity) === 0)
        return false;
    }
    return true;
  };
  const grow = (r, d) => ({l: r.l - d, t: r.t - d, r: r.r + d, b: r.b + d});
  const area = (r) => Math.max(0, r.r - r.l) * Math.max(0, r.b - r.t);
  const cut = (r, c) => ({l: Math.max(r.l, c.l), t: Math.max(r.t, c.t),
                          r: Math.min(r.r, c.r), b: Math.min(r.b, c.b)});
  const clipOf = (e) => {  // what e's clipping ancestors leave visible
    let c = {l: -1e9, t: -1e9, r: 1e9, b: 1e9};
    for (let a = up(e); a && a !== document.body && a !== document.documentElement; a = up(a)) {
      const s = getComputedStyle(a);
      if (s.clipPath.startsWith('inset(50%') || s.clip.startsWith('rect(0px, 0px, 0px, 0px'))
        return {l: 0, t: 0, r: 0, b: 0};   // visually hidden
      if (s.overflowX === 'visible' && s.overflowY === 'visible' && s.clip === 'auto'
          && s.clipPath === 'none') continue;
      // a <details> clips its content, not its <summary> (Chromium: ::details-content)
      if (a.tagName === 'DETAILS' && [...a.children].some(c => c.tagName === 'SUMMARY'
                                                          && c.contains(e))) continue;
      const b = a.getBoundingClientRect();
      c = cut(c, {l: b.left, t: b.top, r: b.right, b: b.bottom});
    }
    return c;
  };
  const visible = (inner, outer, clip) => {  // the unclipped share of the band outer - inner
    const band = area(outer) - area(inner);
    return band <= 0 ? 0 : (area(cut(outer, clip)) - area(cut(inner, clip))) / band;
  };
  const COLOR = /(?:rgba?|color|hsla?|oklch|oklab|lab|lch)\([^)]*\)|#[0-9a-f]+/i;
  const shadows = (text) => {  // box-shadow layers: [{color, lengths, inset}]
    if (!text || text === 'none') return [];
    const out = [];
    let depth = 0, start = 0;
    for (let i = 0; i <= text.length; i++) {
      if (text[i] === '(') depth++;
      if (text[i] === ')') depth--;
      if ((text[i] === ',' && depth === 0) || i === text.length) {
        const part = text.slice(start, i).trim();
        start = i + 1;
        const color = (part.match(COLOR) || ['currentcolor'])[0];
        const lengths = (part.replace(color, '').match(/-?[\d.]+px/g) || []).map(parseFloat);
        out.push({color, lengths, inset: /\binset\b/.test(part)});
      }
    }
    return out;
  };
  const indicators = (e) => {  // what e draws around itself when focused
    const s = getComputedStyle(e), b = e.getBoundingClientRect();
    const box = {l: b.left, t: b.top, r: b.right, b: b.bottom};
    const clip = clipOf(e);
    const out = [];
    const add = (kind, color, inner, outer, inside) => {
      const c = rgba(color);
      if (c[3] === 0) return;
      const back = behind(inside ? e : up(e) || e), seen = over(c, back);
      out.push({kind, color: `rgb(${seen.slice(0, 3).map(Math.round).join(', ')})`,
                ratio: ratio(seen, back), seen: visible(inner, outer, clip)});
    };
    const width = parseFloat(s.outlineWidth), offset = parseFloat(s.outlineOffset) || 0;
    if (s.outlineStyle !== 'none' && width >= 1)
      add('outline', s.outlineColor, grow(box, offset), grow(box, offset + width), offset < 0);
    for (const sh of shadows(s.boxShadow)) {
      const [, , blur = 0, spread = 0] = sh.lengths;
      const reach = spread + blur / 2;
      if (reach < 1) continue;
      if (sh.inset) add('inset shadow', sh.color, grow(box, -reach), box, true);
      else add('shadow', sh.color, box, grow(box, reach), false);
    }
    const before = (window.cbvizBorders || new WeakMap()).get(e);
    const bw = parseFloat(s.borderTopWidth);
    if (before !== undefined && bw >= 1 && s.borderTopStyle !== 'none'
        && rgba(before).join() !== rgba(s.borderTopColor).join()) {
      const n = out.length;
      add('border', s.borderTopColor, grow(box, -bw), box, false);
      if (out.length > n && rgba(s.backgroundColor)[3] > 0) {   // and against its own fill
        const c = over(rgba(s.borderTopColor), behind(e));
        out[n].ratio = Math.min(out[n].ratio, ratio(c, behind(e)));
      }
    }
    return out;
  };
  const name = (e) => {
    const by = (e.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean)
        .map(id => document.getElementById(id)).filter(Boolean).map(x => x.textContent);
    const label = e.labels && e.labels[0] ? e.labels[0].innerText : '';
    const text = ['radio', 'checkbox'].includes(e.type) ? label || e.getAttribute('aria-label')
        : e.getAttribute('aria-label') || by.join(' ') || label || e.innerText || e.value;
    return (text || '').replace(/\s+/g, ' ').trim().slice(0, 70);
  };
  // the control and the wrappers that are its own (inside its Streamlit element, or its
  // label when it holds no other radio or switch): the one with the best indicator carries it
  const carriers = [];
  for (let a = el, i = 0; a && i < 10; a = up(a), i++) {
    if (a !== el && (a.matches('[data-testid=stElementContainer], [data-testid=stVerticalBlock],'
                               + ' [role=radiogroup], main, body')))
      break;
    carriers.push(a);
  }
  let best = null;
  const why = [];   // for a stop without an indicator: what each carrier had
  for (const c of carriers) {
    if (!shown(c)) { why.push(`${c.tagName.toLowerCase()} not shown`); continue; }
    for (const ind of indicators(c)) {
      why.push(`${c.tagName.toLowerCase()} ${ind.kind} ${ind.ratio.toFixed(2)} seen ${ind.seen.toFixed(2)}`);
      if (ind.seen < 0.5) continue;   // mostly cut off: not what the student sees
      if (!best || ind.ratio > best.ratio) {
        const id = c.getAttribute('data-testid');
        const cls = typeof c.className === 'string' ? c.className.split(' ')[0] : '';
        best = {...ind, on: c.tagName.toLowerCase() + (id ? `[${id}]` : cls ? '.' + cls : '')};
      }
    }
  }
  const group = el.closest('[role=radiogroup], [role=toolbar]');
  const id = el.cbvizStop || (el.cbvizStop = (window.cbvizStops = (window.cbvizStops || 0) + 1));
  return {id, tag: el.tagName.toLowerCase(), type: el.getAttribute('type') || '',
          role: el.getAttribute('role') || '', name: name(el),
          group: group ? group.getAttribute('aria-label') || '' : '',
          checked: !!el.checked, value: el.value === undefined ? '' : String(el.value),
          ratio: best ? Math.round(best.ratio * 100) / 100 : 0,
          kind: best ? best.kind : 'none', color: best ? best.color : '', on: best ? best.on : '',
          why: best ? '' : `${why.join('; ') || 'no carrier draws one'}; box ${Math.round(
              el.getBoundingClientRect().top)}-${Math.round(el.getBoundingClientRect().bottom)}`
              + ` of ${innerHeight}`};
}"""


MIN_RATIO = 3.0   # WCAG 2.1, 1.4.11: a focus indicator at 3:1 against what is behind it
CYCLE = 150       # Tab presses a full cycle of the lesson page takes at most (~40 stops)


@pytest.fixture(scope="module")
def server():
    with serve() as running:
        yield running.url


class Keyboard:
    """The keyboard of ``page`` and every stop it reached (``stops``: dicts with the stage)."""

    def __init__(self, page):
        self.page, self.stops, self.where = page, [], ""

    def ready(self):
        """The script idle and the stylesheet in the page."""
        settle(self.page)
        self.page.wait_for_function(STYLED, timeout=WAIT)

    def focused(self):
        """The focused element and its indicator (None: nothing focused), recorded."""
        stop = self.page.evaluate(MEASURE)
        if stop is not None:
            self.stops.append({**stop, "where": self.where})
        return stop

    def press(self, key):
        """Press ``key`` and return the stop it leads to (the focus may stay where it was)."""
        self.page.evaluate(SNAPSHOT)
        self.page.keyboard.press(key)
        return self.focused()

    def tab_to(self, wanted, what, back=False):
        """Tab (Shift+Tab with ``back``) until ``wanted(stop)``; that stop."""
        for _ in range(CYCLE):
            stop = self.press("Shift+Tab" if back else "Tab")
            if stop is not None and wanted(stop):
                return stop
        raise AssertionError(f"{what}: not reached in {CYCLE} Tab presses ({self.where})")

    def cycle(self):
        """One full Tab cycle from the next stop back to it: each Tab moves the focus on and
        no stop comes twice before the first one does (no trap); the cycle's stops."""
        first = self.tab_to(lambda s: True, "any stop")
        ids, previous, stops = [first["id"]], first["id"], [first]
        for _ in range(CYCLE):
            stop = self.press("Tab")
            if stop is None:   # past the last stop: the browser's own controls, then around
                previous = None
                continue
            assert stop["id"] != previous, f"Tab left the focus on {stop['name']!r} ({self.where})"
            if stop["id"] == first["id"]:
                return stops
            assert stop["id"] not in ids, f"Tab came back to {stop['name']!r} before the " \
                                          f"cycle's first stop, {first['name']!r}: a trap"
            ids.append(stop["id"])
            stops.append(stop)
            previous = stop["id"]
        raise AssertionError(f"Tab did not come back to {first['name']!r} in {CYCLE} presses: "
                             f"a trap ({self.where})")

    def type(self, text):
        self.page.keyboard.type(text)


def guess_box(stop):
    return stop["name"].startswith("Your guess:")


def in_answers(stop):
    return stop["type"] == "radio" and stop["group"].startswith("Your guess:")


def named(text):
    return lambda stop: stop["name"].endswith(text)


def the_chart_and_its_table(keys):
    """The chart's buttons, and its data table opened with Enter: a stop of its own that Tab
    leaves forward and Shift+Tab leaves back."""
    keys.tab_to(lambda s: s["name"] == "Data table" and s["tag"] == "button", "Data table")
    keys.press("Enter")
    keys.page.locator(".cbviz-chart-data:not([hidden])").first.wait_for(timeout=WAIT)
    assert keys.press("Tab")["name"] == "Download PNG"
    table = keys.press("Tab")
    assert table["role"] == "region" and table["name"].startswith("Data table:"), table
    after = keys.press("Tab")
    assert after is None or after["id"] != table["id"], "Tab stayed in the data table"
    keys.press("Shift+Tab")
    assert keys.press("Shift+Tab")["name"] == "Download PNG", "Shift+Tab stayed in the table"
    assert keys.press("Shift+Tab")["name"] == "Data table"


def answer(keys, question, value, lock):
    """Reach the answer with Tab, give it (digits typed, or the arrow keys in the radio
    group), then Tab to "Lock in my guess" and press it (Space, or Enter for a choice); wait
    until the form, whose button has the Streamlit key ``lock``, is gone."""
    if question.numeric:
        keys.tab_to(guess_box, "the number field of the answer")
        digits = f"{round(value, 2):g}"
        keys.type(digits)
        assert keys.focused()["value"] == digits
        keys.tab_to(named("Lock in my guess"), "Lock")
        keys.page.keyboard.press("Space")   # the form goes, its button with it: no stop
    else:
        stop = keys.tab_to(in_answers, "the answer's radio buttons")
        assert stop["name"] == question.choices[0], stop   # nothing chosen: the first one
        index = question.choices.index(value)
        if index == 0:
            stop = keys.press("Space")
        for _ in range(index):
            stop = keys.press("ArrowDown")
        assert stop["checked"] and stop["name"] == value, stop
        after = keys.press("Tab")   # one Tab leaves the group, to its Lock button
        assert after["name"].endswith("Lock in my guess"), after
        keys.page.keyboard.press("Enter")
    keys.page.locator(f".st-key-{lock}").wait_for(state="detached", timeout=WAIT)
    keys.ready()


def act(keys, stage, lab):
    """The stage's action by keyboard: its slider moved with the keys (Page Up while far), or
    its Step button pressed with Enter."""
    action = stage.action
    if hasattr(action, "field"):   # Move
        stop = keys.tab_to(lambda s: s["type"] == "range" and s["name"] == action.label,
                           "the stage's slider")
        while float(stop["value"]) < action.target - action.tolerance - 1e-9:
            key = "PageUp" if action.target - float(stop["value"]) > 0.1 else "ArrowRight"
            stop = keys.press(key)
            keys.ready()
            stop = keys.focused()   # after the rerun the focus is still on the thumb
            assert stop is not None and stop["type"] == "range", stop
    elif hasattr(action, "target"):   # Step
        keys.tab_to(lambda s: s["tag"] == "button" and s["name"].split(" ")[-1] == "Step",
                    "Step")
        keys.press("Enter")
    else:
        raise AssertionError(f"no keyboard action written for {action!r}")


def the_glossary_popover(keys):
    """The popover opens with Enter, Escape closes it and gives the focus back to its button."""
    opener = keys.tab_to(lambda s: "Glossary of this stage" in s["name"], "Glossary")
    keys.press("Enter")
    popover = keys.page.locator("[data-testid='stPopoverBody']")
    popover.first.wait_for(timeout=WAIT)
    keys.press("Tab")
    back = keys.press("Escape")
    popover.first.wait_for(state="hidden", timeout=WAIT)
    back = back if back is not None and back["id"] == opener["id"] else keys.focused()
    assert back is not None and back["id"] == opener["id"], back


def walk(keys, server):
    """Lesson 1 by keyboard from its link; the stops are in ``keys.stops``."""
    page = keys.page
    lesson, n = LESSONS[0], 1
    lab = Lab.preset(lesson)
    page.goto(f"{server}/lessons?lesson={n}&stage=1")
    for k, stage in enumerate(lesson.stages, start=1):
        keys.where = f"stage {k}"
        wait_text(page, f"Stage {k} of {len(lesson.stages)}")
        keys.ready()
        acted = stage.action.done(lab)
        stage.action.perform(lab)
        expected = stage.reveal(lab)
        if k == 1:   # a full cycle before the answer (one after the last reveal below)
            assert any(s["name"] == "Download PNG" for s in keys.cycle())
            the_chart_and_its_table(keys)
        answer(keys, stage.question, expected.answer, lock=f"lesson_lock_{n}_{k}")
        if not acted:
            act(keys, stage, lab)
        verdict = page.locator("[data-testid='stAlert']").filter(
            has_text=re.compile(r"Right\.|Not this time\."))
        verdict.first.wait_for(timeout=WAIT)
        keys.ready()
        said = verdict.first.inner_text()
        assert "Right." in said and "Not this time." not in said, said
        assert page.locator("[data-testid='stException']").count() == 0
        keys.where = f"stage {k}, revealed"
        if k == len(lesson.stages):
            keys.cycle()
        keys.tab_to(lambda s: s["tag"] == "summary" and "Why, with the numbers" in s["name"],
                    "the reveal's Why")
        keys.press("Enter")   # a <summary>: Enter opens its expander
        page.get_by_text("Source:").first.wait_for(timeout=WAIT)
        if k < len(lesson.stages):
            keys.tab_to(named("Next stage"), "Next stage")
            keys.press("Enter")
        else:
            the_glossary_popover(keys)
    wait_text(page, f"End of lesson {n}")


def table(stops):
    """The stops as lines: stage, element, name, the indicator's kind, carrier and ratio."""
    lines, seen = [], set()
    for s in stops:
        what = (s["where"], s["tag"], s["type"] or s["role"], s["name"], s["ratio"], s["on"])
        if what in seen:
            continue
        seen.add(what)
        lines.append(f"{s['where']:<17} {s['tag']:<7} {(s['type'] or s['role'])[:8]:<8} "
                     f"{s['name'][:48]:<48} {s['kind']:<7} {s['on'][:32]:<32} {s['ratio']:5.2f}"
                     + (f"  ({s['why']})" if s.get("why") else ""))
    return "\n".join(lines)


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 768)],
                         ids=["1280x800", "1024x768"])
def test_a_lesson_by_keyboard_only_focus_visible_at_3_to_1(server, browser, width, height):
    keys = Keyboard(browser.new_page(viewport={"width": width, "height": height}))
    try:
        walk(keys, server)
    except Exception:
        print(f"\nat {keys.where}, the last stops:\n{table(keys.stops[-12:])}")
        raise
    finally:
        keys.page.close()
    stops = keys.stops
    print(f"\n{len(stops)} stops at {width}x{height}\n{table(stops)}")
    weak = [s for s in stops if s["ratio"] < MIN_RATIO]
    assert not weak, "focus indicators under 3:1:\n" + table(weak)
    kinds = {(s["tag"], s["type"] or s["role"]) for s in stops}
    for control in [("input", "number"), ("input", "radio"), ("input", "range"),
                    ("input", "checkbox"), ("input", "text"), ("summary", ""), ("a", ""),
                    ("button", "button"), ("div", "region"), ("main", "")]:
        assert control in kinds, f"no {control} among the stops"
