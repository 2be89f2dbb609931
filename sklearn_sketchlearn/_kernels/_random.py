"""A counter-based Gaussian stream for random-projection sketches.

The projection vector of the ``t``-th row is a pure function of ``(seed, t)``.
Kernels therefore need no generator state: any chunking of a stream, a pickled
and resumed model, and each thread of a one-vs-rest fit draw exactly the same
numbers, and no (n_samples, sketch_size) matrix is ever pre-drawn.

Uniforms come from SplitMix64 (Steele, Lea & Flood, OOPSLA 2014) applied to a
hashed counter; normals from the Box-Muller transform.
"""

import numpy as np

from ._jit import jit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO = np.uint64(2)
_ONE = np.uint64(1)
_TWO_POW_M53 = 1.0 / 9007199254740992.0


@jit
def splitmix64(z):
    """Finalise a 64-bit integer into a well-mixed one (uint64 in, uint64 out)."""
    z = z + _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@jit
def _uniform(key):
    """A double in (0, 1] from a 64-bit key (53 random bits)."""
    return ((splitmix64(key) >> _S11) + _ONE) * _TWO_POW_M53


@jit
def gaussian_vector(seed, counter, out):
    """Fill ``out`` with independent N(0, 1) draws determined by (seed, counter).

    Parameters
    ----------
    seed, counter : uint64
        The stream's seed and the index of the vector within the stream.
    out : ndarray of shape (n,)
        Filled in place.
    """
    base = splitmix64(seed ^ splitmix64(counter))
    n = out.shape[0]
    for q in range((n + 1) // 2):
        key = base + _TWO * np.uint64(q)
        radius = np.sqrt(-2.0 * np.log(_uniform(key)))
        angle = 2.0 * np.pi * _uniform(key + _ONE)
        out[2 * q] = radius * np.cos(angle)
        if 2 * q + 1 < n:
            out[2 * q + 1] = radius * np.sin(angle)
