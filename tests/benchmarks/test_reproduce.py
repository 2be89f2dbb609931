"""The reproduction command runs end to end in its quick configuration, and its
shared-eigendecomposition ADA-FULL agrees with the package's ADA-FULL."""

import numpy as np
import pytest

from sklearn_sketchlearn import SketchedOnlineRegressor
from sklearn_sketchlearn.datasets import make_decaying_spectrum_regression
from sklearn_sketchlearn.sketches import ExactSketch
from sklearn_sketchlearn.update_rules import AdaFD

from . import load_script


@pytest.fixture(scope="module")
def reproduce():
    return load_script("reproduce_tables")


def test_quick_reproduction_runs_every_section(reproduce, tmp_path):
    sections = reproduce.main(["--quick", "--output", str(tmp_path / "tables.rst")])
    assert "Reproduction results" in (tmp_path / "tables.rst").read_text()
    assert set(sections) == {"rfd", "sdrogd", "online", "adafd"}
    if reproduce.load_a9a() is None:
        assert sections["rfd"][0].startswith("skipped")
    else:
        assert any(line.startswith("RFD-SON, m=5") for line in sections["rfd"])
    assert any(line.startswith("ADA-FULL (mirror)") for line in sections["adafd"])


@pytest.mark.parametrize("form, delta", [("mirror", 1.0), ("dual", 10.0)])
def test_shared_ada_full_matches_the_package(reproduce, form, delta):
    X, y = make_decaying_spectrum_regression(150, 12, random_state=1)
    shared = reproduce.ada_full_regrets(X, y, [0.05, 0.3], {form: [delta, 2 * delta]})
    for eta in (0.05, 0.3):
        for value in (delta, 2 * delta):
            paper = AdaFD(eta0=eta, delta=value, form=form, ridge="fixed", limit_steps=False,
                          feature_scaling=None)
            model = SketchedOnlineRegressor(paper,
                                            sketch=ExactSketch(), loss="absolute_error",
                                            fit_intercept=False).partial_fit(X, y)
            np.testing.assert_allclose(shared[eta, form, value],
                                       model.progressive_loss_ * len(y), rtol=1e-9)
