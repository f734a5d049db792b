"""Lessons: a guided path through the C-bound, one stage at a time.

Each stage says what to do, asks a question before the student acts, then reveals the answer
computed from the student's own run, whether the guess was right, and why.
"""
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from cbviz.algorithms.base import ParameterError
from cbviz.data import DataError
from cbviz.lessons import LESSONS, Compute, LessonError, Move, Step, stopped_because
from cbviz.ui import address, class_link, class_student, hide, lesson_state, runs
from cbviz.ui.live_chart import live_chart
from cbviz.ui.live_status import status_line
from cbviz.ui.notation import symbol_popover
from cbviz.ui.page import document_title
from cbviz.ui.messages import for_app
from cbviz.ui.sidebar import require_problem
from cbviz.ui.teacher import teacher_panel
from cbviz.markdown import md

PAGES = {"step": "app_pages/step_through.py", "explorer": "app_pages/cbound_explorer.py",
         "gradient": "app_pages/gradient_vs_exhaustive.py",
         "compare": "app_pages/compare_algorithms.py"}

class_link.run_started()
settings, problem = require_problem()
ignored = lesson_state.read_link()
if ignored:
    st.warning("Ignored from the link: " + md("; ".join(ignored)), icon=":material/link_off:")
class_student.load()
pacing = class_student.gate()   # None outside a live class


def catalogue():
    """The list of lessons, each with a Start button."""
    st.title("Lessons")
    st.markdown("Seven guided lessons through the C-bound and the algorithms that minimize it. "
                "Each stage asks you a question **before** you act; then the answer is read "
                "off your own run, with why and the paper it comes from. Your place is kept "
                "in the page's link: reload it or send it, and it opens on the same stage.")
    class_student.join_form()
    for n, lesson in enumerate(LESSONS, start=1):
        with st.container(border=True):
            c1, c2 = st.columns([5, 1], vertical_alignment="center")
            c1.markdown(f"**{n}. {lesson.title}** · about {lesson.minutes} minutes, "
                        f"{len(lesson.stages)} stages  \n{lesson.summary}")
            c2.button("Start", key=f"lesson_start_{n}", on_click=lesson_state.start,
                      args=(n,), width="stretch", type="primary" if n == 1 else "secondary")


def action_widgets(stage, lab, k):
    """The controls of a stage's action (drawn only once the guess is in)."""
    action = stage.action
    n = lesson_state.progress()["n"]
    if isinstance(action, Step):
        c = st.columns(3)
        left = action.target - len(lab.run.history)
        if not action.done(lab):
            c[0].button("Step", key=f"lesson_step_{n}_{k}", on_click=runs.step,
                        args=(1, lab.run), width="stretch", icon=":material/footprint:")
            if left > 1:
                label = ("To the end" if action.target >= lab.run.max_iter
                         else f"Step to {action.target} voters")
                c[1].button(label, key=f"lesson_steps_{n}_{k}", width="stretch",
                            on_click=runs.step, args=(left, lab.run), type="primary")
        size = len(lab.run.history)
        (c[2] if not action.done(lab) else st).markdown(f"The vote has **{size}** voter{'s' * (size != 1)}"
                      + (f"; it stopped: {md(stopped_because(lab.run))}." if lab.run.done
                         else "."))
    elif isinstance(action, Move):
        lesson_state.move_widget(action, lesson_state.progress()["explorer"],
                                 f"lesson_move_{n}_{k}")
        if not action.done(lab):
            st.info(action.hint(lab), icon=":material/swipe:")
    elif isinstance(action, Compute) and not action.done(lab):
        if st.button(action.label, key=f"lesson_compute_{n}_{k}", type="primary",
                     icon=":material/play_arrow:"):
            with st.spinner(f"{action.label}..."):
                try:
                    lesson_state.compute(lab, action.key)
                except DataError as exc:
                    st.error(f"**This cannot run on the current data.** {md(for_app(str(exc)))}",
                             icon=":material/error:")
                    return
            st.rerun()


