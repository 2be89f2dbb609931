"""The README's example runs as written."""

import re
from pathlib import Path


def test_readme_example_runs():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = re.search(r"## A short example\n\n```python\n(.*?)```", readme, re.S).group(1)
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert 0 <= namespace["clf"].progressive_error_ < 0.5
    assert set(namespace["search"].best_params_) == {
        "sketchedonlineclassifier__sketch__sketch_size",
        "sketchedonlineclassifier__update_rule__alpha",
    }
    assert namespace["step"].shape == (100,)
