#pragma once
// Test support: a fixture with a fresh temporary folder that runs the built `pacer` executable
// (PACER_BINARY) with stdout and stderr captured separately.
//
//   class MyCliTest : public pacer::testing::CliFixture {};
//   TEST_F(MyCliTest, Lists) { auto r = pacer("list"); EXPECT_EQ(r.code, 0); }
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace pacer::testing {

struct CliResult {
  int code = -1;
  std::string out, err;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::path(::testing::TempDir()) / "pacer_cli_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ASSERT_TRUE(std::filesystem::exists(PACER_BINARY)) << "the pacer executable was not built: " << PACER_BINARY;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Runs `pacer <args>` (args are passed through the shell as written).
  CliResult pacer(const std::string& args) const {
    const std::string out = dir_ + "/stdout.txt", err = dir_ + "/stderr.txt";
    const std::string command = "'" + std::string(PACER_BINARY) + "' " + args + " >'" + out + "' 2>'" + err + "'";
    const int status = std::system(command.c_str());
    CliResult r;
    r.code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  std::string dir_;
};

}  // namespace pacer::testing
