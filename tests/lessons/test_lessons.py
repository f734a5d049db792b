"""The lessons: every claim of their text holds on their preset, every reveal quotes its run.

Each lesson is walked stage by stage as a student would (``Lab.walk``), on its preset and on
another split seed; the reveals' numbers are recomputed here from the runs' records and the
bounds' definitions, never copied from the lesson's code.
"""
import math

import numpy as np
import pytest
from helpers import lone_and_threaded

from cbviz import bounds
from cbviz.lessons import LESSONS, Lab, LessonError, Question, fmt, lesson
from cbviz.lessons import label_noise, one_step, pac_bounds, prior, rules, sparsity

SEEDS = (0, 1)


@pytest.fixture(scope="module", params=SEEDS, ids=lambda s: f"split_seed={s}")
def labs(request):
    """Every lesson walked to its end on split seed ``param``: slug -> (lab, reveals)."""
    out = {}
    for les in LESSONS:
        lab = Lab.preset(les, split_seed=request.param)
        reveals = []
        for stage in les.stages:
            stage.action.perform(lab)
            reveals.append(stage.reveal(lab))
        out[les.slug] = (lab, reveals)
    return out


def test_seven_lessons_of_three_to_six_stages_in_link_order():
    assert len(LESSONS) >= 7
    assert len({les.slug for les in LESSONS}) == len(LESSONS)
    for n, les in enumerate(LESSONS, start=1):
        assert lesson(n) is les
        assert 3 <= len(les.stages) <= 6 and 10 <= les.minutes <= 15
    for bad in (0, len(LESSONS) + 1, "1", True):
        with pytest.raises(LessonError):
            lesson(bad)


@pytest.mark.parametrize("les", LESSONS, ids=lambda les: les.slug)
def test_every_claim_of_the_lesson_holds_on_its_preset(les):
    lab = Lab.preset(les).walk()
    claims = les.claims(lab)
    assert claims, "a lesson states at least one checked claim"
    failed = [text for text, holds in claims if not holds]
    assert not failed, failed


def test_every_reveal_quotes_its_numbers_and_grades_its_own_answer(labs):
    for slug, (lab, reveals) in labs.items():
        for stage, rv in zip(lab.lesson.stages, reveals):
            q = stage.question
            assert rv.source and rv.text
            if q.numeric:
                assert q.low <= rv.answer <= q.high, (slug, stage.title)
                assert rv.right(q, rv.answer)
                wrong = rv.answer + q.tolerance + q.step
                wrong = wrong if wrong <= q.high else rv.answer - q.tolerance - q.step
                assert not rv.right(q, wrong)
            else:
                assert rv.answer in q.choices, (slug, stage.title, rv.answer)
                assert all(rv.right(q, c) == (c == rv.answer) for c in q.choices)
            for name, value in rv.facts.items():
                if isinstance(value, (int, float, np.floating)) and name not in _UNQUOTED:
                    assert _quoted(value, rv.text), (slug, stage.title, name, value)


_UNQUOTED = {"d0", "before", "r", "c_double", "c_half"}  # quoted with other precision


def _quoted(value, text):
    value = float(value)
    return any(s in text for s in (fmt(value), fmt(value, 2), fmt(value, 4), fmt(value, 5),
                                   fmt(value, 6), f"{value:+.3f}", f"{value:.3g}"))


def test_reveals_change_with_the_run_and_stay_right(labs):
    """Another split seed gives other numbers: the reveals follow the run, not the text."""
    lab0 = Lab.preset(one_step.LESSON).walk()
    lab1 = Lab.preset(one_step.LESSON, data_seed=7).walk()
    r0 = [s.reveal(lab0) for s in one_step.LESSON.stages]
    r1 = [s.reveal(lab1) for s in one_step.LESSON.stages]
    assert r0[0].facts["alpha"] != r1[0].facts["alpha"]
    assert r0[0].text != r1[0].text


def test_one_step_reveals_are_the_records(labs):
    lab, reveals = labs["one-step"]
    rec2 = lab.run.history[1]
    assert reveals[0].facts["alpha"] == rec2.alpha
    assert reveals[0].facts["predicted"] == rec2.predicted_decrease
    assert reveals[0].facts["actual"] == pytest.approx(lab.run.history[0].c_bound
                                                       - rec2.c_bound, abs=1e-12)
    curve = lab.run.direction_curve(2)
    assert reveals[1].facts["c_star"] == pytest.approx(curve.c_values.min(), abs=1e-3)
    frame = lab.frame()
    assert reveals[3].facts["iterations"] == len(frame)
    assert reveals[3].facts["drop"] == pytest.approx(frame.c_bound.iloc[0]
                                                     - frame.c_bound.iloc[-1])


def test_rules_reveals_count_the_different_picks(labs):
    lab, reveals = labs["rules"]
    picks = lab.results["rules"]["picks"]
    ex = lab.results["rules"]["ex"]
    assert reveals[1].answer == sum(ex.candidates(r.iteration - 1).exhaustive_pick
                                    != ex.candidates(r.iteration - 1).gradient_pick
                                    for r in ex.history[1:])
    assert reveals[1].answer == int(picks["differ"].sum())
    assert len(ex.history) == rules.ITERATIONS


