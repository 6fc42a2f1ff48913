#include "core/json_input.h"

#include "core/error.h"

namespace pacer {

void check_json_input(const std::string& text, const std::string& origin, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    throw InputError(origin + ": the JSON document is " + std::to_string(text.size()) + " bytes, more than the " +
                     std::to_string(limits.max_bytes) + " accepted");
  }
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits.max_depth) {
        throw InputError(origin + ": the JSON document is nested deeper than " + std::to_string(limits.max_depth) +
                         " levels");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

}  // namespace pacer
