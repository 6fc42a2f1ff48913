#pragma once
// Error types of the library. `main` maps InputError to exit code 2 (usage or bad input) and any
// other Error to exit code 1.
//
//   throw pacer::InputError("hparams.json: key 'learning_rate' must be > 0");
#include <stdexcept>
#include <string>

namespace pacer {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The user's input is wrong: unknown name, malformed file, out-of-range value, corrupt data.
class InputError : public Error {
 public:
  using Error::Error;
};

}  // namespace pacer
