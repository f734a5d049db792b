"""Streamlit helpers shared by the pages (the only package code that imports streamlit)."""
