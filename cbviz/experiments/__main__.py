"""``cbviz experiments NAME [--quick] [--n-jobs N] [--out DIR] [--scheduler ADDRESS]
[--set FIELD=VALUE ...]`` (or ``python -m cbviz.experiments``): run one of the papers'
experiments headless (the CB-Boost paper's, and the VEB-Boost paper's Table 1).

Finished units are saved as they come (``DIR/NAME/units/``): run the same command again after
an interruption and it computes only what is missing.  ``--set`` changes one field of the
preset's configuration (``--set splits=1 --set datasets=ionosphere,sonar``; a tuple field
takes comma-separated values).
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from ..algorithms import ParameterError
from . import EXPERIMENTS, ProgressLine, preset, results_dir, run_experiment


def _value(text, default):
    """``text`` parsed as the type of the field's ``default``."""
    if isinstance(default, tuple):
        items = [t.strip() for t in text.split(",") if t.strip()]
        kinds = {type(v) for v in default}
        kind = kinds.pop() if len(kinds) == 1 else str
        return tuple(_value(t, kind()) for t in items)
    if isinstance(default, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError(f"expected true or false, got {text!r}")
        return text.lower() == "true"
    return type(default)(text) if isinstance(default, (int, float)) else text


def _changes(name, quick, assignments):
    base = preset(name, quick)
    fields = {f.name for f in dataclasses.fields(base)}
    changes = {}
    for item in assignments:
        field, sep, text = item.partition("=")
        if not sep or field not in fields:
            raise ValueError(f"--set {item!r}: expected FIELD=VALUE with FIELD one of "
                             f"{sorted(fields)}")
        try:
            changes[field] = _value(text, getattr(base, field))
        except ValueError as exc:
            raise ValueError(f"--set {item!r}: {exc}") from None
    return changes


def _parser(prog):
    ap = argparse.ArgumentParser(prog=prog, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", choices=list(EXPERIMENTS),
                    help="; ".join(f"{e.name}: {e.title}" for e in EXPERIMENTS.values()))
    ap.add_argument("--quick", action="store_true",
                    help="the quick preset (under a minute on 2 cores) instead of the full one")
    ap.add_argument("--n-jobs", type=int, default=1,
                    help="parallel processes (-1: all cores; default 1)")
    ap.add_argument("--out", type=Path, default=results_dir(),
                    help="results directory (default: the app's, %(default)s; "
                         "$CBVIZ_DATA_DIR/experiment-results when that variable is set)")
    ap.add_argument("--scheduler", metavar="ADDRESS",
                    help="a Dask distributed scheduler to run the units on (tcp://host:8786)")
    ap.add_argument("--set", dest="assignments", metavar="FIELD=VALUE", action="append",
                    default=[], help="change a field of the preset (repeatable)")
    return ap


def main(argv=None, prog="python -m cbviz.experiments"):
    """Run one experiment with ``argv`` (default: the process's arguments); ``prog`` is the
    command's name in its usage lines (``cbviz experiments`` when the ``cbviz`` command runs
    it)."""
    parser = _parser(prog)
    args = parser.parse_args(argv)
    try:
        config = preset(args.name, args.quick, **_changes(args.name, args.quick,
                                                          args.assignments))
    except (ValueError, TypeError, ParameterError) as exc:
        parser.error(str(exc))
    print(f"{EXPERIMENTS[args.name].title}\n{config}", flush=True)
    if args.scheduler and not EXPERIMENTS[args.name].parallel:
        print("note: timing units run here, one after the other (not on the scheduler)")
    try:
        results = run_experiment(args.name, config=config, n_jobs=args.n_jobs, out=args.out,
                                 scheduler=args.scheduler, progress=ProgressLine(args.name))
    except KeyboardInterrupt:
        print(f"\ninterrupted: the finished units are in {args.out}; run the same command "
              "again to resume", file=sys.stderr)
        return 130
    experiment = EXPERIMENTS[args.name]
    if experiment.report is not None:
        print("\n" + experiment.report(results.tables))
    else:
        for name, table in results.tables.items():
            if name != "units":
                print(f"\n{name}\n{table.to_string(index=False, float_format='{:.4g}'.format)}")
    print(f"\nunits: {results.computed} computed, {results.done - results.computed} loaded from "
          f"{results.directory / 'units'}; {results.seconds:.1f} s")
    for path in results.files:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
