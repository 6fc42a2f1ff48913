#pragma once
// AlgoPerf submissions written in Python (`-a path/to/submission.py`, or a folder holding
// submission.py and tuning_search_space.json) run through the Python bridge, a library loaded
// only when one is named (libpacer_python.so: embedded Python and torch's Python bindings over
// the same LibTorch). Loading one registers it as an algorithm named "<name>.py". Torch-free header.
//
//   if (pacer::algorithm_reference(value).kind == pacer::AlgorithmReference::Kind::python)
//     name = pacer::load_python_submission(value);  // "nadamw.py"
#include <string>

#include "catalog/algorithm_reference.h"

namespace pacer {

// Loads (once per file) and registers the submission; returns its algorithm name. InputError
// naming the file when the bridge is missing, Python cannot import torch, the file does not load
// (syntax error, a missing package: file, line and the traceback's last lines), or it lacks one
// of AlgoPerf's submission functions.
std::string load_python_submission(const std::string& value);

// The name a submission file is registered under: the file's stem, or its folder's name for the
// AlgoPerf layout's submission.py, with ".py" (it keeps them apart from the built-ins).
std::string python_submission_name(const std::string& file);

// Where the bridge is looked for: $PACER_PYTHON_BRIDGE, else beside the executable, else
// ../lib/pacer/ from it (an installed pacer).
std::string python_bridge_path();

}  // namespace pacer
