"""Lessons: a guided path through the C-bound, one stage at a time.

Each stage says what to do, asks a question before the student acts, then reveals the answer
computed from the student's own run, whether the guess was right, and why.
"""
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from cbviz.data import DataError
from cbviz.lessons import LESSONS, Compute, LessonError, Move, Step
from cbviz.ui import hide, lesson_state, runs
from cbviz.ui.glossary import symbol_popover
from cbviz.ui.messages import for_app
from cbviz.ui.sidebar import require_problem
from cbviz.ui.teacher import teacher_panel
from cbviz.ui.text import md

PAGES = {"step": "app_pages/step_through_cbboost.py", "explorer": "app_pages/cbound_explorer.py",
         "gradient": "app_pages/gradient_vs_exhaustive.py",
         "compare": "app_pages/compare_algorithms.py"}

settings, problem = require_problem()
ignored = lesson_state.read_link()
if ignored:
    st.warning("Ignored from the link: " + md("; ".join(ignored)), icon=":material/link_off:")


def catalogue():
    """The list of lessons, each with a Start button."""
    st.title("Lessons")
    st.markdown("Seven guided lessons through the C-bound and the algorithms that minimize it. "
                "Each stage asks you a question **before** you act; then the answer is read "
                "off your own run, with why and the paper it comes from. Your place is kept "
                "in the page's link: reload it or send it, and it opens on the same stage.")
    for n, lesson in enumerate(LESSONS, start=1):
        with st.container(border=True):
            c1, c2 = st.columns([5, 1], vertical_alignment="center")
            c1.markdown(f"**{n}. {lesson.title}** · about {lesson.minutes} minutes, "
                        f"{len(lesson.stages)} stages  \n{lesson.summary}")
            c2.button("Start", key=f"lesson_start_{n}", on_click=lesson_state.enter,
                      args=(n,), width="stretch", type="primary" if n == 1 else "secondary")


def action_widgets(stage, lab, k):
    """The controls of a stage's action (drawn only once the guess is in)."""
    action = stage.action
    n = lesson_state.progress()["n"]
    if isinstance(action, Step):
        c = st.columns(3)
        if not action.done(lab):
            c[0].button("Step", key=f"lesson_step_{n}_{k}", on_click=runs.step,
                        args=(1, lab.run), width="stretch", icon=":material/footprint:")
            label = ("To the end" if action.target >= lab.run.max_iter
                     else f"Step to {action.target} voters")
            c[1].button(label, key=f"lesson_steps_{n}_{k}", width="stretch",
                        on_click=runs.step, args=(action.target - len(lab.run.history), lab.run))
        c[2].markdown(f"The vote has **{len(lab.run.history)}** voter"
                      f"{'s' * (len(lab.run.history) != 1)}"
                      + (f"; it stopped: {md(lab.run.stop_reason)}." if lab.run.done else "."))
    elif isinstance(action, Move):
        lesson_state.move_widget(action, lesson_state.progress()["explorer"],
                                 f"lesson_move_{n}_{k}")
    elif isinstance(action, Compute) and not action.done(lab):
        if st.button(action.label, key=f"lesson_compute_{n}_{k}", type="primary",
                     icon=":material/play_arrow:"):
            with st.spinner(f"{action.label}..."):
                try:
                    action.perform(lab)
                except DataError as exc:
                    st.error(f"**This cannot run on the current data.** {md(for_app(str(exc)))}",
                             icon=":material/error:")
                    return
            st.rerun()


def question_widget(q, key):
    if q.numeric:
        integer = float(q.step).is_integer()
        cast = int if integer else float
        return st.number_input("Your guess", cast(q.low), cast(q.high), step=cast(q.step),
                               value=None, key=key, placeholder="type a number")
    return st.radio("Your guess", q.choices, index=None, key=key)


