"""The documentation, gallery included, builds without a warning.

The examples run at the reduced size they choose when
``SKLEARN_SKETCHLEARN_QUICK_EXAMPLES=1``; the build works on a copy, so the
source tree is left as it is.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_documentation_builds_without_warnings(tmp_path):
    shutil.copytree(ROOT / "doc", tmp_path / "doc",
                    ignore=shutil.ignore_patterns("_build", "auto_examples", "generated"))
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    environment = {**os.environ, "SKLEARN_SKETCHLEARN_QUICK_EXAMPLES": "1", "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(tmp_path / "doc"), str(tmp_path / "html")],
        env=environment, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr[-5000:]
    html = tmp_path / "html"
    for example in sorted((ROOT / "examples").glob("plot_*.py")):
        page = html / "auto_examples" / f"{example.stem}.html"
        assert page.exists(), page
        assert "sphx_glr_" + example.stem in page.read_text(), f"{example.stem} drew no figure"
    assert (html / "api.html").exists()
