// `pacer report`: the HTML is self-contained (no scripts, no external resources) and holds the
// leaderboard, the performance profiles and one curve chart per workload; headless Chromium
// renders it (skipped with a message where Chromium is not installed: scripts/setup.sh installs it).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "core/error.h"
#include "report/html_report.h"
#include "report/svg_chart.h"
#include "report/xml_escape.h"
#include "support/cli_runner.h"
#include "support/headless_chromium.h"

namespace {

namespace fs = std::filesystem;

using pacer::testing::read_file;
size_t count(const std::string& haystack, const std::string& needle) {
  return pacer::testing::count_occurrences(haystack, needle);
}
int run(const std::string& command) { return pacer::testing::run_shell(command); }


class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::path(::testing::TempDir()) / "report_test_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    // Two submissions on two reference workloads (wmt: bleu, criteo1tb: loss), two studies.
    for (const std::string sub : {"fast", "slow"}) {
      for (int k = 0; k < 2; ++k) {
        write_trial(sub, k, "wmt_jax", "bleu", {10, 25, 31}, sub == "fast" ? 100 : 160);
        write_trial(sub, k, "criteo1tb_pytorch", "loss", {0.2, 0.13, 0.12}, sub == "fast" ? 90 : 60);
      }
    }
    const std::string cmd = "'" + std::string(PACER_BINARY) + "' score '" + dir_ + "/fast' '" + dir_ +
                            "/slow' --out '" + dir_ + "/board' >/dev/null 2>&1";
    ASSERT_EQ(run(cmd), 0);
    ASSERT_EQ(run("'" + std::string(PACER_BINARY) + "' report '" + dir_ + "/board' >/dev/null"), 0);
    html_ = read_file(dir_ + "/board/report.html");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void write_trial(const std::string& sub, int study, const std::string& folder, const std::string& metric,
                   const std::vector<double>& values, double total) const {
    const fs::path path = fs::path(dir_) / sub / ("study_" + std::to_string(study)) / folder / "trial_0";
    fs::create_directories(path);
    std::ofstream csv(path / "eval_measurements.csv");
    csv << "global_step,score,validation/" << metric << "\n";
    for (size_t i = 0; i < values.size(); ++i) {
      csv << (i + 1) * 100 << "," << total * (i + 1) / values.size() << "," << values[i] << "\n";
    }
  }
  std::string dir_, html_;
};

TEST_F(ReportTest, HtmlIsSelfContainedWithTheExpectedElements) {
  EXPECT_NE(html_.find("<table id=\"leaderboard\">"), std::string::npos);
  EXPECT_NE(html_.find("id=\"performance-profiles\""), std::string::npos);
  EXPECT_NE(html_.find("<table id=\"time-to-target\">"), std::string::npos);
  EXPECT_EQ(count(html_, "class=\"curve\""), 2u);
  EXPECT_NE(html_.find("id=\"curve-wmt\""), std::string::npos);
  EXPECT_NE(html_.find("id=\"curve-criteo1tb\""), std::string::npos);
  // Two leaderboard rows, fast ranked first on wmt... both reach both workloads.
  EXPECT_EQ(count(html_, "<span class=\"swatch\""), 2u);
  // Nothing fetched: no scripts, no src/href, no URL other than the SVG namespace.
  EXPECT_EQ(html_.find("<script"), std::string::npos);
  EXPECT_EQ(html_.find(" src="), std::string::npos);
  EXPECT_EQ(html_.find("href="), std::string::npos);
  EXPECT_EQ(count(html_, "http"), count(html_, "http://www.w3.org/2000/svg"));
}

TEST_F(ReportTest, MissingScoresIsAnInputError) {
  EXPECT_THROW(pacer::render_report_html(dir_ + "/nowhere"), pacer::InputError);
  EXPECT_EQ(run("'" + std::string(PACER_BINARY) + "' report '" + dir_ + "/nowhere' 2>/dev/null"), 2);
}

TEST(SvgChart, NiceTicksAndEscaping) {
  EXPECT_EQ(pacer::nice_ticks(1, 4, 6), (std::vector<double>{1, 1.5, 2, 2.5, 3, 3.5, 4}));
  EXPECT_EQ(pacer::xml_escape("a<b&\"c\""), "a&lt;b&amp;&quot;c&quot;");
  pacer::LineChart chart;
  chart.id = "x";
  chart.series.push_back({"s<1>", "#000", {{0, 0}, {1, 1}}, true});
  const std::string svg = chart.render();
  EXPECT_NE(svg.find("id=\"x\""), std::string::npos);
  EXPECT_NE(svg.find("s&lt;1&gt;"), std::string::npos);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
}

