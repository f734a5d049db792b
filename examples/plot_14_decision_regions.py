"""
A vote of stumps on the plane
=============================

On a two-feature toy set the vote itself can be drawn: a stump splits the plane along one
axis, so a weighted vote of stumps is constant on the rectangles cut by their thresholds.
:meth:`cbviz.problem.Problem.vote_grid` evaluates the normalized vote on those cells and
:func:`cbviz.plots.decision_figure` draws it with the data, as the app's step page does.
"""
from cbviz.algorithms import CBBoost
from cbviz.plots import decision_figure
from cbviz.problem import Settings, build_problem

problem = build_problem(Settings(source="toy", toy="moons", n_samples=300, toy_noise=0.25,
                                 n_thresholds="20"))
split = problem.split
run = CBBoost(max_iter=25).start(problem.H_train, split.y_train, problem.H_test, split.y_test,
                                 describe=problem.pool.describe).run()
last = run.history[-1]
print(f"{len(run.history)} iterations, {last.n_voters} voters: train error "
      f"{last.train_error:.3f}, test error {last.test_error:.3f}")

# %%
# What the figure shows: red cells are where the vote says +1, blue where it says -1, and the
# paler the cell, the smaller the vote's margin there.  The boundary follows the moons only in
# steps parallel to the axes, since every stump's boundary is a line parallel to one axis.
xe, ye, Z = problem.vote_grid(run.weights_at())
print(f"{len(xe) - 1} x {len(ye) - 1} cells; vote between {Z.min():.2f} and {Z.max():.2f}")
fig = decision_figure(xe, ye, Z, split.X_train, split.y_train, split.X_test, split.y_test)
fig.show()
