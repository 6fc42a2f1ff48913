#pragma once
// Atomic file writes: the content goes to a temporary file in the same folder, which is then
// renamed over the target, so a killed process never leaves a half-written file.
//
//   pacer::write_file_atomic("runs/demo/trial.json", json_text);
#include <string>

namespace pacer {

void write_file_atomic(const std::string& path, const std::string& content);
std::string read_text_file(const std::string& path);  // throws InputError naming the file
void create_directories(const std::string& path);     // throws Error naming the folder

}  // namespace pacer
