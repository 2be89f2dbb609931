"""``python -m sklearn_sketchlearn`` runs the demo on embedded data."""

from ._demo import main

if __name__ == "__main__":
    main()
