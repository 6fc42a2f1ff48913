"""Pacer's `algoperf` shim: the parts of AlgoPerf's Python API a PyTorch submission imports.

Pacer runs an AlgoPerf submission file unchanged (`pacer run -a path/to/submission.py`): this
package stands in for the `algoperf` package so that `from algoperf import spec` and
`from algoperf.pytorch_utils import pytorch_setup` resolve. It is written for Pacer, after
AlgoPerf's published API; docs/python_submissions.md lists what is supported. Importing a part of
AlgoPerf it does not provide fails with a message that says so.
"""

__version__ = "0.6-pacer"
