"""Sphinx configuration of the cbviz documentation.

Build (from the repository root): ``sphinx-build -W --keep-going -n -b html docs docs/_build/html``.
The API pages are written here, at every build, from each module's ``__all__``; the gallery
scripts in ``examples/`` are executed by sphinx-gallery.
"""
from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS))

import cbviz  # noqa: E402

project = "cbviz"
author = "the cbviz authors"
copyright = "2026, the cbviz authors"
release = version = cbviz.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",   # MathJax 3 from the package, copied into _static/mathjax
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

exclude_patterns = ["_build", "algorithms/generated", "generated"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme = "pydata_sphinx_theme"
html_title = f"cbviz {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "**": ["sidebar-nav-bs"]}
html_show_sourcelink = False
# The docs read offline: MathJax is served from the built site (the sphinx-mathjax-offline
# package copies its MathJax into _static/mathjax at the end of the build) instead of a CDN,
# and docs/offline_check.py fails the build on anything loaded from the network.
mathjax_path = "mathjax/tex-chtml.js"

# ---------------------------------------------------------------- warnings are errors
nitpicky = True
# Types of other libraries: their inventories cannot be fetched offline (no intersphinx), so
# their names are written as plain references that do not resolve.  Everything of cbviz's
# own must resolve.
nitpick_ignore_regex = [
    # private base classes and helpers named by public ones (``_VoteClassifier`` ...)
    (r"py:.*", r"(.*\.)?_[A-Za-z].*"),
    (r"py:.*", r"(numpy|np|pandas|pd|scipy|sklearn|plotly|go|joblib|distributed|numba|"
               r"streamlit|pathlib|collections|typing|concurrent|threading|dataclasses|"
               r"contextlib|enum|abc|argparse|io|os|datetime)\..*"),
    (r"py:.*", r"(ndarray|DataFrame|Series|Figure|LinearOperator|BaseEstimator|"
               r"ClassifierMixin|RandomState|Generator|Path|Callable|Iterator|Iterable|"
               r"Sequence|Mapping|Hashable|Enum|TextIO|Client|array-like|array_like|callable|"
               r"optional|default|None|True|False|int|float|str|bool|tuple|list|dict|object|"
               r"bytes|type|function|iterable|sequence|mapping|generator|scalar)"),
]

# References to cbviz's own objects that have no page (internal helpers, constants, modules)
# are checked to exist and shown as code text: see ``_internal_target`` below.
# sphinx-gallery's configuration holds functions (the plotly scraper): Sphinx says it cannot
# cache it, which only means a full re-read when it changes.
suppress_warnings = ["config.cache"]
# autosummary cuts a summary at the first period followed by a space, even inside an inline
# literal (its check for broken markup parses the whole first paragraph, not the cut), and the
# cut literal shows its backquotes: a docstring's first sentence keeps no ". " inside ``...``
# (write ``a`` to ``b`` for a range).  The warning it gives is not silenced.


# ---------------------------------------------------------------- autodoc / numpydoc
autodoc_default_options = {"members": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autosummary_generate = True
autosummary_imported_members = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# ---------------------------------------------------------------- API pages
# (title, module) in the order of the reference's table of contents
API_MODULES = [
    ("Data sets", "cbviz.data"),
    ("Voter pools", "cbviz.voters"),
    ("Margins, C-bound and PAC-Bayes bounds", "cbviz.bounds"),
    ("Algorithms (steppers)", "cbviz.algorithms"),
    ("Parameter constraints: what each hyper-parameter allows", "cbviz.constraints"),
    ("scikit-learn estimators", "cbviz.estimators"),
    ("scikit-learn baselines", "cbviz.baselines"),
    ("Figures", "cbviz.plots"),
    ("Figures of the C-bound plane, a toy vote and bounds against m", "cbviz.plots.cbound"),
    ("Figures of a live class", "cbviz.plots.classroom"),
    ("Paper experiments", "cbviz.experiments"),
    ("Comparing algorithms", "cbviz.compare"),
    ("Progress and cancelling", "cbviz.progress"),
    ("The C-bound plane", "cbviz.cbound_plane"),
    ("A toy vote of voters set by hand", "cbviz.toy_vote"),
    ("PAC-Bayes bounds against the sample size", "cbviz.sample_size"),
    ("Exporting figures and tables", "cbviz.export"),
    ("The store of live classes", "cbviz.classroom"),
    ("Data, pool and split as the app builds them", "cbviz.problem"),
    ("Speed benchmark", "cbviz.bench"),
    ("Glossary of the notation", "cbviz.glossary"),
    ("The cbviz command", "cbviz.cli"),
]


def _public_names(module):
    """``__all__``, else the public functions and classes defined in the module itself."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, obj in vars(module).items()
            if not name.startswith("_") and getattr(obj, "__module__", None) == module.__name__
            and (inspect.isfunction(obj) or inspect.isclass(obj))]


def _write_if_changed(path, text):
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _write_api_pages():
    """One page per module: its docstring and a summary table of its ``__all__`` (one page
    per entry)."""
    out = DOCS / "api"
    out.mkdir(exist_ok=True)
    index = ["API reference", "=============", "",
             "Every public name of each module (its ``__all__``), one page each.", "",
             ".. toctree::", "   :maxdepth: 1", ""]
    pages, entries = set(), set()
    for title, name in API_MODULES:
        module = importlib.import_module(name)
        slug = name.replace(".", "_")
        pages.add(slug)
        entries.update(f"{name}.{n}" for n in _public_names(module))
        index.append(f"   {slug}")
        head = f"``{name}``: {title}"
        lines = [head, "=" * len(head), "", f".. automodule:: {name}", "   :no-members:", "",
                 f".. currentmodule:: {name}", "", ".. autosummary::", "   :toctree: generated/",
                 "   :nosignatures:", ""]
        lines += [f"   {n}" for n in _public_names(module)]
        _write_if_changed(out / f"{slug}.rst", "\n".join(lines) + "\n")
    _write_if_changed(out / "index.rst", "\n".join(index) + "\n")
    # pages left by modules or names no longer listed (renamed, removed) would be documents
    # outside every toctree, a warning: remove them
    for page in out.glob("cbviz*.rst"):
        if page.stem not in pages:
            page.unlink()
    for page in (out / "generated").glob("cbviz.*.rst"):
        if page.stem not in entries:
            page.unlink()


_write_api_pages()

# ---------------------------------------------------------------- tables read off the code
ESTIMATORS = {"cbboost": "CBBoostClassifier", "mincq": "MinCqClassifier",
              "cqboost": "CqBoostClassifier", "quadboost": "QuadBoostClassifier",
              "klboost": "KLBoostClassifier", "vebboost": "VEBBoostClassifier",
              "adaboost": "AdaBoostClassifier"}


def _range(param):
    """The declared values (the factory's constraint, as a refusal words them), and the range
    the app's widget shows where it differs."""
    text = param.constraint.describe()
    if param.shown:
        text += f"; the app's widget shows {param.low:g} to {param.high:g}"
    return text + (" (log scale)" if param.log else "")


def _write_algorithm_tables():
    """Per algorithm of the registry: its hyper-parameters and the record columns of its own,
    read off a three-iteration run on a small toy set at every build (so they cannot drift)."""
    from cbviz.algorithms import ALGORITHMS
    from cbviz.data import make_toy, prepare
    from cbviz.voters import StumpPool

    out = DOCS / "algorithms" / "generated"
    out.mkdir(parents=True, exist_ok=True)
    split = prepare(make_toy("moons", 60, 0.2, 0), 0.7, 0)
    pool = StumpPool(n_thresholds=3).fit(split.X_train)
    H = pool.operator(split.X_train)
    for key, spec in ALGORITHMS.items():
        lines = [f"**Paper**: {spec.paper}.", "", f"**What a step does**: {spec.description}.", "",
                 f"**Objective recorded** (``objective`` column): {spec.objective}.", ""]
        if spec.params:
            lines += [".. list-table:: Hyper-parameters (besides ``max_iter`` and ``delta``)",
                      "   :header-rows: 1", "   :widths: 14 12 22 52", "",
                      "   * - name", "     - default", "     - values", "     - meaning"]
            for prm in spec.params:
                meaning = prm.help + (f" (used when ``{prm.when[0]}`` is "
                                      + " or ".join(f"``{v}``" for v in prm.when[1]) + ")"
                                      if prm.when else "")
                lines += [f"   * - ``{prm.name}``", f"     - ``{prm.default!r}``",
                          f"     - {_range(prm)}", f"     - {meaning}"]
            lines.append("")
        else:
            lines += ["No hyper-parameter besides ``max_iter`` and ``delta``.", ""]
        run = spec.make(max_iter=3).start(H, split.y_train).run()
        extra = sorted(run.history[-1].extra)
        lines += ["**Record columns of its own** (besides the common ones): "
                  + (", ".join(f"``{c}``" for c in extra) if extra else "none") + ".", "",
                  f"**Estimator**: :class:`cbviz.estimators.{ESTIMATORS[key]}`; stepper: "
                  f":class:`cbviz.algorithms.{spec.factory.__name__}`.", ""]
        _write_if_changed(out / f"{key}.rst", "\n".join(lines) + "\n")


def _write_cli_help():
    """``cbviz --help`` as the command prints it, for the command-line page."""
    from cbviz.cli import _parser
    out = DOCS / "generated"
    out.mkdir(exist_ok=True)
    _write_if_changed(out / "cbviz_help.txt", _parser().format_help())


_write_algorithm_tables()
_write_cli_help()

# ---------------------------------------------------------------- gallery
from sphinx_gallery.sorting import FileNameSortKey  # noqa: E402

import gallery_plotly  # noqa: E402  (docs/gallery_plotly.py)

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": FileNameSortKey,
    "image_scrapers": (gallery_plotly.scraper,),
    "reset_modules": (gallery_plotly.reset,),
    "only_warn_on_example_error": False,
    "abort_on_example_error": False,
    "download_all_examples": True,
    "remove_config_comments": True,
    "show_memory": False,
    "matplotlib_animations": False,
}
os.environ.setdefault("CBVIZ_DOCS", "1")
sphinx_gallery_conf["capture_repr"] = ()


def _plotly_on_gallery_pages(app, pagename, templatename, context, doctree):
    """plotly.js (the local copy) on the pages that embed figures: the gallery's."""
    if pagename.startswith("auto_examples/") and not pagename.endswith("index"):
        app.add_js_file("plotly.min.js", priority=400)


def _copy_plotly_js(app, exception):
    gallery_plotly.copy_plotly_js(Path(app.outdir) / "_static")


_RAW_HTML_BLOCK = re.compile(r"^( *)\.\. raw:: html\n(?:[ \t]*\n|\1[ \t]+.*\n)*", re.M)


def _no_cdn_tables(app, docname, source):
    """sphinx-gallery's computation-time pages load jQuery and DataTables from CDNs (a raw
    HTML block that makes the table sortable): the block is dropped, the table stays."""
    if docname.split("/")[-1] == "sg_execution_times":
        source[0] = _RAW_HTML_BLOCK.sub("", source[0])


def _offline_check(app, exception):
    """docs/offline_check.py on the built site: each literal double backquote in a page's text
    (or tooltip), each load from the network and each script or stylesheet of the site's own
    that is not there is a warning (an error under ``-W``)."""
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util import logging as sphinx_logging
    import offline_check  # docs/offline_check.py
    log = sphinx_logging.getLogger("cbviz.offline_check")
    for path, line, message in offline_check.check(app.outdir):
        log.warning(message, location=f"{path}:{line}", type="cbviz", subtype="offline")


_SKLEARN_REQUESTS = re.compile(r"^set_\w+_request$")


def _skip_member(app, what, name, obj, skip, options):
    """scikit-learn's generated ``set_*_request`` methods: documented by scikit-learn."""
    if _SKLEARN_REQUESTS.match(name):
        return True
    return None


def _public_target(app, env, node, contnode):
    """A reference to an object under another of its names (``cbviz.algorithms.base.Run``,
    ``bounds.c_bound``, ``Run.to_frame``): resolved to where the reference documents it,
    when exactly one documented object ends with the same dotted name."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    parts = target.split(".")
    domain = env.get_domain("py")
    objects = dict(domain.objects)
    if node.get("reftype") == "mod":
        objects = dict(domain.modules)
    for start in range(len(parts)):
        suffix = ".".join(parts[start:])
        found = [name for name in objects
                 if name == suffix or name.endswith("." + suffix)]
        if len(found) == 1:
            name = found[0]
            entry = objects[name]
            from sphinx.util.nodes import make_refnode
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                contnode, name)
        if found or start == len(parts) - 1:
            return None
    return None


_TRAILING_UNDERSCORE = re.compile(r"(?<![`\w*])([A-Za-z]\w*_)(?![\w`*])")


def _literal_fitted_names(app, what, name, obj, options, lines):
    """Bare scikit-learn style names such as ``n_voters_`` in running text: reST reads a word
    ending in ``_`` as a link to a target of that name.  They are set in code font instead
    (text already between backquotes is left as it is, and so is a name in bold, such as
    numpydoc's ``**classes_**`` of an Attributes entry: reST markup does not nest, and the
    backquotes would show)."""
    for i, line in enumerate(lines):
        if "_" not in line or line.lstrip().startswith((">>>", "...")):
            continue
        parts = line.split("``")
        for j in range(0, len(parts), 2):       # outside inline literals
            parts[j] = _TRAILING_UNDERSCORE.sub(r"``\1``", parts[j])
        lines[i] = "``".join(parts)


def _existing_object(target, module):
    """Whether ``target`` names a real object: absolute, or relative to ``module`` or one of its
    parent packages (``fused`` in ``cbviz.algorithms.cbboost``, ``.runner``)."""
    target = target.lstrip(".~")
    bases = [""]
    if module:
        parts = module.split(".")
        bases = [".".join(parts[:k]) + "." for k in range(len(parts), 0, -1)] + [""]
    for base in bases:
        name = base + target
        if not name.startswith("cbviz"):
            continue
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                break
            return True
    return False


def _internal_target(app, env, node, contnode):
    """A reference to one of cbviz's internal modules, functions or constants, which have no
    page: kept as code text, without a link, once the name is checked to exist in the code
    (a misspelt or removed name still fails the build)."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if _existing_object(target, node.get("py:module")):
        return contnode
    # a docstring re-exported by a package is read in the package's context: try the module
    # that defines it (autodoc names it in the node's source, "docstring of a.b.c.Name")
    source = next((n.source for n in node.traverse(include_self=True, descend=False,
                                                   ascend=True) if n.source), "") or ""
    found = re.search(r"docstring of ([\w.]+)", source)
    if found and _existing_object(target, found.group(1)):
        return contnode
    return None


def setup(app):
    app.connect("autodoc-process-docstring", _literal_fitted_names)
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("missing-reference", _public_target)
    app.connect("missing-reference", _internal_target)
    app.connect("source-read", _no_cdn_tables)
    app.connect("build-finished", _copy_plotly_js)
    # after every other build-finished handler (the copies into _static)
    app.connect("build-finished", _offline_check, priority=900)
    app.connect("html-page-context", _plotly_on_gallery_pages)
