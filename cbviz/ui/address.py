"""The page's address (its link), written in parts so that it is whole at every moment of a run.

Streamlit sends the address to the browser at each write, while the run goes on.  The sidebar
writes the shared part (the settings, the hidden parts, the class), then a page writes its own
(a lesson's stage, the step page's run).  Were a write to replace the whole address, the bar
would lack the page's part from the sidebar's write to the page's, and a reload then (or a run
cut short, or a restarted worker's first run) would open another view.  So each part replaces
only the keys it wrote before and keeps every other: a page's keys from the link stay until the
page writes them again.
"""
import streamlit as st

_WRITTEN = "address_written"   # {part: the keys it wrote last}


def write(part, values):
    """Make ``values`` (str to str) the address's ``part`` ("shared" or "page"): the keys the
    part wrote before and no longer writes go, every other key stays; one message."""
    written = st.session_state.setdefault(_WRITTEN, {})
    gone = set(written.get(part, ())) - set(values)
    current = st.query_params.to_dict()
    address = {k: v for k, v in current.items() if k not in gone} | values
    written[part] = tuple(values)
    if address != current:
        st.query_params.from_dict(address)


__all__ = ["write"]
