#pragma once
// A child process could not be started (posix_spawn failed): the program and the errno value are
// kept so that a command can word the message its own way (and decide whether a missing program
// is the user's input error) instead of parsing what().
//
//   try { supervisor.spawn(child); }
//   catch (const pacer::SpawnError& e) { throw pacer::InputError(std::string("pacer launch: ") + e.what()); }
#include <cstring>
#include <string>
#include <utility>

#include "core/error.h"

namespace pacer {

class SpawnError : public Error {
 public:
  SpawnError(std::string program, int error_number)
      : Error("cannot start '" + program + "': " + std::strerror(error_number)),
        program_(std::move(program)),
        error_number_(error_number) {}

  const std::string& program() const { return program_; }
  int error_number() const { return error_number_; }  // an errno value, e.g. ENOENT

 private:
  std::string program_;
  int error_number_;
};

}  // namespace pacer
