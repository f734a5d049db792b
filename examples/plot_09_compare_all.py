"""
Every algorithm on one data set
===============================

The comparison page of the app runs every registered algorithm on the same split and voter
pool, in lockstep, beside scikit-learn's ensembles.  :class:`cbviz.compare.Comparison` does the
same in a script, and :func:`cbviz.plots.compare_figure` draws one record column of every run.
"""
from cbviz.algorithms import ALGORITHMS
from cbviz.compare import Comparison
from cbviz.plots import compare_figure
from cbviz.problem import Settings, build_problem

problem = build_problem(Settings(source="real", real="breast_cancer", n_thresholds="10"))
algorithms = [(key, {}) for key in ALGORITHMS] + [("cbboost", {"direction": "gradient"})]
comparison = Comparison(problem, algorithms, baselines=["adaboost", "random_forest"],
                        max_iter=40)
while not comparison.done:
    comparison.step(10)
table = comparison.final_table()
print(table[["algorithm", "iterations", "test error", "voters with weight", "C-bound"]]
      .round(4).to_string(index=False))

# %%
# What the figure shows: the empirical C-bound of every run that has one, per iteration.
# MinCq solves its whole program in one step, a single point, and it is the lowest: it
# optimizes the C-bound over every voter of the pool at once.  The scikit-learn ensembles do
# not define a C-bound and are named in the subtitle.  Among the iterative algorithms,
# CqBoost, which re-solves the C-bound program on all its chosen voters at every step, ends
# lower than CB-Boost, which fixes each weight when it adds a voter and stops when Theorem 3's
# rule finds no improving voter:
frames = comparison.frames()
greedy = table[table["iterations"] > 1].dropna(subset=["C-bound"])
print("lowest final C-bound among the iterative algorithms:",
      greedy.loc[greedy["C-bound"].idxmin(), "algorithm"])
print("CB-Boost stopped:", comparison.runs["CB-Boost"].stop_reason)
fig = compare_figure(frames, "c_bound", title="Empirical C-bound of every algorithm",
                     y_title="empirical C-bound")
fig.show()
