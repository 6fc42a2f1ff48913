#pragma once
// Inputs that can be read only once: `--hparams <(...)`, `--space /dev/stdin`, a FIFO. The light
// `pacer` reads such a file to check the command, then hands the command line on to
// `pacer-train`, which would find the pipe empty. What this process read from a file that is not
// a regular file is kept here (core/atomic_file.h's read_text_file records it), and the hand-on
// gives the training program a copy of the same bytes instead (apps/pacer/training_program.cpp).
//
//   std::string text = pacer::read_text_file("/dev/fd/63");        // a pipe: kept
//   for (const auto& [path, bytes] : pacer::read_once_inputs()) ...  // {"/dev/fd/63", text}
#include <map>
#include <string>

namespace pacer {

// Whether PATH is a pipe, FIFO, character device or socket (what a second read cannot repeat).
bool is_read_once(const std::string& path);
void keep_read_once_input(const std::string& path, const std::string& content);
// Every read-once input this process read, by the path it was read through.
std::map<std::string, std::string> read_once_inputs();

}  // namespace pacer