// A board has more algorithms than the palette has colours: from the eleventh on, a colour comes
// back, drawn dashed (in the chart and its legend) and striped in the table's swatch.
TEST(SvgChart, AColoursSecondUseIsDashedAndItsSwatchStriped) {
  EXPECT_EQ(pacer::palette_color(10), pacer::palette_color(0));
  EXPECT_FALSE(pacer::palette_dashed(0));
  EXPECT_FALSE(pacer::palette_dashed(9));
  EXPECT_TRUE(pacer::palette_dashed(10));
  EXPECT_TRUE(pacer::palette_dashed(14));
  EXPECT_EQ(pacer::palette_swatch_css(0), "background:" + pacer::palette_color(0));
  EXPECT_NE(pacer::palette_swatch_css(10).find("repeating-linear-gradient"), std::string::npos);
  pacer::LineChart chart;
  for (size_t i = 0; i < 12; ++i) {
    pacer::ChartSeries s{"s" + std::to_string(i), pacer::palette_color(i), {{1, 0.1}, {2, 0.5}}, true};
    s.dashed = pacer::palette_dashed(i);
    chart.series.push_back(s);
  }
  const std::string svg = chart.render();
  size_t dashed = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) {
    const std::string line = svg.substr(at, svg.find('>', at) - at);
    if (line.find("stroke-dasharray") != std::string::npos) ++dashed;
  }
  EXPECT_EQ(dashed, 2u);  // s10 and s11
}

// Log axes read as values (batch sizes 32 64 128, steps 100 1000), measured points carry markers,
// the legend lists only series with data, bands and vertical marks are drawn, and points a fixed
// range cuts are counted in a note.
TEST(SvgChart, LogAxesShowValuesAndTheChartSaysWhatItLeavesOut) {
  pacer::LineChart chart;
  chart.log_x = chart.log2_x = chart.log_y = true;
  pacer::ChartSeries measured{"sgd", "#000", {{32, 4000}, {64, 2100}, {128, 1200}, {256, 800}}, false};
  measured.markers = true;
  chart.series.push_back(measured);
  chart.series.push_back({"never reached", "#111", {}, false});
  chart.bands.push_back({"fit band", "#000", {{32, 3000}, {256, 500}}, {{32, 5000}, {256, 900}}});
  chart.vlines.push_back({100, "B_crit 100", "#222"});
  const std::string svg = chart.render();
  for (const char* label : {">32</text>", ">64</text>", ">128</text>", ">256</text>", ">1000</text>"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label << "\n" << svg;
  }
  EXPECT_EQ(svg.find(">1.5</text>"), std::string::npos) << "log2 exponents instead of values";
  EXPECT_EQ(svg.find("never reached"), std::string::npos) << "a legend entry without data";
  EXPECT_NE(svg.find("class=\"band\""), std::string::npos);
  EXPECT_NE(svg.find(">B_crit 100</text>"), std::string::npos);
  size_t markers = 0;
  for (size_t at = svg.find("class=\"marker\""); at != std::string::npos; at = svg.find("class=\"marker\"", at + 1)) ++markers;
  EXPECT_EQ(markers, 4u + 1u);  // the measured points + the legend's
  EXPECT_EQ(svg.find("clipped"), std::string::npos);

  pacer::LineChart fixed;
  fixed.x_min = 0, fixed.x_max = 10;
  fixed.series.push_back({"long", "#000", {{1, 1}, {5, 2}, {20, 3}, {40, 4}}, false});
  EXPECT_NE(fixed.render().find("2 points outside the plotted range (clipped)"), std::string::npos);
  EXPECT_TRUE(pacer::spans_decades({0.5, 80.0}, 2.0));
  EXPECT_FALSE(pacer::spans_decades({0.0, 5.0, 40.0}, 2.0));
}

TEST_F(ReportTest, RendersInHeadlessChromium) {
  const std::string chromium = pacer::testing::find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "Chromium not installed (scripts/setup.sh installs the Debian package chromium)";
  std::string dom;
  ASSERT_EQ(pacer::testing::chromium_dump_dom(chromium, dir_ + "/board/report.html", dir_, dom), 0)
      << read_file(dir_ + "/chromium.log");
  // The parsed DOM (not the file): elements Chromium built from the page.
  EXPECT_NE(dom.find("<table id=\"leaderboard\">"), std::string::npos) << dom.substr(0, 500);
  EXPECT_EQ(count(dom, "<tr>"), 1u + 2u + 1u + 2u);  // leaderboard head + 2 rows, time table head + 2 rows
  EXPECT_TRUE(std::regex_search(dom, std::regex("<svg[^>]*id=\"performance-profiles\"")));
  EXPECT_EQ(count(dom, "class=\"curve\""), 2u);
  EXPECT_NE(dom.find("</html>"), std::string::npos);
  // And it paints: a screenshot of the page is a non-trivial PNG.
  ASSERT_EQ(pacer::testing::chromium_screenshot(chromium, dir_ + "/board/report.html", dir_, dir_ + "/shot.png"), 0);
  const std::string png = read_file(dir_ + "/shot.png");
  ASSERT_GT(png.size(), 10000u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
}

}  // namespace
