"""Where SON's ``sketch='auto'`` switches from the exact sketch to fast FD.

    python benchmarks/auto_sketch.py

Per-example cost of one ``partial_fit`` pass of SON over the exact sketch, over
fast Frequent Directions of the default size (10) and over no sketch, on dense
Gaussian rows, as d grows. Each figure is a median over repeats in this process;
the ratio exact / fast FD is the result: ``sketch='auto'`` takes the exact
sketch while it is at most about 1.25 (up to 112 weights), where the exact
sketch's missing no curvature is worth its cost.
"""

import argparse
import statistics
import time

import numpy as np

from sklearn_sketchlearn import SketchedOnlineClassifier


def cost_per_example(sketch, X, y, repeats):
    """Median seconds per example of a ``partial_fit`` pass (compiled beforehand)."""
    times = []
    for _ in range(repeats):
        model = SketchedOnlineClassifier(sketch=sketch).partial_fit(X[:100], y[:100],
                                                                    classes=[0, 1])
        start = time.perf_counter()
        model.partial_fit(X, y)
        times.append(time.perf_counter() - start)
    return statistics.median(times) / X.shape[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--examples", type=int, default=8000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'d':>5} {'exact us':>9} {'fast_fd us':>11} {'none us':>8} {'exact/fast_fd':>14}")
    for d in (8, 16, 32, 48, 64, 80, 96, 112, 128, 256):
        X = rng.standard_normal((args.examples, d))
        y = (X[:, 0] + 0.5 * rng.standard_normal(args.examples) > 0).astype(int)
        costs = [cost_per_example(sketch, X, y, args.repeats) * 1e6
                 for sketch in ("exact", "fast_fd", None)]
        print(f"{d:5d} {costs[0]:9.2f} {costs[1]:11.2f} {costs[2]:8.2f} "
              f"{costs[0] / costs[1]:14.2f}", flush=True)


if __name__ == "__main__":
    main()
