"""cbviz: the Streamlit entry point (navigation, shared sidebar, home page)."""
import streamlit as st

from cbviz.app.streamlit_server import warm_up
from cbviz.ui import ICON, hide
from cbviz.ui.page import add_style, document_title
from cbviz.ui.sidebar import apply_settings, publish_sidebar

# a local file: a ":material/..." icon makes the browser fetch the favicon from a font CDN
st.set_page_config(page_icon=str(ICON), layout="wide")
add_style()
warm_up()   # once per process (`cbviz app` did it before it answered): no click compiles


def home():
    document_title("PAC-Bayesian majority votes")
    st.title("cbviz: learn the C-bound by watching it fall")
    st.markdown(
        """
A **majority vote** combines many simple voters h₁, …, hₙ (here decision stumps such as
"x3 > 0.52") with non-negative weights: it predicts sign(Σₖ aₖ hₖ(x)). Normalizing the weights
gives a distribution **Q** over the voters, and PAC-Bayesian theory bounds the risk of the vote
through Q and its distance KL(Q‖P) to a prior P.

The **margin** of an example is M(x, y) = y Σₖ Qₖ hₖ(x) ∈ [-1, 1]: positive when the weighted
majority is right. With its first two moments μ₁ = E[M] and μ₂ = E[M²], the **C-bound**
(Lacasse et al. 2006) says that, when μ₁ > 0,

  risk of the majority vote ≤ C = 1 − μ₁² / μ₂ = 1 − (1 − 2r)² / (1 − 2d),

where, for voters with outputs ±1, r is the **Gibbs risk** (the error of one voter drawn from
Q) and d the **disagreement** (how often two voters drawn from Q differ). A good vote has
accurate voters that still disagree with one another. For real-valued voters (the RBF pool),
r = (1 − μ₁)/2 and d = (1 − μ₂)/2 are defined by the same formulas but are no longer
probabilities of errors: r is then half the average shortfall of the margin from 1.
**CB-Boost** (Bauvin et al. 2020, *Fast greedy C-bound minimization with guarantees*, Machine
Learning) adds one voter at a time with the weight that minimizes C in closed form (its
Theorem 3), so every step is one pass over the data.
"""
    )
    st.subheader("Pages")
    st.markdown(
        """
- **Lessons**: seven guided lessons of 10-15 minutes. Each stage asks a question before you
  act, then checks your guess against your own run and says why, with the paper behind it.
  Teachers compose a class link (and its QR code) that opens a lesson with parts of the
  interface hidden.
- **Step through an algorithm**: CB-Boost, MinCq, CqBoost, QuadBoost, the KL-regularized
  learner, VEB-Boost or AdaBoost, one iteration at a time; the C-bound, the PAC-Bayes bounds,
  train/test error, KL, what the algorithm minimizes, the weight of each voter, the margins,
  the decision regions and, for CB-Boost, the one-direction curve of Theorem 3.
- **Gradient vs exhaustive**: every candidate voter scored by the gradient rule and by the
  exact C-bound decrease; both rules run side by side.
- **Compare algorithms**: any of them, with scikit-learn's ensembles, on the same data and
  voters: C-bound, errors, KL, sparsity, time, bounds and decision regions.
- **Paper experiments**: the CB-Boost paper's Table 2, Fig. 1, Fig. 3 and Fig. 5 on the
  offline data sets, quick or full, resumable.
- **C-bound explorer**: the C-bound as a function of the Gibbs risk and the disagreement, a
  three-voter vote you set by hand, and what the PAC-Bayes bounds cost in examples.
"""
    )
    if st.button("Start on the two-moons toy set", type="primary", key="home_start",
                 icon=":material/play_arrow:"):
        apply_settings({"source": "toy", "toy": "moons", "n_samples": 300, "toy_noise": 0.25,
                        "pool": "stumps", "n_thresholds": "10"})
        st.switch_page(step_page)


lessons_page = st.Page("app_pages/lessons.py", title="Lessons", icon=":material/school:")
step_page = st.Page("app_pages/step_through.py", title="Step through an algorithm",
                    icon=":material/footprint:",
                    url_path="step_through_cbboost")  # the URL teachers' links use, kept
gradient_page = st.Page("app_pages/gradient_vs_exhaustive.py", title="Gradient vs exhaustive", icon=":material/explore:")
compare_page = st.Page("app_pages/compare_algorithms.py", title="Compare algorithms",
                       icon=":material/compare_arrows:")
explorer_page = st.Page("app_pages/cbound_explorer.py", title="C-bound explorer",
                        icon=":material/insights:")
class_page = st.Page("app_pages/class_dashboard.py", title="Class dashboard",
                     icon=":material/dashboard:", url_path="class")
experiments_page = st.Page("app_pages/paper_experiments.py", title="Paper experiments",
                           icon=":material/science:")
hide.load()  # a class link's hidden parts, before the navigation is built
navigation = st.navigation([st.Page(home, title="Home", icon=":material/home:", default=True),
                            lessons_page, step_page, gradient_page, compare_page, explorer_page,
                            experiments_page, class_page],
                           position="hidden" if hide.hidden("navigation") else "sidebar")

hide.show_control()
if navigation.url_path != "class":   # the teacher's dashboard has no data of its own
    publish_sidebar()
document_title(navigation.title)   # a page that shows more names the tab after it
try:
    navigation.run()
finally:  # the page of the next run must not take this run's sidebar for its own
    st.session_state.pop("sidebar_drawn", None)
