"""AppTest checks of every page: loads, steps, revisits, resets, bad input."""
import numpy as np
import pytest
from helpers import figure_specs, status_lines, values
from streamlit.testing.v1 import AppTest

from cbviz.app import FOLDER as APP
from cbviz.plots.style import fixed

STEP = "app_pages/step_through.py"
GRADIENT = "app_pages/gradient_vs_exhaustive.py"
TIMEOUT = 60


def app(page=None, **params):
    """Run the home page (the entry script) or one page script on its own.

    A page run alone draws the shared sidebar itself (``require_problem``), which is also
    so each page can be tested as its own script.
    """
    at = AppTest.from_file(str(APP / (page or "streamlit_app.py")), default_timeout=TIMEOUT)
    for k, v in params.items():
        at.query_params[k] = str(v)
    at.run()
    assert not at.exception, at.exception
    return at


def charts(at):
    """Trace names of every Plotly chart on the page, by chart title."""
    out = {}
    for spec in figure_specs(at):
        title = spec["layout"].get("title", {})
        title = title.get("text", "") if isinstance(title, dict) else str(title)
        out[title] = [trace.get("name") for trace in spec["data"]]
    return out


def shown(text):
    """What a reader sees of a markdown string: the escaping backslashes removed."""
    import re
    return re.sub(r"\\(.)", r"\1", text)


def show_all_charts(at):
    """Choose every chart of the step page's "Charts" selector."""
    group = at.button_group(key="step_charts")
    group.set_value(list(group.options)).run()
    assert not at.exception
    return at


def history(at):
    return at.session_state["run_step"]["run"].history


def status(at):
    return next(m for m in status_lines(at) if m.startswith("**Iteration"))


def test_home_loads_and_explains():
    at = app()
    text = " ".join(m.value for m in at.markdown)
    assert "C-bound" in text and "Gibbs risk" in text and "disagreement" in text
    assert at.button(key="home_start")


def test_home_start_opens_step_page_on_moons():
    at = app()
    at.button(key="home_start").click().run()
    assert not at.exception
    assert at.session_state["s_toy"] == "moons"
    assert any(t.value == "Step through CB-Boost" for t in at.title)


def test_step_page_default_view():
    at = app(STEP)
    assert any("Press **Step**" in i.value for i in at.info)
    assert at.button(key="step_once") and at.button(key="step_run_end")


def test_steps_advance_and_charts_carry_traces():
    at = app(STEP)
    at.button(key="step_once").click().run()
    assert len(history(at)) == 1
    at.button(key="step_ten").click().run()
    assert not at.exception
    assert len(history(at)) == 11
    assert status(at).startswith("**Iteration 11** of 11")
    show_all_charts(at)
    names = [n for traces in charts(at).values() for n in traces]
    for expected in ["empirical C-bound", "train error", "test error", "KL(Q‖P)",
                     "ln n (ceiling)", "weight α", "margins", "C-bound along α",
                     "closed-form optimum (Theorem 3)", "vote value", "train +1", "test -1"]:
        assert expected in names, (expected, names)
    assert any(n.startswith("new voter:") for n in names if n)
    assert at.dataframe  # the table of voters in the vote


def test_revisiting_an_iteration_changes_the_values():
    at = app(STEP)
    at.button(key="step_once").click().run()
    at.button(key="step_ten").click().run()
    last = status(at)
    at.slider(key="step_view").set_value(3).run()
    assert not at.exception
    earlier = status(at)
    assert earlier.startswith("**Iteration 3** of 11") and earlier != last
    rec = history(at)[2]
    assert f"{rec.c_bound:.4f}" in earlier


def test_run_to_end_stops_with_reason():
    at = app(STEP)
    at.number_input(key="step_max_iter").set_value(15).run()
    at.button(key="step_run_end").click().run()
    assert not at.exception
    assert len(history(at)) == 15
    assert [s.value for s in at.success] == [
        "Stopped after 15 iterations: the iteration limit (15) was reached: the paper's rule, "
        "a fixed number of iterations T = 15."]  # words, not code


def test_changing_data_resets_runs_with_notice():
    at = app(STEP)
    at.button(key="step_ten").click().run()
    assert len(history(at)) == 10
    at.selectbox(key="s_toy").set_value("circles").run()
    assert not at.exception
    assert any("runs were reset" in i.value for i in at.info)
    assert len(history(at)) == 0