def reveal_box(stage, lab, guess):
    q = stage.question
    rv = stage.reveal(lab)
    answer = rv.answer if not q.numeric else f"{rv.answer:.3g}"
    if rv.right(q, guess):
        st.success(f"**Right.** Your guess: {md(guess)}. Your run says: {md(answer)}.",
                   icon=":material/check_circle:")
    else:
        st.warning(f"**Not this time.** Your guess: {md(guess)}. Your run says: {md(answer)}.",
                   icon=":material/lightbulb:")
    st.markdown(rv.text)
    if stage.formula:
        st.latex(stage.formula)
    st.caption(f"Source: {rv.source}")


def stage_view(lab, k):
    """Stage ``k``: what to do, the question, then the action and the reveal."""
    p = lesson_state.progress()
    lesson, stage = lab.lesson, lab.lesson.stage(k)
    st.progress(k / len(lesson.stages), text=f"Stage {k} of {len(lesson.stages)}: {stage.title}")
    st.markdown(f"**What to do.** {stage.do}")
    symbol_popover(stage.symbols, key=f"lesson_glossary_{p['n']}_{k}")
    st.markdown(f"**Question.** {stage.question.text}")
    guess = p["guesses"].get(k)
    if guess is None:
        value = question_widget(stage.question, f"lesson_q_{p['n']}_{k}")
        if st.button("Lock in my guess", key=f"lesson_lock_{p['n']}_{k}", type="primary",
                     disabled=value is None, icon=":material/lock:"):
            p["guesses"][k] = stage.question.read(value)
            st.rerun()
        st.caption("Answer first: the controls for this stage appear once your guess is in.")
        figure(stage, lab, k, before=True)
        return False
    st.markdown(f"Your guess: **{md(guess)}**")
    action_widgets(stage, lab, k)
    figure(stage, lab, k)
    if not stage.action.done(lab):
        return False
    reveal_box(stage, lab, guess)
    return True


def figure(stage, lab, k, before=False):
    """The stage's chart (before the guess only when there is nothing left to do but look,
    or a slider to move)."""
    if stage.figure is None or (before and not (stage.action.done(lab)
                                                or isinstance(stage.action, Move))):
        return
    fig = stage.figure(lab)
    if fig is not None:
        st.plotly_chart(fig, key=f"lesson_fig_{lesson_state.progress()['n']}_{k}",
                        config={"displaylogo": False})


def lesson_view():
    p = lesson_state.progress()
    n, k = p["n"], p["stage"]
    lesson = LESSONS[n - 1]
    run = runs.held_run(problem, settings, lesson.algorithm, lesson_state.full_params(lesson),
                        lesson.max_iter)
    lab = lesson_state.lab(settings, problem, run)
    st.title(f"Lesson {n}: {lesson.title}")
    st.caption(f"{md(problem.dataset.description)} · {problem.split.X_train.shape[0]} training "
               f"examples · {problem.n_voters} voters · about {lesson.minutes} minutes")
    with st.spinner("Catching up with the stages before this one..."):
        lesson_state.catch_up(lab, k)
    revealed = stage_view(lab, k)
    st.query_params.update(lesson_state.link_values(lab, k))
    c = st.columns(3)
    c[0].button("Previous stage", key="lesson_prev", disabled=k == 1, width="stretch",
                on_click=lesson_state.go, args=(k - 1,), icon=":material/arrow_back:")
    if k < len(lesson.stages):
        c[1].button("Next stage", key="lesson_next", disabled=not revealed, width="stretch",
                    on_click=lesson_state.go, args=(k + 1,), type="primary",
                    icon=":material/arrow_forward:")
    c[2].button("All lessons", key="lesson_all", on_click=lesson_state.leave, width="stretch",
                icon=":material/list:")
    if k == len(lesson.stages) and revealed:
        st.success(f"**End of lesson {n}.** {lesson.leave}", icon=":material/flag:")
        if not hide.hidden("navigation"):
            try:
                st.page_link(PAGES[lesson.next_page], label="Go on with this run",
                             icon=":material/arrow_forward:")
            except StreamlitPageNotFoundError:  # the page run on its own, without app.py
                pass


try:
    if lesson_state.progress() is None:
        catalogue()
    else:
        lesson_view()
except LessonError as exc:
    st.error(f"**This lesson cannot go on.** {md(exc)}", icon=":material/error:")
teacher_panel()