def guess_form(q, n, k):
    """The question's answer and its Lock button in one form: one click (or Enter) locks a
    typed number or a chosen answer."""
    with st.form(f"lesson_form_{n}_{k}", border=False):
        value = lesson_state.answer_widget(q, "Your guess", f"lesson_q_{n}_{k}")
        locked = st.form_submit_button("Lock in my guess", key=f"lesson_lock_{n}_{k}",
                                       type="primary", icon=":material/lock:")
    if locked and value is None:
        st.warning("Type a number first, then lock it in." if q.numeric else
                   "Choose an answer first, then lock it in.", icon=":material/edit:")
    elif locked:
        stored = q.read(value) if pacing is None else class_student.lock(k, value)
        if stored is not None:
            lesson_state.progress()["guesses"][k] = stored
            st.rerun()


def verdict(stage, rv, guess, second=None):
    """The verdict and the run's first sentence, in one box right under the action (with the
    second vote's, when the class voted twice)."""
    q = stage.question
    answer = rv.answer if not q.numeric else f"{rv.answer:.3g}"
    again = "" if second is None else (f" Your second vote: {md(second)}, "
                                       + ("right." if rv.right(q, second) else "not right."))
    said = (f"Your guess: {md(guess)}. Your run says: {md(answer)}.{again}  \n"
            f"{rv.headline}")
    if rv.right(q, guess):
        st.success(f"**Right.** {said}", icon=":material/check_circle:")
    else:
        st.warning(f"**Not this time.** {said}", icon=":material/lightbulb:")


# a formula wider than the page scrolls sideways instead of being cut off
FORMULA_STYLE = "<style>.katex-display { overflow-x: auto; overflow-y: hidden; }</style>"


def why(stage, rv):
    """The rest of the reveal, its formula and its paper, folded under the verdict."""
    with st.expander("Why, with the numbers of your run and the paper", expanded=False):
        if rv.why:
            st.markdown(rv.why)
        if stage.formula:
            st.html(FORMULA_STYLE)
            st.latex(stage.formula)
        st.caption(f"Source: {rv.source}")


def stage_view(lab, k):
    """Stage ``k``: what to do and the question; once answered, the action, then the verdict
    with the navigation right under it; the chart last."""
    p = lesson_state.progress()
    n, lesson, stage = p["n"], lab.lesson, lab.lesson.stage(k)
    st.progress(k / len(lesson.stages), text=f"Stage {k} of {len(lesson.stages)}: {stage.title}")
    st.markdown(f"**What to do.** {stage.do}  \n**Question.** {stage.question.text}")
    guess = p["guesses"].get(k)
    revealed = guess is not None and stage.action.done(lab)
    rv = stage.reveal(lab) if revealed else None
    shown = revealed and class_student.reveal_allowed(pacing, k)
    # one line in one place through the stage, read out when it changes (a lock, a reveal)
    if guess is None:
        status_line("Answer first: the controls for this stage appear once your guess is in.")
    else:
        status_line("Your guess: ", (str(guess),),
                    (". Right." if rv.right(stage.question, guess) else ". Not this time.")
                    if shown else " (locked).")
    second = None
    if guess is None:
        guess_form(stage.question, n, k)
    else:
        second = class_student.second_vote(pacing, stage, k)   # in view when it opens
        action_widgets(stage, lab, k)
    if revealed and pacing is not None:
        class_student.post(lab, k, rv, stage.question)
    if shown:
        verdict(stage, rv, guess, second)
    elif revealed:
        st.info("**Your guess is locked.** Your teacher reveals the answer to the whole class: "
                "your page shows it by itself then.", icon=":material/hourglass_top:")
    navigation(lab, k, shown)
    if shown:
        class_student.class_runs(pacing, lab, k)
        why(stage, rv)
    symbol_popover(stage.symbols, key=f"lesson_glossary_{n}_{k}")
    figure(stage, lab, k, answered=guess is not None)


def figure(stage, lab, k, answered):
    """The stage's chart: before the guess only when it does not give the answer away (a
    chart to read or a slider to move), after it once the action is done."""
    done = stage.action.done(lab)
    if stage.figure is None or not (
            (stage.figure_first or done) if answered else
            (stage.figure_first and (done or isinstance(stage.action, Move)))):
        return
    fig = stage.figure(lab)
    if fig is not None:
        live_chart(fig, key=f"lesson_fig_{lesson_state.progress()['n']}_{k}")


