#pragma once
// Limits on JSON read from outside the process (hyperparameter files, search spaces, target
// files, log metadata, the study store's stored JSON): a document nested deeper than the
// limit, or larger than the size limit, is refused before it is parsed, because nlohmann/json
// recurses over nesting when it destroys or walks a value (a few hundred thousand levels
// overflow the stack). Errors name the origin and never echo the document.
//
//   pacer::check_json_input(text, "spaces/nadamw.json");  // InputError when over a limit
//   auto doc = nlohmann::ordered_json::parse(text);
#include <cstddef>
#include <string>

namespace pacer {

struct JsonLimits {
  int max_depth = 64;                         // nested arrays/objects
  std::size_t max_bytes = 64u * 1024u * 1024u;
};

// InputError "<origin>: ..." when `text` breaks a limit. Brackets inside strings do not count.
void check_json_input(const std::string& text, const std::string& origin, const JsonLimits& limits = {});

}  // namespace pacer
