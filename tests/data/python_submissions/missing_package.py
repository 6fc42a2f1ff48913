"""sgd.py, after importing a package that is not installed (the tests expect a clear error)."""
import jax_is_not_installed_here  # noqa: F401

from sgd import *  # noqa: F401,F403  (a submission may import the modules beside it)
