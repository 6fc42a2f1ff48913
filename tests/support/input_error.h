#pragma once
// The message of the InputError a call throws, or "(no InputError)": for tests that check what a
// refusal names.
//
//   EXPECT_NE(pacer::testing::input_error_of([] { parse_batch_sizes("64:16"); }).find("lower bound"),
//             std::string::npos);
#include <functional>
#include <string>

#include "core/error.h"

namespace pacer::testing {

inline std::string input_error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

}  // namespace pacer::testing
