#pragma once
// Error types of the library. `main` maps InputError to exit code 2 (usage or bad input) and any
// other Error to exit code 1.
//
//   throw pacer::InputError("hparams.json: key 'learning_rate' must be > 0");
#include <stdexcept>
#include <string>

#include "core/export.h"

namespace pacer {

class PACER_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The training algorithm's own code failed (a Python submission raised, or returned the wrong
// thing): inside a study the trial is recorded as failed and the study goes on; `pacer run`
// exits with 2, as for bad input.
class PACER_API SubmissionError : public Error {
 public:
  using Error::Error;
};

// The user's input is wrong: unknown name, malformed file, out-of-range value, corrupt data.
class PACER_API InputError : public Error {
 public:
  using Error::Error;
};

}  // namespace pacer
