"""Imports a part of AlgoPerf the shim does not provide (the tests expect a clear refusal)."""
from algoperf import spec
from algoperf.workloads import workloads  # not in Pacer's shim