def test_the_exhaustive_score_is_the_gradient_score_over_the_correlation_factor(labs):
    """The identity lesson 3's reveal states: S = g^2 / (nu(F)^2 nu(h) (1 - rho^2))."""
    lab, _ = labs["rules"]
    run = lab.results["rules"]["ex"]
    m, y = run.y.size, run.y
    for rec in run.history[1:]:
        F = run.H.matvec(run.weights_at(rec.iteration - 1))
        c = run.candidates(rec.iteration - 1)
        for k in (c.exhaustive_pick, c.gradient_pick):
            h = run.H.column(k)
            nu_F, nu_h, tau = F @ F / m, h @ h / m, F @ h / m
            g = (y @ h / m) * nu_F - (y @ F / m) * tau
            rho = tau / math.sqrt(nu_F * nu_h)
            assert c.decrease[k] == pytest.approx(
                g ** 2 / (nu_F ** 2 * nu_h * (1 - rho ** 2)), rel=1e-9)


def test_pac_bound_reveals_recompute_the_bound_from_its_definition(labs):
    lab, reveals = labs["pac-bounds"]
    m, delta = lab.run.y.size, lab.settings.delta
    rec = lab.run.history[pac_bounds.EARLY - 1]
    log_term = math.log(2 * math.sqrt(m) / (delta / 2))
    eps1 = math.sqrt(2 / m * (rec.kl + log_term))
    eps2 = math.sqrt(2 / m * (2 * rec.kl + log_term))
    by_hand = 1 - max(0.0, rec.mu1 - eps1) ** 2 / min(1.0, rec.mu2 + eps2)
    assert reveals[0].facts["pac_bound"] == pytest.approx(by_hand, abs=1e-12)
    assert reveals[0].facts["eps1"] == pytest.approx(eps1)
    late = lab.run.history[pac_bounds.LATE - 1]
    assert reveals[1].facts["pac_late"] == pytest.approx(late.pac_bound)
    effect = reveals[2].facts   # the bound with mu1 put back: recomputed by hand
    back = 1 - max(0.0, rec.mu1 - math.sqrt(2 / m * (late.kl + log_term))) ** 2 / min(
        1.0, late.mu2 + math.sqrt(2 / m * (2 * late.kl + log_term)))
    assert effect["mu1"] == pytest.approx(late.pac_bound - back, abs=1e-9)
    last = lab.run.history[-1]
    assert reveals[3].answer == bounds.PAC_BOUNDS[min(bounds.PAC_BOUNDS,
                                                      key=lambda k: getattr(last, k))]


def test_sparsity_reveals_are_the_three_runs(labs):
    lab, reveals = labs["sparsity"]
    votes = lab.results["votes"]
    assert set(votes) == set(sparsity.NAMES)
    for name, run in votes.items():
        rec = run.history[-1]
        assert reveals[0].facts[name] == int(np.count_nonzero(rec.weights))
        assert reveals[1].facts[name] == rec.c_bound
        assert reveals[3].facts[name] == pytest.approx(
            math.log(lab.problem.n_voters) + sum(q * math.log(q) for q in
                                                 rec.weights / rec.weights.sum() if q > 0),
            abs=1e-9)


def test_sparsity_says_why_cqboost_can_go_below_mincq(labs):
    """MinCq's vote is inside its own program (signed weights at most 1/n' once scaled to
    mu1 = mu); a vote with a lower C-bound than MinCq's optimum must lie outside it."""
    lab, reveals = labs["sparsity"]
    votes = lab.results["votes"]
    top, above, cap = sparsity.outside_mincq(lab, votes["MinCq"])
    assert above == 0 and top <= cap * (1 + 1e-6)
    assert cap == pytest.approx(2 / lab.problem.n_voters)
    top, above, _ = sparsity.outside_mincq(lab, votes["CqBoost"])
    if votes["CqBoost"].history[-1].c_bound < votes["MinCq"].history[-1].c_bound - 1e-9:
        assert above > 0   # inside MinCq's program it could not beat MinCq's optimum
    assert f"puts {fmt(top, 4)} on one voter and exceeds the cap on {above} voters" in \
        reveals[1].text


def test_noise_reveals_read_adaboost_s_own_curve(labs):
    lab, reveals = labs["noise"]
    runs = lab.results["runs"]
    errors = [r.test_error for r in runs["AdaBoost"].history]
    assert reveals[2].answer == int(np.argmin(errors)) + 1
    assert reveals[0].facts["AdaBoost"] == runs["AdaBoost"].history[-1].train_error
    flipped = np.mean(lab.problem.split.y_train != Lab.preset(
        label_noise.LESSON, label_noise=0.0, split_seed=lab.settings.split_seed).problem.split.y_train)
    assert flipped == pytest.approx(lab.settings.label_noise, abs=0.01)


