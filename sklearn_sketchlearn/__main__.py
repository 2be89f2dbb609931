"""``python -m sklearn_sketchlearn`` runs the demo on embedded data;
``python -m sklearn_sketchlearn --compile`` compiles the kernels into numba's
cache instead (for container images and clusters)."""

import argparse

from ._compile import compile_kernels
from ._demo import main

if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m sklearn_sketchlearn",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--compile", action="store_true",
                        help="compile every kernel into numba's cache, then exit")
    parser.add_argument("--n-jobs", type=int, default=-1, metavar="N",
                        help="with --compile: pairings compiled at once, each in a process "
                             "of its own of about 0.7 GB (default: -1, every core)")
    arguments = parser.parse_args()
    if arguments.compile:
        compile_kernels(n_jobs=arguments.n_jobs)
    else:
        main()