def test_real_data_set_step_and_no_regions_chart():
    at = app(STEP, source="real", real="breast_cancer")
    at.button(key="step_ten").click().run()
    assert not at.exception
    assert len(history(at)) == 10
    assert "vote value" not in [n for t in charts(at).values() for n in t]


def test_unknown_class_in_link_falls_back_to_a_valid_pair():
    at = app(STEP, source="real", real="wine", pair="1 vs 99")
    assert not at.exception
    assert at.session_state["settings_store"]["pair"] == "1 vs 2"
    assert "class 1 (+1) vs 2 (-1)" in shown(at.caption[0].value)


@pytest.mark.parametrize("key, value, message", [
    ("n_thresholds", "lots", "The 'n_thresholds' parameter of the data settings must be one of "
                             "'1', '2', '3', '5', '10', '20', '50', '100', 'all'. Got 'lots' "
                             "instead."),
    ("toy_noise", "7", "The 'toy_noise' parameter of the data settings must be a float in "
                       "[0, 1]. Got 7.0 instead."),
    ("train_ratio", "0.95", "The 'train_ratio' parameter of the data settings must be a float "
                            "in [0.1, 0.9]. Got 0.95 instead."),
    ("n_samples", "999999999", "The 'n_samples' parameter of the data settings must be an int "
                               "in [20, 20000]. Got 999999999 instead."),
    ("data_seed", "10" * 30, "The 'data_seed' parameter of the data settings must be an int in "
                             "[0, 1000000]. Got 1010101010"),
    ("normalize", "maybe", "The 'normalize' parameter of the data settings must be a bool. "
                           "Got 'maybe' instead."),
])
def test_one_bad_value_in_a_link_is_named_and_the_rest_applies(key, value, message):
    at = app(STEP, **{key: value, "toy": "spirals", "n_samples": "210"} if key != "n_samples"
             else {key: value, "toy": "spirals"})
    assert not at.exception
    warning = shown(at.warning[0].value)
    assert "Ignored from the link or file" in warning and message in warning
    assert len(warning) < 300  # user input is cut, never echoed at length
    assert at.selectbox(key="s_toy").value == "spirals"  # the valid values still apply


def test_unknown_data_set_in_a_link_is_named():
    at = app(STEP, source="real", real="no_such_set", split_seed="3")
    assert ("The 'real' parameter of the data settings must be a data set of the catalogue"
            in shown(at.warning[0].value))
    assert at.session_state["settings_store"]["split_seed"] == 3


def test_run_that_stops_at_once_shows_message():
    import numpy as np

    from cbviz.algorithms import CBBoost
    at = app(STEP)
    # a pool whose only voter has a negative margin: the run must stop at the first step
    run = CBBoost(max_iter=100).start(np.array([[1.0], [-1.0]]), np.array([-1, 1]))
    config = at.session_state["run_step"]["config"]  # the page's own configuration
    at.session_state["run_step"] = {"config": config, "run": run}
    at.button(key="step_once").click().run()
    assert not at.exception
    assert run.done and not run.history
    assert at.warning and "positive margin" in at.warning[0].value


def test_gradient_page_loads_with_landscape_and_lockstep():
    at = app(GRADIENT)
    names = charts(at)
    flat = [n for traces in names.values() for n in traces]
    assert "candidate voters" in flat
    assert any(n.startswith(("exhaustive pick", "both rules pick")) for n in flat if n)
    assert "exhaustive (CB-Boost)" in flat and "gradient (GB-CB-Boost)" in flat
    assert any("agree" in title.lower() for title in names)
    at.slider(key="gx_view").set_value(5).run()
    assert not at.exception
    assert at.metric


@pytest.mark.parametrize("page", [None, STEP, GRADIENT])
def test_every_page_loads_on_a_csv_source_without_file(page):
    at = app(page, source="csv")
    assert not at.exception
    if page:
        assert not at.error  # no red error before a file is chosen
        assert "Choose a CSV file" in at.info[0].value
    assert at.sidebar.get("download_button")  # the example file is offered


def upload(at, name, content):
    at.sidebar.get("file_uploader")[0].set_value((name, content, "text/csv")).run()
    assert not at.exception
    return at


THREE_CLASSES = b"x1,x2,fruit\n1,2,apple\n2,3,pear\n3,1,plum\n4,4,apple\n5,2,pear\n6,1,plum\n"