def navigation(lab, k, revealed):
    """Previous, Next (once revealed) and All lessons; the end of the lesson after its last
    reveal."""
    n, lesson = lesson_state.progress()["n"], lab.lesson
    c = st.columns(3)
    c[0].button("Previous stage", key="lesson_prev", disabled=k == 1, width="stretch",
                on_click=lesson_state.go, args=(k - 1,), icon=":material/arrow_back:")
    if k < len(lesson.stages):
        led = not class_student.next_allowed(pacing, k)
        c[1].button("Next stage", key="lesson_next", disabled=not revealed or led,
                    width="stretch", on_click=lesson_state.go, args=(k + 1,), type="primary",
                    icon=":material/arrow_forward:",
                    help="your teacher opens the next stage for the class" if led else None)
    if pacing is None:
        c[2].button("All lessons", key="lesson_all", on_click=lesson_state.leave,
                    width="stretch", icon=":material/list:")
    if k == len(lesson.stages) and revealed:
        st.success(f"**End of lesson {n}.** {lesson.leave}", icon=":material/flag:")
        if not hide.hidden("navigation"):
            try:
                st.page_link(PAGES[lesson.next_page], label="Continue with this run",
                             icon=":material/arrow_forward:")
            except StreamlitPageNotFoundError:  # the page run on its own, without the entry script
                pass


def lesson_view():
    p = lesson_state.progress()
    n, k = p["n"], p["stage"]
    lesson = LESSONS[n - 1]
    own = class_student.sample(pacing, class_link.member()["number"]) if pacing else {}
    try:
        run = runs.held_run(problem, settings, lesson.algorithm,
                            lesson_state.full_params(lesson), lesson.max_iter)
    except ParameterError as exc:   # e.g. trees chosen in the sidebar: no finite pool
        st.error(f"**Lesson {n} cannot run on these voters.** {md(exc)}.",
                 icon=":material/error:")
        st.button("Use the lesson's settings", key="lesson_preset", args=(own,),
                  on_click=lesson_state.back_to_preset, icon=":material/restart_alt:")
        return
    lab = lesson_state.lab(settings, problem, run)
    (st.subheader if pacing else st.title)(f"Lesson {n}: {lesson.title}")   # a class: compact
    document_title(f"Stage {k} of {len(lesson.stages)}", f"Lesson {n}: {lesson.title}")
    st.caption(f"{md(problem.dataset.description)} · {problem.split.X_train.shape[0]} training "
               f"examples · {problem.voters_text} · about {lesson.minutes} minutes")
    if pacing is not None:
        class_student.caption(pacing)
    changed = lesson_state.departures(lesson, settings, own)
    if changed:
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        c1.info(f"**Not the lesson's own settings:** {md(changed)}. The stage texts describe "
                "the lesson's settings; every number revealed is read from this run.",
                icon=":material/tune:")
        c2.button("Use the lesson's settings", key="lesson_preset", args=(own,),
                  on_click=lesson_state.back_to_preset, icon=":material/restart_alt:")
    with st.spinner("Catching up with the stages before this one..."):
        lesson_state.catch_up(lab, k)
    st.fragment(stage_part)(n, k)


def stage_part(n, k):
    """Stage ``k`` of lesson ``n``, redrawn alone by what acts on it (a Step, a slider, an
    answer): a Step sends the stage, not the page around it (the sidebar, the teacher's
    tools).  Its lab is read again from the session at each redraw (the slider's point, the
    run, the results); a click that changes the page around it (another stage or lesson)
    redraws the whole page."""
    p = lesson_state.progress()
    if p is None or (p["n"], p["stage"]) != (n, k):
        st.rerun()
    stage_view(lesson_state.lab(settings, problem, runs.held()), k)
    address.write("page", lesson_state.stage_values())


try:
    if lesson_state.progress() is None:
        address.write("page", {})   # the list: no lesson's keys in the link
        catalogue()
    else:
        lesson_view()
except LessonError as exc:
    st.error(f"**This lesson cannot go on.** {md(exc)}", icon=":material/error:")
if pacing is None:
    teacher_panel()
class_link.run_finished()
class_student.watch(pacing)
