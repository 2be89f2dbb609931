"""The documentation, gallery included, builds without a warning, and the user
guide's code prints the outputs it shows.

The examples run at the reduced size they choose when
``SKLEARN_SKETCHLEARN_QUICK_EXAMPLES=1``; the build works on a copy, so the
source tree is left as it is.
"""

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

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


def literal_blocks(text):
    """``(line, code, printed)`` of each literal block of a page (the indented
    block after a paragraph that ends in ``::``), ``printed`` the text of the
    ``.. code-block:: text`` right after it (or after a word or two: "prints"),
    or None."""
    lines, blocks, i = text.splitlines(), [], 0

    def indented(start, base):
        """The lines from ``start`` indented deeper than ``base`` (blank ones kept)."""
        stop = start
        while stop < len(lines) and (not lines[stop].strip()
                                     or len(lines[stop]) - len(lines[stop].lstrip()) > base):
            stop += 1
        return textwrap.dedent("\n".join(lines[start:stop])).strip(), stop

    while i < len(lines):
        line = lines[i]
        if not line.rstrip().endswith("::") or line.lstrip().startswith(".."):
            i += 1
            continue
        code, i = indented(i + 1, len(line) - len(line.lstrip()))
        after = i
        while after < len(lines) and (not lines[after].strip()
                                      or (len(lines[after].split()) <= 2
                                          and not lines[after].startswith(".."))):
            after += 1
        printed = None
        if after < len(lines) and lines[after].strip() == ".. code-block:: text":
            printed, i = indented(after + 1, len(lines[after]) - len(lines[after].lstrip()))
        blocks.append((i + 1, code, printed))
    return blocks


# (scaling_out.rst's printed outputs need a dask cluster: tests/test_dask.py runs them)
PRINTING_PAGES = sorted(
    page.name for page in (ROOT / "doc" / "user_guide").glob("*.rst")
    if page.name != "scaling_out.rst" and ".. code-block:: text" in page.read_text())


@pytest.mark.parametrize("page", PRINTING_PAGES)
def test_the_user_guide_prints_what_it_shows(page):
    # a page's code blocks run in order in one namespace, as a reader pastes them;
    # every block followed by a printed output must print exactly that
    namespace = {"__name__": "__user_guide__"}
    for line, code, printed in literal_blocks((ROOT / "doc" / "user_guide" / page).read_text()):
        if not re.search(r"^(import|from) |print\(", code, re.MULTILINE):
            continue  # a block of shell commands, output or prose
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            exec(compile(code, f"{page}:{line}", "exec"), namespace)
        if printed is not None:
            shown = "\n".join(row.rstrip() for row in printed.splitlines())
            measured = "\n".join(row.rstrip() for row in output.getvalue().strip().splitlines())
            assert measured == shown, f"{page}, the block before line {line}"
