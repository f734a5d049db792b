"""cbviz: learn, teach and compare PAC-Bayesian majority-vote algorithms."""
__version__ = "0.1.0"