@pytest.mark.parametrize("content, expected, api_words", [
    (THREE_CLASSES, 'Pick two with Class pair "apple vs pear"', ["pair=", "one_vs_rest="]),
    (b"a,b,label\n1,,0\n2,3,1\n3,4,0\n4,5,1\n5,6,0\n6,7,1\n",
     'switch on "Drop rows with missing values"', ["drop_nan"]),
    (b"a,b,label\n1,x,0\n2,y,1\n3,z,0\n", "non-numeric", ["label="]),
    (b"only\n1\n2\n", "single column", []),
    (b"", "empty", []),
])
def test_csv_messages_speak_of_the_apps_controls(content, expected, api_words):
    at = upload(app(STEP, source="csv"), "mine.csv", content)
    text = shown(" ".join(e.value for e in at.error))
    assert expected in text, text
    for word in api_words:
        assert word not in text
    if content:
        assert any("File: mine.csv" in shown(c.value) for c in at.sidebar.caption)


def test_csv_upload_with_semicolons_decimal_commas_and_missing_rows():
    content = (b"a;b;label\n0,13;1,5;0\n2,5;-0,7;1\n1,0;;0\n3,1;0,2;1\n0,2;0,4;0\n"
               b"2,2;1,1;1\n0,5;0,1;0\n2,9;1,9;1\n0,1;0,6;0\n2,4;1,3;1\n")
    at = upload(app(STEP, source="csv"), "semi.csv", content)
    assert "missing" in at.error[0].value
    at.toggle(key="s_csv_drop_nan").set_value(True).run()
    assert not at.exception and not at.error
    problem = at.session_state["problem"]
    X = np.vstack([problem.split.X_train, problem.split.X_test])
    assert 0.13 in X[:, 0] and -0.7 in X[:, 1] and len(X) == 9  # one row dropped


def test_label_column_stays_after_a_bad_upload():
    at = upload(app(STEP, source="csv"), "good.csv", THREE_CLASSES)
    at.selectbox(key="s_csv_label").set_value("x2").run()
    upload(at, "bad.csv", b"garbage")
    upload(at, "good.csv", THREE_CLASSES)
    assert at.selectbox(key="s_csv_label").value == "x2"


def test_settings_json_round_trip_replays_the_same_run():
    from cbviz.ui import runs
    at = app(STEP, toy="xor", n_samples="200")
    at.radio(key="hp_cbboost_direction").set_value("gradient").run()
    at.button(key="step_ten").click().run()
    first = history(at)
    run = at.session_state["run_step"]["run"]
    payload = runs.export_json(at.session_state["settings"], "cbboost", {"direction": "gradient"},
                               run)
    loaded, config = runs.read_json(payload.encode())
    assert config == {"algorithm": "cbboost", "params": {"direction": "gradient"},
                      "max_iter": 100, "iterations": 10}
    # what the page does with an uploaded file, on a fresh session
    fresh = app(STEP)
    fresh.session_state["pending_settings"] = loaded
    fresh.session_state["step_replay"] = config["iterations"]
    fresh.session_state["step_pending_config"] = config
    fresh.session_state["run_step"] = None
    fresh.run()
    assert not fresh.exception
    again = history(fresh)
    assert fresh.session_state["s_toy"] == "xor"
    assert [r.index for r in again] == [r.index for r in first]
    assert [r.c_bound for r in again] == [r.c_bound for r in first]


