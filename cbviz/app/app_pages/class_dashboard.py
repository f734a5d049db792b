"""The teacher's dashboard of a live class (opened with the private teacher link)."""
import streamlit as st

from cbviz.lessons import LESSONS
from cbviz.ui import class_live, class_teacher

pacing = class_teacher.signed_in()
if pacing is not None:
    lesson = LESSONS[pacing.lesson - 1]
    st.title(f"Class {pacing.code} · Lesson {pacing.lesson}: {lesson.title}")
    st.caption(("Students follow your stages" if pacing.mode == "follow" else
                "Students move at their own pace")
               + (" · each on their own sample" if pacing.own_samples else "")
               + (" · **paused**" if pacing.paused else ""))
    if not st.session_state.get(class_teacher.PROJECTOR):
        class_teacher.controls(pacing)
    else:
        st.toggle("Projector view", key=class_teacher.PROJECTOR)
    class_live.live(pacing.code)
    if not st.session_state.get(class_teacher.PROJECTOR):
        class_teacher.export_and_end(pacing)
