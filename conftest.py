"""Root pytest configuration.

SciPy reads ``SCIPY_ARRAY_API`` once, at import; scikit-learn's common check
``check_array_api_input`` runs only when it is set (and skips otherwise).

The docstring examples of the dask helpers need dask, an optional dependency:
without it they are not collected (their tests skip through importorskip).
"""

import importlib.util
import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")

if importlib.util.find_spec("dask") is None:
    collect_ignore = ["sklearn_sketchlearn/sketches/_distributed.py"]
