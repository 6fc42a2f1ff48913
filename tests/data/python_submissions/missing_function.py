"""sgd.py without data_selection (the tests expect a clear error)."""
from sgd import get_batch_size, init_optimizer_state, prepare_for_eval, update_params  # noqa: F401
