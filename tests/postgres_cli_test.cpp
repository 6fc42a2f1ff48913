// The commands with a PostgreSQL study store (a server the test starts itself): `pacer tune
// --workers 2 --store postgresql://...`, `pacer scale`, `pacer study list|show|copy`, `pacer score` on the URI
// and on a SQLite copy (same scores), and the errors a user meets first (an empty database, an
// unreachable server: exit 2, one line, no password).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "support/cli_runner.h"
#include "support/postgres_server.h"

namespace pacer {
namespace {

class PostgresCliTest : public testing::CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    auto& server = testing::PostgresServer::get();
    if (!server.available()) {
      if (testing::PostgresServer::required()) FAIL() << server.reason();
      GTEST_SKIP() << server.reason();
    }
    uri_ = server.create_database();
    space_ = dir_ + "/space.json";
    std::ofstream(space_) << R"({"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"},
                                 "weight_decay": {"feasible_points": [0.0]}})";
  }
  std::string uri_, space_;
};

TEST_F(PostgresCliTest, TuneWithTwoWorkersThenListCopyAndScoreAlike) {
  auto r = pacer("tune -w synthetic_regression -a sgd --space '" + space_ +
                 "' --studies 2 --trials 2 --max-steps 600 --eval-every 200 --ignore-targets --budget 1000 --threads 1 "
                 "--workers 2 -q --store '" + uri_ + "'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  r = pacer("study list '" + uri_ + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("synthetic_regression"), std::string::npos) << r.out;
  r = pacer("study show '" + uri_ + "' --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n') > 0, true);
  EXPECT_EQ(r.out.find("\"pending\""), std::string::npos) << "every trial ran";

  // Copy to a SQLite file: the copy scores exactly as the server's store does.
  r = pacer("study copy '" + uri_ + "' '" + dir_ + "/copy.db'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("copied 2 studies (4 trials"), std::string::npos) << r.out;
  const auto on_server = pacer("score '" + uri_ + "' --time steps");
  const auto in_copy = pacer("score '" + dir_ + "/copy.db' --time steps");
  ASSERT_EQ(on_server.code, 0) << on_server.err;
  ASSERT_EQ(in_copy.code, 0) << in_copy.err;
  EXPECT_EQ(on_server.out, in_copy.out);
  EXPECT_EQ(pacer("study show '" + uri_ + "' --json").out, pacer("study show '" + dir_ + "/copy.db' --json").out);
  // Copying the same studies again is refused, naming the study; nothing is added.
  r = pacer("study copy '" + uri_ + "' '" + dir_ + "/copy.db'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("already holds study sgd/synthetic_regression/study_1"), std::string::npos) << r.err;
}

TEST_F(PostgresCliTest, ScaleRunsItsStudiesOnTheServer) {
  auto r = pacer("scale -w synthetic_regression -a sgd --space '" + std::string(PACER_SOURCE_DIR) +
                 "/spaces/sgd_scaling.json' --batch-sizes 8,32 --trials 2 --max-steps 200 --evals 20 --goal 0.5 "
                 "--threads 1 -q --json --store '" + uri_ + "' --out '" + dir_ + "/s'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"batch_sizes\""), std::string::npos) << r.out;
  r = pacer("study list '" + uri_ + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sgd@b8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sgd@b32"), std::string::npos) << r.out;
}

TEST_F(PostgresCliTest, ReadersRefuseAnEmptyDatabaseAndNoPasswordIsPrinted) {
  auto r = pacer("study list '" + uri_ + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not a pacer study store"), std::string::npos) << r.err;
  r = pacer("study list 'postgresql://pacer:s3cret@/nodb?host=" + dir_ + "/no-server&connect_timeout=2'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot connect"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("s3cret"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace pacer
