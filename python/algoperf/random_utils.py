"""`algoperf.random_utils` as a PyTorch submission uses it: seeds are pairs of unsigned 32-bit
integers, split and folded deterministically (not JAX's bit-exact streams, which a PyTorch
submission does not depend on)."""

import hashlib

import numpy as np

MAX_INT32 = 2**31 - 1


def _derive(rng, salt):
    data = np.asarray(rng, dtype=np.uint64).tobytes() + str(salt).encode()
    words = np.frombuffer(hashlib.sha256(data).digest()[:8], dtype=np.uint32)
    return words.copy()


def PRNGKey(seed):
    return np.array([0, int(seed) % 2**32], dtype=np.uint32)


def split(rng, num=2):
    return [_derive(rng, ("split", i)) for i in range(num)]


def fold_in(rng, data):
    return _derive(rng, ("fold", int(data)))