def test_prior_reveals_count_the_held_out_examples(labs):
    lab, reveals = labs["prior"]
    held = lab.results["held_out"]
    m_all = lab.run.y.size
    assert reveals[1].facts["m_train"] == m_all
    assert reveals[1].facts["m_held_out"] == held["run"].y.size
    assert held["problem"].X_prior.shape[0] + held["run"].y.size == m_all
    assert held["problem"].X_prior.shape[0] == pytest.approx(prior.HELD_OUT * m_all, abs=1)


def test_questions_read_guesses_and_refuse_bad_ones():
    q = Question("?", low=0, high=1, step=0.01, tolerance=0.05)
    assert q.read("0.5") == 0.5
    for bad in ("x", "2", "nan", None):
        with pytest.raises(LessonError):
            q.read(bad)
    c = Question("?", ("a", "b"))
    assert c.read("a") == "a"
    with pytest.raises(LessonError, match="one of a, b"):
        c.read("z")


def test_the_explorer_lesson_reads_the_student_s_point():
    les = LESSONS[0]
    lab = Lab.preset(les)
    lab.explorer.update(r=0.2, d=0.25)
    rv = les.stages[0].reveal(lab)
    assert rv.answer == pytest.approx(1 - 0.6 ** 2 / 0.5)
    assert "d ≥ r" in rv.text


def test_lessons_are_shared_read_only_and_walk_the_same_on_several_threads():
    """The lessons are module globals every session reads: walking them on threads at once
    gives the lone walks' reveals and leaves them unchanged."""
    with pytest.raises(TypeError):
        LESSONS[0].explorer["d"] = 0.4
    with pytest.raises(TypeError):
        LESSONS[1].settings["toy"] = "xor"

    def work(i):
        les = LESSONS[i % 3]
        lab = Lab.preset(les)
        texts = []
        for stage in les.stages:
            stage.action.perform(lab)
            texts.append(stage.reveal(lab).text)
        return texts
    lone, threaded, errors = lone_and_threaded(work)
    assert not errors and threaded == lone
    assert LESSONS[0].explorer == {"r": 0.3, "d": 0.1}


def test_lesson_3_s_charts_count_what_its_questions_ask(labs):
    """Stage 1 charts the two independent runs without counting their picks; stages 2-4 chart
    the picks from the same vote, the very count and values their questions ask about."""
    lab, reveals = labs["rules"]
    first = lab.lesson.stage(1).figure(lab)
    assert "agree" not in first.layout.title.text and len(first.data) == 2
    differ = int(lab.results["rules"]["picks"]["differ"].sum())
    assert reveals[1].answer == differ
    count = lab.lesson.stage(2).figure(lab)
    marks = [t for t in count.data if t.name == "the gradient rule would add another voter"]
    assert len(marks) == 1 and len(marks[0].x) == differ
    assert f"at {differ} of {len(lab.results['rules']['picks'])} steps" in count.layout.title.text
    for k, column, fact in ((3, "correlation", "rho"), (4, "decrease", "decrease")):
        fig = lab.lesson.stage(k).figure(lab)
        by_name = {t.name: np.asarray(t.y, float) for t in fig.data if t.name}
        for rule in ("exhaustive", "gradient"):
            shown = by_name[f"{rule} pick"]
            assert shown.size == differ
            key = f"{fact}_{rule}"
            assert shown.mean() == pytest.approx(reveals[k - 1].facts[key], rel=1e-12), key
        assert not lab.lesson.stage(k).figure_first   # shown with the answer, not before


def test_every_reveal_opens_with_a_short_sentence(labs):
    """The verdict box shows the reveal's first sentence: about ten seconds of reading."""
    for slug, (lab, reveals) in labs.items():
        for stage, rv in zip(lab.lesson.stages, reveals):
            assert rv.headline and len(rv.headline.split()) <= 45, (slug, stage.title)
            assert rv.headline + (" " + rv.why if rv.why else "") == rv.text


def test_printed_numbers_never_show_a_negative_zero():
    assert fmt(-0.0001) == "0.000" and fmt(-0.0001, sign=True) == "0.000"
    assert fmt(0.076, sign=True) == "+0.076" and fmt(-0.056, sign=True) == "-0.056"
    assert fmt(-0.5) == "-0.500"


def test_a_slider_stage_accepts_its_stated_tolerance_and_says_what_to_do():
    les = lesson(1)
    move = les.stage(2).action
    lab = Lab(les, None, None, None)
    for value, done in ((0.40, True), (0.39, True), (0.38, True), (0.37, False), (0.1, False)):
        lab.explorer["d"] = value
        assert move.done(lab) == done, value
    lab.explorer["d"] = 0.2
    assert "about 0.4" in move.hint(lab) and "arrow keys" in move.hint(lab)
    edge = les.stage(3).action   # the edge of the map: exactly there, the slider's end
    lab.explorer["d"] = 0.41
    assert not edge.done(lab) and "right end of the slider" in edge.hint(lab)
