"""The teacher's dashboard of a live class (opened with the private teacher link)."""
import streamlit as st

from cbviz.lessons import LESSONS
from cbviz.ui import class_link, class_live, class_teacher
from cbviz.ui.page import document_title

class_link.run_started()
pacing = class_teacher.signed_in()
if pacing is not None:
    lesson = LESSONS[pacing.lesson - 1]
    projector = st.session_state.get(class_teacher.PROJECTOR, False)
    st.subheader(f"Class {pacing.code} · Lesson {pacing.lesson}: {lesson.title}")
    document_title(f"Class {pacing.code}", "Class dashboard")
    st.caption(("Students follow your stages" if pacing.mode == "follow" else
                "Students move at their own pace")
               + (" · each on their own sample" if pacing.own_samples else "")
               + (" · **paused**" if pacing.paused else "")
               + (f" · join with the code **{pacing.code}**" if projector else ""))
    if projector:
        st.toggle("Projector view", key=class_teacher.PROJECTOR)
    else:
        class_teacher.controls(pacing)
        class_teacher.export_and_end(pacing)
st.query_params.from_dict(class_link.link_value())   # in the projector view: no key shown
class_link.run_finished()
if pacing is not None:
    class_live.live(pacing.code)
