#pragma once
// Test support: renders a self-contained HTML page in headless Chromium (the Debian package
// chromium, installed by scripts/setup.sh) and returns the DOM Chromium parsed, or a screenshot.
// Tests skip where Chromium is missing.
//
//   std::string chromium = pacer::testing::find_chromium();
//   if (chromium.empty()) GTEST_SKIP() << "Chromium not installed";
//   std::string dom;
//   ASSERT_EQ(pacer::testing::chromium_dump_dom(chromium, dir + "/page.html", dir, dom), 0);
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace pacer::testing {

inline int run_shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
}

// How many times `needle` occurs in `haystack` (overlaps counted): rows, markers, list items.
inline size_t count_occurrences(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

inline std::string find_chromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

// Flags for a sandbox-less, network-less run with its own profile in `work_dir`.
inline std::string chromium_flags(const std::string& work_dir) {
  return " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
         " --disable-component-update --disable-sync --disable-dev-shm-usage --user-data-dir='" +
         work_dir + "/profile'";
}

inline std::string file_url(const std::string& path) {
  return "file://" + std::filesystem::absolute(path).string();
}

// The exit status of Chromium; `dom` gets the parsed DOM, work_dir/chromium.log its messages.
inline int chromium_dump_dom(const std::string& chromium, const std::string& html_file, const std::string& work_dir,
                             std::string& dom) {
  const int code = run_shell("timeout 120 " + chromium + chromium_flags(work_dir) + " --dump-dom '" +
                             file_url(html_file) + "' >'" + work_dir + "/dom.html' 2>'" + work_dir + "/chromium.log'");
  std::ifstream in(work_dir + "/dom.html", std::ios::binary);
  dom.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return code;
}

// A PNG of the page at `png_file`; the exit status of Chromium.
inline int chromium_screenshot(const std::string& chromium, const std::string& html_file, const std::string& work_dir,
                               const std::string& png_file, const std::string& window_size = "1200,1600") {
  return run_shell("cd '" + work_dir + "' && timeout 120 " + chromium + chromium_flags(work_dir) + " --screenshot='" +
                   png_file + "' --window-size=" + window_size + " '" + file_url(html_file) + "' >/dev/null 2>&1");
}

}  // namespace pacer::testing
