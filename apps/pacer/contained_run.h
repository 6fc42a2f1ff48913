#pragma once
// `pacer run` of a Python submission or a plugin: the trial runs in a copy of this command (the
// same arguments, PACER_CONTAINED_RUN naming a file where the copy leaves its exit status; the
// light pacer starts the copy as pacer-train and only waits for it, without LibTorch), so that
// a segfault, an os._exit or a step that never returns ends with a message and, with --out, a
// failed trial.json, instead of a dead process and no result. Ctrl-C is forwarded to the copy (and
// SIGKILL follows 10 s later if it does not stop).
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "catalog/algorithm_reference.h"

namespace pacer::cli {

// In the parent: the copy's exit status once it ended (its own, or 1 with a failed trial.json in
// `out` when its process died or ran past `limit_sec` seconds of wall time and was killed); nullopt
// in the copy itself, which then runs the trial in process, and for an algorithm Pacer built. The
// copy is `executable` with `argv`. Untrusted: catalog/algorithm_reference.h.
std::optional<int> run_in_contained_copy(const std::vector<std::string>& argv, const AlgorithmReference& algorithm,
                                         const std::string& out, double limit_sec, const std::atomic<bool>& stop,
                                         const std::string& executable = "/proc/self/exe");

// Whether this process is such a copy (it runs nothing but that trial).
bool in_contained_copy();

// In the copy: leaves `code` where the parent reads it; returns it.
int contained_copy_finished(int code);

}  // namespace pacer::cli
