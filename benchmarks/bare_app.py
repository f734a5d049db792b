"""The smallest Streamlit app: one button and a counter (the latency peer of the real app)."""
import streamlit as st

st.session_state.setdefault("clicks", 0)
if st.button("Click", key="bare"):
    st.session_state["clicks"] += 1
st.write(f"clicks: {st.session_state['clicks']}")
