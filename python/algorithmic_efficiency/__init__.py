"""AlgoPerf's package under its name before v0.6: `algorithmic_efficiency`.

The v0.5 submissions (AlgoPerf's first leaderboard) import `from algorithmic_efficiency import spec`
and `from algorithmic_efficiency.pytorch_utils import pytorch_setup`; v0.6 renamed the package
`algoperf`. Both names are one package here: `algorithmic_efficiency.spec` is the module
`algoperf.spec` itself, so its enums and TrainingCompleteError are the same objects whichever name
a submission imported them by (an `is` or `isinstance` test holds across the two names).

    from algorithmic_efficiency import spec          # == algoperf.spec
    import algorithmic_efficiency.random_utils as prng
"""
import importlib
import sys

import algoperf

__version__ = algoperf.__version__

# Registered before any `import algorithmic_efficiency.X` looks for a file: Python finds the parent
# package first (this file), then sys.modules' entry for the submodule.
for _name in ("spec", "pytorch_utils", "random_utils"):
    _module = importlib.import_module("algoperf." + _name)
    sys.modules[__name__ + "." + _name] = _module
    globals()[_name] = _module
del _name, _module
