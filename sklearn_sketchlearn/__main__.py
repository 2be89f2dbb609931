"""``python -m sklearn_sketchlearn`` runs the demo on embedded data;
``python -m sklearn_sketchlearn --compile`` compiles the kernels into numba's
cache instead (for container images and clusters)."""

import argparse

from ._compile import compile_kernels
from ._demo import main

if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_sketchlearn",
        description="Run the demo on embedded data, or with --compile compile the kernels "
                    "into numba's cache (for container images and clusters).")
    parser.add_argument("--compile", action="store_true",
                        help="compile every kernel into numba's cache, then exit")
    parser.add_argument("--n-jobs", type=int, metavar="N",
                        help="with --compile: pairings compiled at once, each in a process "
                             "of its own of about 0.7 GB (default: -1, every core)")
    arguments = parser.parse_args()
    if arguments.n_jobs is not None and not arguments.compile:
        parser.error("--n-jobs sets how many pairings --compile compiles at once")
    if arguments.n_jobs == 0:  # (joblib's count: -1 every core, -2 all but one)
        parser.error("--n-jobs 0 would compile nothing: give N >= 1, or -1 for every core")
    if arguments.compile:
        compile_kernels(n_jobs=-1 if arguments.n_jobs is None else arguments.n_jobs)
    else:
        main()
