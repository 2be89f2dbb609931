"""Sphinx configuration for sklearn-sketchlearn."""

import sklearn_sketchlearn

project = "sklearn-sketchlearn"
author = "The sklearn-sketchlearn developers"
copyright = "2026, the sklearn-sketchlearn developers"
release = version = sklearn_sketchlearn.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
]
autosummary_generate = True
numpydoc_show_class_members = False
exclude_patterns = ["_build"]
templates_path = ["_templates"]
html_theme = "pydata_sphinx_theme"
