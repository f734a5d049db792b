"""``cbviz bench [cbboost | algorithms | fig1]`` (or ``python -m cbviz.bench``): the package
docstring's three commands."""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from .algorithm_times import algorithm_table, algorithm_targets, format_algorithm_table
from .engine import measure, report
from .claims import fig1_report, fig1_summary
from .fig1_protocol import QUICK_FIG1, Fig1Config, fig1, write_fig1

__all__ = ["main"]


def _description():
    from . import __doc__ as text   # the package's docstring describes the commands
    return text


def _parser(prog):
    ap = argparse.ArgumentParser(prog=prog, description=_description(),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command")
    cb = sub.add_parser("cbboost", help="the stump engine's table (the default)")
    cb.add_argument("--m", type=int, default=11791, help="examples (default: MNIST 4v9 size)")
    cb.add_argument("--d", type=int, default=784, help="features")
    cb.add_argument("--iters", type=int, default=20, help="CB-Boost iterations per configuration")
    cb.add_argument("--seed", type=int, default=0)
    cb.add_argument("--sklearn-iters", type=int, default=5,
                    help="AdaBoost trees (each costs about a second at the default size)")

    al = sub.add_parser("algorithms", help="time per iteration of every registered algorithm")
    al.add_argument("--m", type=int, default=11800, help="examples (default: MNIST 4v9 size)")
    al.add_argument("--d", type=int, default=784, help="features")
    al.add_argument("--iters", type=int, default=20, help="iterations per algorithm (>= 2)")
    al.add_argument("--thresholds", type=int, default=10, help="stump thresholds per feature")
    al.add_argument("--seed", type=int, default=0)
    al.add_argument("--mincq-voters", type=int, default=None,
                    help="direct voters of MinCq's sub-pool (default: the whole pool; 0: skip)")
    al.add_argument("--cqboost-iters", type=int, default=None,
                    help="CqBoost's iterations (default: --iters)")
    al.add_argument("--klboost-passes", type=int, default=3,
                    help="passes of the KL-regularized learner")
    al.add_argument("--repeat", type=int, default=3,
                    help="best of this many runs per algorithm (while under 5 s)")

    f1 = sub.add_parser("fig1", help="the CB-Boost paper's Fig. 1 sweeps; writes CSV files")
    f1.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    f1.add_argument("--out", default=".", help="directory of fig1_{n,m,T,ratios,claims}.csv")
    f1.add_argument("--d", type=int)
    f1.add_argument("--seed", type=int)
    f1.add_argument("--m-fixed", type=int, help="examples of the n and T sweeps")
    f1.add_argument("--T-fixed", type=int, help="iterations of the n and m sweeps")
    f1.add_argument("--thresholds-fixed", type=int, help="thresholds per feature, m and T sweeps")
    f1.add_argument("--n-grid", type=int, nargs="+", help="thresholds per feature (n = 2 d k)")
    f1.add_argument("--m-grid", type=int, nargs="+")
    f1.add_argument("--T-grid", type=int, nargs="+")
    f1.add_argument("--dense", action="store_true", default=None,
                    help="dense voter matrices instead of the stump operator")
    f1.add_argument("--repeat", type=int, help="best of this many runs per fit (default 5)")
    f1.add_argument("--repeat-budget", type=float,
                    help="seconds after which a fit is not repeated (default 5)")
    return ap


def _fig1_config(args):
    """The ``--quick`` or default configuration with the options given on the command line."""
    base = QUICK_FIG1 if args.quick else Fig1Config()
    given = {name: getattr(args, name) for name in base.__dataclass_fields__
             if getattr(args, name, None) is not None}
    return replace(base, **{k: tuple(v) if isinstance(v, list) else v for k, v in given.items()})


def main(argv=None, prog="python -m cbviz.bench"):
    """Run the benchmark command with ``argv`` (default: the process's arguments); ``prog`` is
    the command's name in its usage lines (``cbviz bench`` when the ``cbviz`` command runs it)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = ("cbboost", "algorithms", "fig1")
    if not argv or (argv[0] not in commands and argv[0] not in ("-h", "--help")):
        argv = ["cbboost"] + argv   # the original interface: options only
    args = _parser(prog).parse_args(argv)
    if args.command == "cbboost":
        table = measure(args.m, args.d, args.iters, args.seed, args.sklearn_iters)
        print(f"Time per iteration, m={args.m}, d={args.d}, seed={args.seed} (CB-Boost: median "
              f"of steps 2..{args.iters}; BLAS and OpenMP on one thread)")
        print(report(table))
    elif args.command == "algorithms":
        table = algorithm_table(args.m, args.d, args.iters, args.thresholds, args.seed,
                                args.mincq_voters, args.cqboost_iters, args.klboost_passes,
                                args.repeat)
        print(f"Per-iteration time of every algorithm, m={args.m}, d={args.d}, "
              f"{args.thresholds} thresholds per feature + complements, seed={args.seed}")
        print(format_algorithm_table(table))
        print("\n".join(algorithm_targets(table, args.m, args.d, args.thresholds, args.seed)))
    else:
        config = _fig1_config(args)
        tables = fig1(config)
        tables.update(fig1_summary(tables))
        print(f"CB-Boost paper, Fig. 1 protocol: {config}")
        print(fig1_report(tables))
        for path in write_fig1(tables, args.out):
            print(f"wrote {path}")
