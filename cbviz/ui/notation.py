"""The notation of every page, typeset, in the sidebar (the symbols: :mod:`cbviz.glossary`)."""
from __future__ import annotations

import streamlit as st

from ..glossary import CB_BOOST_PAPER, GLOSSARY
from .page import lazy_expander

__all__ = ["CB_BOOST_PAPER", "draw_glossary", "symbol_popover"]

SIDEBAR = ("m", "h", "a", "Q", "P", "gamma", "nu", "tau", "M", "mu", "C", "r", "d", "e", "KL",
           "delta")


def draw_glossary():
    """The notation, in the sidebar of every page; its entries are drawn while it is open
    (opening it reruns the page), so a page load does not send 17 texts no one opened."""
    lazy_expander("Notation", "notation", _notation, where=st.sidebar, icon=":material/function:")


def _notation():
    for key in SIDEBAR:
        formula, meaning = GLOSSARY[key]
        st.markdown(f"${formula}$: {meaning}")
    st.markdown("For real-valued voters (RBF), r, d and e are defined by the same formulas "
                "from the margins; they are no longer probabilities of errors of voters.")


def symbol_popover(keys, key):
    """A "Glossary" button that opens the definitions of the symbols ``keys``."""
    if not keys:
        return
    with st.popover("Glossary of this stage", icon=":material/function:", key=key):
        for k in keys:
            formula, meaning = GLOSSARY[k]
            st.markdown(f"${formula}$: {meaning}")
