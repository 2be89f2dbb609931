"""Root pytest configuration.

SciPy reads ``SCIPY_ARRAY_API`` once, at import; scikit-learn's common check
``check_array_api_input`` runs only when it is set (and skips otherwise).
"""

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")
