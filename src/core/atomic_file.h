#pragma once
// File writes that never leave a half-written file and never replace what the path is: the
// content goes to a temporary file in the same folder, renamed over the target, so a killed
// process leaves the old file or the new one. What is at the path is respected: a symbolic link
// is followed (its target is written, the link stays), a character device or a pipe
// (`/dev/stdout`, a FIFO) is written through in place, and a folder, block device or socket is
// refused (InputError naming it) instead of being replaced by a regular file.
//
//   pacer::write_file_atomic("runs/demo/trial.json", json_text);
//   pacer::remove_stale_temporary_files("runs/demo");  // left by a killed writer
#include <string>

namespace pacer {

void write_file_atomic(const std::string& path, const std::string& content);
std::string read_text_file(const std::string& path);  // throws InputError naming the file
void create_directories(const std::string& path);     // throws Error naming the folder

// The temporary files write_file_atomic names `<file>.tmp<pid>` in `dir` whose process is gone
// (a kill during a write). Returns how many were removed.
int remove_stale_temporary_files(const std::string& dir);

}  // namespace pacer
