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
    if parser.parse_args().compile:
        compile_kernels()
    else:
        main()
