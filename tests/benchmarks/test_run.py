"""The benchmark command runs end to end in its quick configuration, so it
cannot rot (its timings are reported, never asserted)."""

from . import load_script

DENSE = "Dense, one pass (us per example; ratios to peers run in the same process)"


def run_benchmark(argv):
    return load_script("run").main(argv)


def test_quick_benchmark_runs_every_section(tmp_path, capsys):
    sections = run_benchmark(["--quick", "--output", str(tmp_path / "report.rst")])
    assert {"Environment", "Memory", "Chunked partial_fit", "Sparse input",
            "Many classes of sparse input"} <= set(sections)
    assert any(line.startswith("SON fast_rfd") for line in sections[DENSE])
    assert "Benchmark results" in (tmp_path / "report.rst").read_text()


def test_dense_only_runs_the_chosen_learners_and_sizes(capsys):
    sections = run_benchmark(["--quick", "--dense-only", "--sizes", "3",
                              "--learners", "SON fast_fd", "OGD"])
    assert "Sparse input" not in sections and "Memory" not in sections
    rows = sections[DENSE][1 : sections[DENSE].index("")]
    assert {line[:16].strip() for line in rows} == {"SON fast_fd", "OGD"}
    assert {line[16:].split()[1] for line in rows} == {"3", "-"}  # m of SON, none of OGD


def test_classes_only_runs_that_section(capsys):
    sections = run_benchmark(["--quick", "--classes-only"])
    assert set(sections) == {"Environment", "Many classes of sparse input", "Run"}
    learners = [line.split()[1] for line in sections["Many classes of sparse input"][1:]]
    assert learners == ["default", "sketch='fast_rfd'", "sketch='oja'", "SGDClassifier"]
