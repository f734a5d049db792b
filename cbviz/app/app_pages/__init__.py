"""The app's pages: one Streamlit script each, run by path (a package only so that the layer
contract, .importlinter, reads their imports too)."""
