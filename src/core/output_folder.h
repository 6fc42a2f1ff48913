#pragma once
// Output paths checked before any work, so that a long run never ends in "cannot write": the
// folder is created and written to (a test file), a file's folder likewise. A folder that already
// holds the result files a command writes is refused unless `overwrite`, as `pacer run` refuses a
// folder with an earlier result (default folders such as runs/probe used to be replaced silently).
//
//   pacer::prepare_output_folder(out, "--out", {"probe.json", "probe.html"}, overwrite);
//   pacer::check_output_file(out_file, "--out");
#include <string>
#include <vector>

namespace pacer {

void prepare_output_folder(const std::string& dir, const std::string& option,
                           const std::vector<std::string>& result_files = {}, bool overwrite = true);

// A file to be written: not a folder, and its folder can be written (created if missing).
void check_output_file(const std::string& path, const std::string& option);

}  // namespace pacer
