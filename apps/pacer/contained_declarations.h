#pragma once
// The commands that run untrusted algorithms only in contained trials (tune, board, scale) learn
// what a Python submission or a plugin declares from a contained process (algorithms/
// algorithm_declarations.h): `pacer-train describe-algorithms` loads the files under a trial's
// restrictions (no tracing, no child processes on the cpu clock, Landlock: core/file_restrictions.h)
// and writes their declarations to a file the waiting process handed it as descriptor 3. A file
// that fails to load there is bad input here, with the contained process's message above.
//
//   pacer::declare_algorithm_files({a->request.algorithm}, pacer::cli::contained_describer(ClockKind::cpu));
#include <CLI/CLI.hpp>

#include "algorithms/algorithm_declarations.h"
#include "commands.h"
#include "core/clock.h"

namespace pacer::cli {

// Loads the files in `pacer-train describe-algorithms`, restricted as a trial on `clock` is.
DescribeInContainedProcess contained_describer(ClockKind clock);

// Hidden: that process is add_describe_algorithms_command (commands.h).

}  // namespace pacer::cli