@pytest.mark.parametrize("raw, message", [
    (b"{not json", "not a JSON file"),
    (b'{"a": 1}', "not exported by cbviz"),
    (b'{"settings": {}, "run": {"direction": "sideways", "max_iter": 3, "iterations": 1}}',
     r"^The 'direction' parameter of CBBoost must be one of 'exhaustive', 'gradient'\. "
     r"Got 'sideways' instead\.$"),
    (b'{"settings": {}, "run": {"algorithm": "magic", "max_iter": 3, "iterations": 1}}',
     "unknown algorithm"),
    (b'{"settings": {}, "run": {"algorithm": "cqboost", "params": {"mu": 7}, "max_iter": 3, '
     b'"iterations": 1}}',
     r"^The 'mu' parameter of CqBoost must be a float in \(0, 1\]\. Got 7 instead\.$"),
    (b'{"settings": [], "run": {}}', "must be JSON objects"),
    (b"[1, 2, 3]", "not exported by cbviz"),
    (b'"a string"', "not exported by cbviz"),
    (b"null", "not exported by cbviz"),
    (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    (b'{"settings": {}, "run": {}, "pad": "' + b"x" * 400_000 + b'"}', "at most 20,000"),
    (b'{"settings": {}, "run": {"direction": "gradient", "max_iter": -3, "iterations": 1}}',
     "max_iter"),
])
def test_bad_settings_json_is_refused_with_a_reason(raw, message):
    from cbviz.ui import runs
    with pytest.raises(ValueError, match=message):
        runs.read_json(raw)


def test_settings_survive_hidden_widgets():
    """Streamlit forgets hidden widgets; the sidebar's settings must not (switch away and back)."""
    at = app(STEP)
    at.select_slider(key="s_n_thresholds").set_value("5").run()
    at.button(key="step_ten").click().run()
    at.radio(key="s_pool").set_value("hyperplanes").run()
    at.radio(key="s_pool").set_value("stumps").run()
    assert not at.exception
    assert at.select_slider(key="s_n_thresholds").value == "5"
    at.button(key="step_once").click().run()
    assert len(history(at)) == 1  # the click is not eaten by a reset
    at.selectbox(key="s_toy").set_value("spirals").run()
    at.number_input(key="s_n_samples").set_value(210).run()
    at.slider(key="s_toy_noise").set_value(0.4).run()
    at.radio(key="s_source").set_value("real").run()
    at.selectbox(key="s_real").set_value("ionosphere").run()
    at.radio(key="s_source").set_value("toy").run()
    assert not at.exception
    assert at.selectbox(key="s_toy").value == "spirals"
    assert at.number_input(key="s_n_samples").value == 210
    assert at.slider(key="s_toy_noise").value == 0.4
    assert "147 train / 63 test" in shown(at.caption[0].value)
    at.radio(key="s_source").set_value("real").run()
    assert at.selectbox(key="s_real").value == "ionosphere"


@pytest.mark.parametrize("algorithm", ["mincq", "cqboost", "quadboost", "klboost", "vebboost",
                                       "adaboost"])
def test_step_page_runs_every_registered_algorithm(algorithm):
    from cbviz.algorithms import ALGORITHMS
    spec = ALGORITHMS[algorithm]
    at = app(STEP)
    at.selectbox(key="step_algorithm").set_value(algorithm).run()
    assert any(t.value == f"Step through {spec.name}" for t in at.title)
    at.button(key="step_once").click().run()
    if spec.iterative:
        at.button(key="step_ten").click().run()
    assert not at.exception
    run = history(at)
    assert len(run) == (11 if spec.iterative else 1) or at.session_state["run_step"]["run"].done
    show_all_charts(at)
    titles = list(charts(at))
    assert any(spec.objective in t for t in titles), titles
    for title, _, columns, _ in spec.extra_plots:
        assert any(t.partition("<br>")[0] == title.partition("<br>")[0] for t in titles), title
    # the hyper-parameters survive a switch to another algorithm and back
    if spec.params:
        p = spec.params[0]
        key = f"hp_{algorithm}_{p.name}"
        new = p.choices[-1] if p.kind == "choice" else (
            not p.default if p.kind == "bool" else p.low if p.low > 0 else p.high / 2)
        getattr(at, {"choice": "radio", "bool": "toggle"}.get(p.kind, "number_input"))(
            key=key).set_value(new).run()
        at.selectbox(key="step_algorithm").set_value("cbboost").run()
        at.selectbox(key="step_algorithm").set_value(algorithm).run()
        assert at.session_state[key] == new


def test_unreachable_mu_shows_the_solver_message():
    at = app(STEP)
    at.selectbox(key="step_algorithm").set_value("mincq").run()
    at.radio(key="hp_mincq_form").set_value("simplex").run()
    at.number_input(key="hp_mincq_mu").set_value(1.0).run()
    assert not at.exception
    text = shown(" ".join(e.value for e in at.error))
    assert "mu" in text and "lower" in text.lower(), text


def test_mincq_beside_cbboost():
    at = app(STEP)
    at.button(key="step_ten").click().run()
    at.toggle(key="step_mincq_beside").set_value(True).run()
    assert not at.exception
    names = [n for traces in charts(at).values() for n in traces]
    assert "MinCq(CB-Boost): optimal C-bound on the same voters" in names


def test_reset_starts_the_same_run_again_and_the_link_follows():
    at = app(STEP)
    at.button(key="step_ten").click().run()
    first = history(at)[:2]
    at.toggle(key="step_mincq_beside").set_value(True).run()
    at.slider(key="step_view").set_value(4).run()
    at.button(key="step_reset").click().run()
    assert not at.exception
    assert len(history(at)) == 0 and not at.button(key="step_once").disabled
    assert any("Press **Step**" in i.value for i in at.info)
    assert "step_view" not in [s.key for s in at.slider]
    assert at.query_params["steps"] in ("0", ["0"])
    assert "view" not in at.query_params   # no iteration to show
    for _ in first:
        at.button(key="step_once").click().run()
    assert [(r.index, r.c_bound) for r in history(at)] == [(r.index, r.c_bound) for r in first]
    assert status(at).startswith("**Iteration 2** of 2")
    at.toggle(key="step_mincq_beside").set_value(True).run()
    mincq = at.session_state["step_mincq_cache"]   # MinCq beside the new run, not the old one
    assert mincq["run"] is at.session_state["run_step"]["run"] and len(mincq["rows"]) == 2


def test_the_data_of_more_than_two_features_stay_one_click_away():
    at = app(STEP, source="real", real="breast_cancer")
    at.button(key="step_once").click().run()
    assert not at.metric   # the overview left the page for its expander, drawn once opened
    assert [e.label for e in at.expander if e.label == "The data"] == ["The data"]
    at.session_state["step_data"] = True   # as a click on it does
    at.run()
    assert {m.label: m.value for m in at.metric}["Features d"] == "30"
    at.button(key="step_reset").click().run()
    assert "The data" not in [e.label for e in at.expander]   # the overview is on the page
    assert {m.label: m.value for m in at.metric}["Features d"] == "30"


def test_the_data_come_first():
    at = app(STEP)  # moons: the plane with the points before any step
    titles = list(charts(at))
    assert any(t.startswith("Majority vote on the input plane") and "no voter yet" in t
               for t in titles), titles
    real = app(STEP, source="real", real="breast_cancer")
    assert any("principal axes" in t for t in charts(real))
    labels = {m.label: m.value for m in real.metric}
    assert labels["Features d"] == "30" and labels["Training examples m"] == "398"
    real.button(key="step_once").click().run()
    show_all_charts(real)
    names = [n for traces in charts(real).values() for n in traces]
    assert "Gibbs risk r" in names and "disagreement d" in names


def test_gradient_page_shows_the_measured_correlations_and_readable_table():
    from cbviz.algorithms import lockstep, pick_correlations
    at = app(GRADIENT, source="real", real="breast_cancer")
    metrics = {m.label: m.value for m in at.metric}
    problem = at.session_state["problem"]
    ex, _, _ = lockstep(problem.H_train, problem.split.y_train, 40)
    picks = pick_correlations(ex)
    differ = picks[picks["differ"]]
    assert len(differ) > 0
    assert metrics["ρ of the exhaustive pick"] == fixed(differ["exhaustive_correlation"].mean(), 2)
    assert metrics["ρ of the gradient pick"] == fixed(differ["gradient_correlation"].mean(), 2)
    text = " ".join(m.value for m in at.markdown)
    assert "grows as h becomes correlated with the vote" in text
    table = at.dataframe[0].value
    assert "exhaustive rule added" in table.columns and "exhaustive_label" not in table.columns
    assert not table.astype(str).isin(["None", "nan"]).any().any()
    at.toggle(key="gx_compare_all").set_value(True).run()
    assert not at.exception
    names = [n for traces in charts(at).values() for n in traces]
    assert {"exhaustive, every voter eligible", "gradient, every voter eligible"} <= set(names)


def test_gradient_page_draws_both_picks_on_the_plane():
    at = app(GRADIENT, toy="moons")
    names = [n for traces in charts(at).values() for n in traces]
    assert any(n.startswith("exhaustive pick:") for n in names if n)
    assert "train +1" in names


def test_step_page_compares_the_two_eligibility_rules():
    from cbviz.algorithms import CBBoost
    at = app(STEP, source="real", real="breast_cancer")
    at.button(key="step_ten").click().run()
    at.toggle(key="step_other_rule").set_value(True).run()
    assert not at.exception
    fig = next(spec for spec in figure_specs(at)
               if "Which voters may enter" in spec["layout"]["title"]["text"])
    curves = {t["name"]: values(t["y"]) for t in fig["data"]
              if t["name"].startswith("Eligible voters")}
    problem = at.session_state["problem"]
    twin = CBBoost(max_iter=100, eligible="all").start(problem.H_train, problem.split.y_train)
    for _ in range(10):
        twin.step()
    np.testing.assert_allclose(curves["Eligible voters set to all"],
                               [r.c_bound for r in twin.history])
    assert (curves["Eligible voters set to all"][-1]
            < curves["Eligible voters set to theorem3 (this run)"][-1])
    texts = " ".join(c.value for c in at.caption)
    assert "Theorem 3's hypothesis" in texts  # each option explains itself on screen


def test_glossary_and_bound_names_on_screen():
    from cbviz import bounds
    at = app(STEP)
    assert not any(r"\gamma(f)" in m.value for m in at.sidebar.markdown)  # written once opened
    at.session_state["notation"] = True   # as a click on it does
    at.run()
    formulas = " ".join(m.value for m in at.sidebar.markdown)
    for symbol in (r"\gamma(f)", r"\nu(f)", r"\tau(f, g)", r"\mu_1", r"\mathrm{KL}(Q\|P)", r"\delta"):
        assert symbol in formulas, symbol
    at.button(key="step_ten").click().run()
    line = status(at)
    rec = history(at)[-1]
    key, value = bounds.tightest(rec)
    assert f"tightest PAC-Bayes bound: {bounds.PAC_BOUNDS[key]} = {value:.4f}" in line
    names = [n for traces in charts(at).values() for n in traces]
    for name in bounds.PAC_BOUNDS.values():
        assert name in names
    assert not any("Seeger" in n for n in names if n)
    texts = " ".join(m.value for m in at.markdown)
    assert "1 − 4δ" not in texts   # "What is this?" is written only once it is opened
    at.session_state["step_why_bounds"] = True   # as a click on it does
    at.run()
    texts = " ".join(m.value for m in at.markdown)
    assert "1 − 4δ" in texts and "Why the bounds can rise while the C-bound falls" in texts
    assert any("as the papers do" in c.value for c in at.caption)


def test_a_link_round_trips_the_whole_view():
    at = app(STEP, toy="xor", n_samples="200")
    at.radio(key="hp_cbboost_direction").set_value("gradient").run()
    at.radio(key="hp_cbboost_eligible").set_value("all").run()
    at.number_input(key="step_max_iter").set_value(40).run()
    at.button(key="step_ten").click().run()
    at.button(key="step_once").click().run()
    at.slider(key="step_view").set_value(4).run()
    link = {k: at.query_params[k][0] if isinstance(at.query_params[k], list) else
            at.query_params[k] for k in at.query_params}
    assert link["steps"] == "11" and link["view"] == "4" and link["algorithm"] == "cbboost"
    first = history(at)
    fresh = app(STEP, **link)  # a student opens the shared link
    assert not fresh.warning
    again = history(fresh)
    assert [r.index for r in again] == [r.index for r in first]
    assert fresh.session_state["run_step"]["run"].direction == "gradient"
    assert fresh.session_state["run_step"]["run"].max_iter == 40
    assert status(fresh).startswith("**Iteration 4** of 11")
    assert fresh.selectbox(key="s_toy").value == "xor"


def test_the_constant_voter_toggle_reaches_the_run_and_the_link():
    at = app(STEP, toy="moons", n_thresholds="3")
    at.toggle(key="s_constant_voter").set_value(True).run()
    assert any("runs were reset" in i.value for i in at.info)
    problem_voters = at.session_state["run_step"]["run"].H.shape[1]
    assert problem_voters == 2 * (2 * 3 + 1)          # 3 stumps per feature, the constant, x2
    at.button(key="step_ten").click().run()
    assert not at.exception
    assert at.query_params["constant_voter"] in ("True", ["True"])
    link = {k: at.query_params[k][0] if isinstance(at.query_params[k], list) else
            at.query_params[k] for k in at.query_params}
    fresh = app(STEP, **link)
    assert fresh.toggle(key="s_constant_voter").value is True
    assert [r.index for r in history(fresh)] == [r.index for r in history(at)]


def test_a_link_with_a_bad_page_value_keeps_the_rest():
    at = app(STEP, algorithm="quadboost", regularization="l7", max_iter="30", steps="3")
    assert ("The 'regularization' parameter of QuadBoost must be one of None, 'l1', 'l2', "
            "'linf'. Got 'l7' instead." in shown(at.warning[0].value))
    run = at.session_state["run_step"]["run"]
    assert len(run.history) == 3 and run.max_iter == 30
    assert any(t.value == "Step through QuadBoost" for t in at.title)


def test_every_chart_downloads_as_standalone_html():
    from cbviz.export import figure_html
    at = app(STEP)
    at.button(key="step_ten").click().run()
    chooser = at.selectbox(key="step_export_chart")
    assert "Majority vote on the input plane" in chooser.options
    assert {"Risk bounds", "0-1 error", "KL", "Theorem 3 curve"} <= set(chooser.options)
    buttons = {b.proto.label for b in at.get("download_button")}
    assert "HTML" in buttons
    # what the button serves: a standalone page with plotly.js inside
    from cbviz import plots
    run = at.session_state["run_step"]["run"]
    html = figure_html(plots.bounds_figure(run.to_frame()))
    assert html.startswith("<!doctype html>") and len(html) > 1_000_000


HOSTILE = ["**bold**", "$x^2$", "[link](http://example.com)", "<b>tag</b>", "%{x}"]


def test_user_text_is_shown_literally():
    """Column and file names reach markdown and Plotly as text, never as markup."""
    header = ",".join(HOSTILE[:2]) + ",label"
    rows = "\n".join(f"{i % 7},{(i * 3) % 5},{i % 2}" for i in range(40))
    at = upload(app(STEP, source="csv"), "[x](y)*.csv", f"{header}\n{rows}\n".encode())
    assert not at.exception and not at.error
    caption = next(c.value for c in at.sidebar.caption if "File:" in c.value)
    assert shown(caption).startswith("File: [x](y)*.csv") and "\\[x\\]" in caption
    at.button(key="step_once").click().run()
    spec = figure_specs(at)[0]
    assert spec["layout"]["xaxis"]["title"]["text"] == "**bold**"  # Plotly: no markdown there
    assert spec["layout"]["yaxis"]["title"]["text"] == "\u200b$x^2$"  # not typeset as LaTeX
    from cbviz.plots import decision_figure
    fig = decision_figure([0, 1, 2], [0, 1, 2], np.zeros((2, 2)), np.zeros((1, 2)), [1],
                          feature_names=("<b>tag</b>", "%{x}"))
    assert fig.layout.xaxis.title.text == "&lt;b&gt;tag&lt;/b&gt;"
    assert "%{x}" not in fig.layout.yaxis.title.text


def test_a_link_asking_for_more_iterations_than_the_run_has_says_so():
    at = app(STEP, toy="moons", steps="40")  # this CB-Boost run stops after 15 voters
    assert not at.exception
    text = shown(" ".join(w.value for w in at.warning))
    assert "asked for 40 iterations; this run stopped after 15" in text


def test_a_visit_to_another_page_keeps_the_run_the_data_and_the_iteration_shown():
    """Streamlit resets a page's widgets on a page change (the slider came back at 1; with
    widget-held settings, a real data set came back as breast cancer)."""
    at = app(source="real", real="ionosphere")
    at.switch_page(STEP).run()
    for _ in range(3):
        at.button(key="step_once").click().run()
    at.slider(key="step_view").set_value(2).run()
    status = next(m for m in status_lines(at) if m.startswith("**Iteration"))
    assert status.startswith("**Iteration 2** of 3")
    at.switch_page(GRADIENT).run()
    at.switch_page(STEP).run()
    assert not at.exception, at.exception
    assert next(m for m in status_lines(at) if m.startswith("**Iteration")) == status
    caption = next(c.value for c in at.main.caption if "train /" in c.value)
    assert caption.startswith("radar returns from the ionosphere")
    at.button(key="step_once").click().run()
    assert next(m for m in status_lines(at)
                if m.startswith("**Iteration")).startswith("**Iteration 4** of 4")


def test_a_reopened_csv_link_asks_for_the_file_again_and_keeps_the_settings():
    at = app(STEP, source="csv", csv_label="label", split_seed=7, delta=0.1)
    text = " ".join(w.value for w in at.warning)
    assert "Upload your CSV file again" in text and "setting is kept" in text
    assert at.session_state["s_split_seed"] == 7 and at.session_state["s_delta"] == 0.1
    plain = app(STEP)                     # no link to a file: no such warning
    assert not any("again" in w.value for w in plain.warning)
