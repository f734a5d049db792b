"""The Lessons page's panel for teachers: a class link that opens a lesson at a stage with
parts of the interface hidden, and its QR code for a projector, at an address students'
devices can open (:mod:`cbviz.ui.class_address`)."""
from __future__ import annotations

import streamlit as st

from ..lessons import LESSONS
from . import class_teacher, hide, lesson_state
from .class_address import page_class_base
from .controls import number_field


def teacher_panel():
    """Compose a class link that opens a lesson at a stage with parts hidden, and its QR code."""
    if hide.hidden("teacher"):
        return
    with st.expander("For teachers: a class link", icon=":material/qr_code_2:"):
        c1, c2 = st.columns(2)
        n = c1.selectbox("Lesson", range(1, len(LESSONS) + 1), key="teacher_lesson",
                         format_func=lambda i: f"{i}. {LESSONS[i - 1].title}")
        stage = number_field(c2, "Stage", 1, len(LESSONS[n - 1].stages), "teacher_panel",
                             f"stage_{n}", f"teacher_stage_{n}", default=1, notice=st)
        parts = st.multiselect("Hide", list(hide.PARTS), key="teacher_hide",
                               default=["navigation", "advanced", "export", "teacher"],
                               help="hidden parts are not drawn; students get one button that "
                                    "shows them again")
        st.markdown("Parts that can be hidden: " + "; ".join(
            f"**{k}**: {v}" for k, v in hide.PARTS.items()))
        base, warning = page_class_base()
        url = lesson_state.class_link(base, n, int(stage), parts)
        if warning:
            st.warning(warning, icon=":material/wifi_off:")
        st.code(url, language=None, wrap_lines=True)
        c_qr, c_text = st.columns([1, 2])
        c_qr.image(lesson_state.qr_png(url), width=260,
                   caption=f"Lesson {n}, stage {stage}")
        c_text.markdown("Project the code or paste the link: it opens the lesson's data and "
                        "run at that stage, with the parts above hidden.")
    class_teacher.start_panel()


__all__ = ["teacher_panel"]
