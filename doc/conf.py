"""Sphinx configuration for sklearn-sketchlearn."""

import os
from pathlib import Path

import sklearn_sketchlearn

# Examples that can use the LIBSVM benchmark files find them here when the
# repository sits beside the project's shared/ folder (a fresh clone has none).
os.environ.setdefault("SKETCHLEARN_DATASETS",
                      str(Path(__file__).resolve().parents[2] / "shared" / "datasets"))

project = "sklearn-sketchlearn"
author = "The sklearn-sketchlearn developers"
copyright = "2026, the sklearn-sketchlearn developers"
release = version = sklearn_sketchlearn.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
autosummary_generate = True
numpydoc_show_class_members = False
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
templates_path = ["_templates"]
html_theme = "pydata_sphinx_theme"

# The examples read SKLEARN_SKETCHLEARN_QUICK_EXAMPLES=1 to run at a reduced
# size; the documentation test (tests/test_docs.py) builds them that way.
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": "/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    "reference_url": {"sklearn_sketchlearn": None},
    "doc_module": ("sklearn_sketchlearn",),
    "backreferences_dir": "generated/backreferences",
}
