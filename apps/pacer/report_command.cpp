#include <cstdio>
#include <memory>

#include "commands.h"
#include "core/error.h"
#include "core/output_folder.h"
#include <filesystem>

#include "report/html_report.h"
#include "scale/scaling_page.h"

namespace pacer::cli {
namespace {

struct ReportArgs {
  std::string dir, out;
};

}  // namespace

Action add_report_command(CLI::App& app, const CommandContext& /*context*/) {
  auto a = std::make_shared<ReportArgs>();
  app.add_option("dir", a->dir, "A folder written by `pacer score --out` or `pacer scale --out`")->required();
  app.add_option("-o,--out", a->out, "HTML file to write (default: DIR/report.html)");
  return [a]() -> int {
    std::error_code ec;
    if (!std::filesystem::is_directory(a->dir, ec)) {
      throw InputError(a->dir + (std::filesystem::exists(a->dir, ec) ? " is a file" : " does not exist") +
                       ": pacer report takes the folder that `pacer score ... --out DIR` or `pacer scale ... --out "
                       "DIR` wrote (for a study store: pacer score STORE --out DIR, then pacer report DIR)");
    }
    const std::string out = a->out.empty() ? a->dir + "/report.html" : a->out;
    check_output_file(out, "--out");
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
