#include <cstdio>
#include <memory>

#include "commands.h"
#include <filesystem>

#include "report/html_report.h"
#include "scale/scaling_page.h"

namespace pacer::cli {
namespace {

struct ReportArgs {
  std::string dir, out;
};

}  // namespace

Action add_report_command(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  app.add_option("dir", a->dir, "A folder written by `pacer score --out` or `pacer scale --out`")->required();
  app.add_option("-o,--out", a->out, "HTML file to write (default: DIR/report.html)");
  return [a]() -> int {
    const std::string out = a->out.empty() ? a->dir + "/report.html" : a->out;
    // A scaling study's folder has scaling.json; a scoring folder has scores.json.
    if (std::filesystem::exists(a->dir + "/scaling.json")) {
      write_scaling_report(a->dir, out);
    } else {
      write_report(a->dir, out);
    }
    std::printf("wrote %s\n", out.c_str());
    return 0;
  };
}

}  // namespace pacer::cli
