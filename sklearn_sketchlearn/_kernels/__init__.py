"""Compiled kernels (numba only): functions of arrays and scalars.

Nothing here imports scikit-learn or touches a Python object; the public
layers validate, allocate state and call one kernel per chunk.

* ``_jit``: the project's numba settings, the only place ``numba.njit`` is called,
  and the rules that keep compiling short.
* ``_pairings``: the learners' kernels, compiled per pairing of rule and sketch.
* ``_rows``: dense/CSR row access shared by the drivers.
* ``_random``: the counter-based Gaussian stream of random projections.
* ``_sketch_updates``: Frequent Directions, Oja and random-projection updates.
* ``_units``: SON's running units, shared by its dense and sparse forms.
* ``_chunk_units``: the estimator's running units' passes over a dense chunk.
* ``_lowrank``: the shared preconditioner shape ``v -> v / c + F^T W F v``.
"""
