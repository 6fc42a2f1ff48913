// Progress output: a redrawn status line on terminals, plain lines otherwise, nothing when quiet.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/progress.h"

namespace pacer {
namespace {

std::string output_of(Progress::Mode mode) {
  std::FILE* file = std::tmpfile();
  {
    Progress progress(mode, file);
    progress.update("status one");
    progress.log("eval line");
    progress.update("status two");
  }
  std::rewind(file);
  std::string text;
  char buffer[256];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) text.append(buffer, n);
  std::fclose(file);
  return text;
}

TEST(Progress, LineModePrintsOnlyLogLines) { EXPECT_EQ(output_of(Progress::Mode::lines), "eval line\n"); }

TEST(Progress, QuietModePrintsNothing) { EXPECT_EQ(output_of(Progress::Mode::quiet), ""); }

TEST(Progress, TerminalModeRedrawsTheStatusLineAndKeepsLogLines) {
  const std::string text = output_of(Progress::Mode::terminal);
  EXPECT_NE(text.find("\r\033[2Kstatus one"), std::string::npos);
  EXPECT_NE(text.find("eval line\n"), std::string::npos);
  EXPECT_NE(text.find("status two"), std::string::npos);  // a log line resets the redraw throttle
  EXPECT_EQ(text.back(), '\n');                           // finish() ends the status line
}

}  // namespace
}  // namespace pacer
