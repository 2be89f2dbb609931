"""LAPACK on the calling thread while a rule that calls it learns.

numba sends ``np.linalg.eigh`` and ``eigvalsh`` in compiled code to the LAPACK
of the OpenBLAS that scipy ships, whose blocked routines run their products on
every core once the matrix is large enough (ADA-FULL's ``d x d`` spectrum at
``d = 100``, SDROGD's regularizer over the exact sketch). An online learner
calls them once an example on small matrices, where threads gain little and,
when another process or the learners' own one-vs-rest threads hold a core,
each call waits for a thread that is not running: on the 2-core machine, one
core busy, SDROGD over the exact sketch learned 300 rows of SON's problem (d
= 100) in 1.65 s against 0.08 s on one thread, and ADA-FULL on digits (d =
64, 10 classes) projected a pass of 303 s. Matrix products already stay on
the calling thread (:mod:`sklearn_sketchlearn._kernels._blas`); LAPACK's
inner ones cannot be cut into blocks from outside, so its threads are limited
for the call through ``threadpoolctl`` (scikit-learn's dependency), as
joblib's workers limit them. The controller, which lists the loaded
libraries (about 5 ms), is made once; a limit costs about 20 us a call.
"""

import functools

from threadpoolctl import ThreadpoolController


@functools.cache
def _blas_libraries():
    # (made at the first call that learns; scipy's OpenBLAS, whose LAPACK the
    # kernels call, is loaded by then: scikit-learn imports scipy.linalg)
    return ThreadpoolController().select(user_api="blas")


def one_thread():
    """A context in which the loaded BLAS libraries (and their LAPACK) run on
    the calling thread; their settings are restored on leaving it."""
    return _blas_libraries().limit(limits=1)
