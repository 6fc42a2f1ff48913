// `pacer serve`: the dashboard's JSON against the CLI's own code (pacer score, pacer study list),
// its caching, the routes' refusals (unknown paths, traversal, ids, methods, hosts), a store that
// disappears or is damaged while served; then the server as a user starts it (a free port, live
// updates while another process writes, oversized and malformed requests, Ctrl-C) and its pages
// in headless Chromium.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <algorithm>
#include <atomic>
#include <vector>

#include "core/eval_record.h"
#include "core/trial_outcome.h"
#include "score/score_outputs.h"
#include "score/scoring.h"
#include "score/store_source.h"
#include "serve/dashboard.h"
#include "serve/dashboard_routes.h"
#include "serve/dashboard_server.h"
#include "store/study_store.h"
#include "support/cli_runner.h"
#include "support/headless_chromium.h"
#include "support/postgres_server.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using pacer::Dashboard;
using pacer::DashboardOptions;
using pacer::HttpReply;
using pacer::StudyStore;

// One trial's evals: accuracy rising by `rise` per eval, one eval per second of submission time.
void run_trial(StudyStore& store, const pacer::TrialRecord& trial, const std::string& owner, int evals, double rise,
               bool finish) {
  std::optional<int64_t> reached;
  for (int i = 0; i < evals; ++i) {
    pacer::EvalRecord e;
    e.step = 100 * (i + 1);
    e.accumulated_submission_time = 1.0 * (i + 1);
    e.total_duration = 1.2 * (i + 1);
    const double accuracy = 0.80 + rise * i;
    e.metrics = {{"validation/accuracy", accuracy}, {"validation/loss", 0.6 - 0.3 * rise * i}, {"train/loss", 0.5 - rise * i}};
    store.record_eval(trial.id, owner, trial.attempts, i, e);
    if (!reached && accuracy >= 0.895) reached = i;
  }
  if (!finish) return;
  pacer::TrialOutcome o;
  o.status = reached ? pacer::TrialStatus::reached : pacer::TrialStatus::not_reached;
  o.stop_reason = reached ? pacer::StopReason::targets_reached : pacer::StopReason::budget;
  o.steps = 100 * evals;
  o.submission_time = evals;
  o.total_duration = 1.2 * evals;
  if (reached) {
    o.time_to_target = 1.0 * (*reached + 1);
    o.steps_to_target = 100 * (*reached + 1);
    o.eval_index_to_target = *reached;
  }
  o.best_validation = 0.80 + rise * (evals - 1);
  store.finish_trial(trial.id, owner, o);
}

// A board-shaped store: adamw, nadamw and adamw@rerun1 on fmnist_mlp, one study of 3 trials each;
// two trials of each study finished (adamw reaches its target sooner than nadamw), one pending.
void make_board_store(const std::string& path) {
  StudyStore store(path);
  std::vector<pacer::StudyDefinition> definitions;
  for (const std::string experiment : {"adamw", "nadamw", "adamw@rerun1"}) {
    pacer::StudyDefinition d;
    d.experiment = experiment;
    d.sweep = experiment + "#fmnist_mlp";
    d.identity = d.sweep + "#1";
    d.workload = "fmnist_mlp";
    d.algorithm = experiment.substr(0, experiment.find('@'));
    d.ruleset = "external";
    d.space_json = R"({"learning_rate": {"min": 1e-4, "max": 1e-1, "scaling": "log"}})";
    d.sampler = "halton";
    d.trial_spec = "{}";
    d.trials = 3;
    definitions.push_back(d);
  }
  const auto studies = store.ensure_studies(definitions, [](const pacer::StudyRecord&, int64_t first, int64_t count,
                                                            int64_t position) {
    std::vector<pacer::NewTrial> out;
    for (int64_t i = 0; i < count; ++i) {
      pacer::NewTrial t;
      t.position = position + i;
      t.hparams_json = json{{"learning_rate", 0.001 * static_cast<double>(first + i)}}.dump();
      t.seed = static_cast<uint64_t>(first + i);
      out.push_back(t);
    }
    return out;
  });
  const std::string me = StudyStore::make_owner_id();
  for (const auto& study : studies) {
    const double rise = study.experiment == "nadamw" ? 0.035 : 0.05;  // adamw reaches 0.90 at eval 3, nadamw at 4
    for (int n = 0; n < 2; ++n) run_trial(store, *store.claim_trial({study.id}, me, 60), me, 6, rise, true);
  }
}

class DashboardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::path(::testing::TempDir()) / "serve_test_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    store_ = dir_ + "/board.db";
    make_board_store(store_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Every call reads the store afresh and rescoring waits for nothing: tests see each write.
  static DashboardOptions eager() {
    DashboardOptions o;
    o.check_every_sec = 0;
    o.score_every_sec = 0;
    return o;
  }
  HttpReply get(Dashboard& d, const std::string& path, std::map<std::string, std::string> query = {},
                const std::string& method = "GET") {
    pacer::RouteOptions options;
    options.allowed_hosts = pacer::loopback_host_names("127.0.0.1", 8050);
    return pacer::route_dashboard_request(d, {method, path, std::move(query), "127.0.0.1:8050"}, options);
  }
  std::string dir_, store_;
};

TEST_F(DashboardTest, OverviewShowsProgressPartsAndStudiesAsTheStoreHoldsThem) {
  Dashboard d(store_, eager());
  d.check();
  const json j = json::parse(d.overview_json());
  EXPECT_EQ(j["parts"], json({"external", "rerun1"}));
  EXPECT_EQ(j["progress"]["done"], 6);
  EXPECT_EQ(j["progress"]["total"], 9);
  EXPECT_EQ(j["progress"]["running"], 0);
  EXPECT_GT(j["progress"]["remaining_trial_sec"].get<double>(), 0.0);
  ASSERT_EQ(j["sweeps"].size(), 3u);
  EXPECT_EQ(j["sweeps"][0]["experiment"], "adamw");
  const json& study = j["sweeps"][0]["studies"][0];
  EXPECT_EQ(study["done"], 2);
  EXPECT_EQ(study["pending"], 1);
  EXPECT_DOUBLE_EQ(study["time_to_target"].get<double>(), 3.0);  // adamw: 0.80 + 0.05 x 2 at the third eval
  EXPECT_EQ(j["sweeps"][0]["finished"], false);

  // A worker claims a trial: the overview shows it running, on one worker.
  StudyStore writer(store_);
  const std::string owner = StudyStore::make_owner_id();
  auto trial = writer.claim_trial({study["id"].get<int64_t>()}, owner, 60);
  ASSERT_TRUE(trial);
  const json k = json::parse(d.overview_json());
  EXPECT_EQ(k["progress"]["running"], 1);
  EXPECT_EQ(k["progress"]["workers"], 1);
  // A worker that died with its trial claimed: running until reclaimed, but no worker at work.
  auto orphan = writer.claim_trial({j["sweeps"][1]["studies"][0]["id"].get<int64_t>()}, "gone/1/x", 0.001);
  ASSERT_TRUE(orphan);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const json m = json::parse(d.overview_json());
  EXPECT_EQ(m["progress"]["running"], 2);
  EXPECT_EQ(m["progress"]["workers"], 1);
}

TEST_F(DashboardTest, AWorkloadThisBuildDoesNotKnowShowsItsStudiesWithoutAnEta) {
  {
    StudyStore writer(store_);
    pacer::StudyDefinition d;
    d.experiment = "adamw";
    d.sweep = "adamw#from_another_build";
    d.identity = d.sweep + "#1";
    d.workload = "from_another_build";
    d.algorithm = "adamw";
    d.ruleset = "external";
    d.trial_spec = "{}";
    d.trials = 2;
    writer.ensure_studies({d}, [](const pacer::StudyRecord&, int64_t, int64_t count, int64_t position) {
      std::vector<pacer::NewTrial> out(static_cast<size_t>(count));
      for (auto& t : out) t.position = position++;
      return out;
    });
  }
  Dashboard d(store_, eager());
  const json j = json::parse(d.overview_json());
  EXPECT_EQ(j["progress"]["total"], 11);
  EXPECT_EQ(j["progress"]["eta"], "?");
  EXPECT_EQ(j["sweeps"].size(), 4u);
  EXPECT_EQ(get(d, "/api/study/4").status, 200);
}

TEST_F(DashboardTest, LeaderboardIsWhatPacerScoreComputesForEachPart) {
  Dashboard d(store_, eager());
  const json page = json::parse(d.leaderboard_json("external", "seconds"));
  // The CLI's path: pacer score STORE (external part: the experiments without @rerun).
  pacer::StoreSource source({store_});
  pacer::CombinedSource combined;
  auto trials = source.trials();
  std::vector<pacer::TrialLog> first_run;
  for (auto& t : trials)
    if (t.submission.find('@') == std::string::npos) first_run.push_back(t);
  combined.add(first_run, {"adamw", "nadamw"});
  pacer::ScoreOptions options;
  const json cli = pacer::scores_json(pacer::score_submissions(combined, options));
  ASSERT_EQ(page["submissions"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(page["submissions"][i]["name"], cli["submissions"][i]["name"]);
    EXPECT_EQ(page["submissions"][i]["score"], cli["submissions"][i]["score"]);
    EXPECT_EQ(page["submissions"][i]["pace"], cli["submissions"][i]["pace"]);
    EXPECT_EQ(page["submissions"][i]["pace_rank"], cli["submissions"][i]["pace_rank"]);
  }
  EXPECT_EQ(page["submissions"][0]["name"], "adamw");  // it reaches sooner
  EXPECT_EQ(page["part"], "external");
  EXPECT_EQ(page["finished_trials"], 6);
  // The rerun part: its one algorithm, named as in the board's tables.
  const json rerun = json::parse(d.leaderboard_json("rerun1", "steps"));
  ASSERT_EQ(rerun["submissions"].size(), 1u);
  EXPECT_EQ(rerun["submissions"][0]["name"], "adamw");
  EXPECT_EQ(rerun["time_axis"], "steps");
  EXPECT_NE(d.profile_svg("external", "seconds").find("id=\"performance-profiles\""), std::string::npos);
  // A part the store does not hold, and a bad axis.
  EXPECT_THROW(d.leaderboard_json("rerun2", "seconds"), pacer::NotFoundError);
  EXPECT_THROW(d.leaderboard_json("external", "hours"), pacer::InputError);
}

TEST_F(DashboardTest, LeaderboardIsRescoredOnlyWhenTrialsFinishAndNotMoreOftenThanAsked) {
  DashboardOptions o = eager();
  Dashboard d(store_, o);
  d.leaderboard_json("external", "seconds");
  d.leaderboard_json("external", "seconds");
  EXPECT_EQ(d.scorings(), 1);  // nothing changed: the cached scores
  StudyStore writer(store_);
  const std::string me = StudyStore::make_owner_id();
  const auto studies = writer.studies();
  auto trial = writer.claim_trial({studies[1].id}, me, 60);  // nadamw's third trial
  run_trial(writer, *trial, me, 3, 0.05, false);
  d.leaderboard_json("external", "seconds");
  EXPECT_EQ(d.scorings(), 1) << "evals of a running trial change no score";
  pacer::TrialOutcome outcome;
  outcome.status = pacer::TrialStatus::not_reached;
  writer.finish_trial(trial->id, me, outcome);
  EXPECT_EQ(json::parse(d.leaderboard_json("external", "seconds"))["finished_trials"], 7);
  EXPECT_EQ(d.scorings(), 2);

  // With a long interval, a finished trial waits for the next rescoring: the page says how old it is.
  o.score_every_sec = 3600;
  Dashboard slow(store_, o);
  slow.leaderboard_json("external", "seconds");
  auto another = writer.claim_trial({studies[0].id}, me, 60);
  writer.finish_trial(another->id, me, outcome);
  EXPECT_EQ(json::parse(slow.leaderboard_json("external", "seconds"))["finished_trials"], 7);
  EXPECT_EQ(slow.scorings(), 1);
  EXPECT_EQ(json::parse(slow.overview_json())["activity"]["finished"], 8);
}

TEST_F(DashboardTest, StudyAndTrialShowTheirTrialsLiveStateCurveAndAnalysis) {
  Dashboard d(store_, eager());
  StudyStore writer(store_);
  const auto studies = writer.studies();
  const std::string me = StudyStore::make_owner_id();
  auto running = writer.claim_trial({studies[0].id}, me, 60);
  run_trial(writer, *running, me, 2, 0.05, false);  // two evals so far

  const json s = json::parse(d.study_json(studies[0].id));
  EXPECT_EQ(s["study"]["name"], "adamw/fmnist_mlp/study_1");
  EXPECT_EQ(s["objective"]["metric"], "validation/accuracy");
  ASSERT_EQ(s["trials"].size(), 3u);
  EXPECT_EQ(s["best_trial"], 1);
  EXPECT_EQ(s["trials"][0]["best"], true);
  EXPECT_DOUBLE_EQ(s["trials"][0]["hyperparameters"]["learning_rate"].get<double>(), 0.001);
  EXPECT_EQ(s["trials"][0]["outcome"], "reached");
  const json& live = s["trials"][2];
  EXPECT_EQ(live["status"], "running");
  EXPECT_EQ(live["steps"], 200);                                     // its latest eval
  EXPECT_NEAR(live["best_validation"].get<double>(), 0.85, 1e-12);   // best so far
  EXPECT_EQ(live["worker"], me);

  const json t = json::parse(d.trial_json(running->id));
  EXPECT_EQ(t["evals"].size(), 2u);
  EXPECT_EQ(t["study"]["id"], studies[0].id);
  const std::string curve = d.trial_curve_svg(running->id);
  EXPECT_NE(curve.find("<svg"), std::string::npos);
  EXPECT_NE(curve.find("id=\"trial-curve\""), std::string::npos);
  // A third eval arrives: the trial's JSON shows it (no stale cache).
  pacer::EvalRecord e;
  e.step = 300;
  e.metrics = {{"validation/accuracy", 0.9}};
  writer.record_eval(running->id, me, running->attempts, 2, e);
  EXPECT_EQ(json::parse(d.trial_json(running->id))["evals"].size(), 3u);

  const std::string analysis = d.analysis_html(studies[0].id);
  EXPECT_NE(analysis.find("Study analysis: adamw/fmnist_mlp/study_1"), std::string::npos);
  EXPECT_NE(analysis.find("id=\"trials\""), std::string::npos);
  EXPECT_THROW(d.study_json(999), pacer::NotFoundError);
  EXPECT_THROW(d.trial_json(999), pacer::NotFoundError);
}

TEST_F(DashboardTest, RoutesServeOnlyTheirOwnPathsAndRefuseTheRest) {
  Dashboard d(store_, eager());
  EXPECT_EQ(get(d, "/").status, 200);
  EXPECT_NE(get(d, "/").body.find("data-page=\"index\""), std::string::npos);
  EXPECT_EQ(get(d, "/assets/dashboard.js").status, 200);
  EXPECT_EQ(get(d, "/api/overview").content_type.rfind("application/json", 0), 0u);
  EXPECT_EQ(get(d, "/api/leaderboard", {{"part", "rerun1"}, {"time", "steps"}}).status, 200);
  EXPECT_EQ(get(d, "/study/1").status, 200);
  EXPECT_EQ(get(d, "/study/1/analysis").status, 200);
  EXPECT_EQ(get(d, "/api/trial/1/curve.svg").content_type, "image/svg+xml");
  // Nothing outside the routes, however the path is spelled: no file is ever read.
  for (const std::string path : {"/etc/passwd", "/assets/../../etc/passwd", "/../../etc/passwd", "/assets/",
                                 "/assets/dashboard.js/x", "/assets/board.db", "/board.db", "/api", "/api/",
                                 "/api/study/", "/api/study/-1", "/api/study/1e3", "/api/study/0x10",
                                 "/api/study/99999999999999999999", "/study/1/../../../etc/passwd", "/trial/abc"}) {
    const HttpReply r = get(d, path);
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.body.find("root:"), std::string::npos) << path;
  }
  const HttpReply missing = get(d, "/api/study/4242");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(json::parse(missing.body)["error"].get<std::string>().find("no study with id 4242"), std::string::npos);
  EXPECT_EQ(get(d, "/api/leaderboard", {{"part", "rerun7"}}).status, 404);
  EXPECT_EQ(get(d, "/api/leaderboard", {{"time", "hours"}}).status, 400);
  EXPECT_EQ(get(d, "/api/overview", {}, "POST").status, 405);
  EXPECT_EQ(get(d, "/api/overview", {}, "DELETE").status, 405);
  EXPECT_EQ(get(d, "/", {}, "HEAD").body, "");
  // Another site's name for 127.0.0.1 (DNS rebinding) is refused.
  pacer::RouteOptions strict;
  strict.allowed_hosts = pacer::loopback_host_names("127.0.0.1", 8050);
  EXPECT_EQ(pacer::route_dashboard_request(d, {"GET", "/api/overview", {}, "evil.example:8050"}, strict).status, 403);
  EXPECT_EQ(pacer::route_dashboard_request(d, {"GET", "/api/overview", {}, "localhost:8050"}, strict).status, 200);
}

TEST_F(DashboardTest, AStoreDeletedOrDamagedWhileServedIsAnErrorPageAndComesBack) {
  Dashboard d(store_, eager());
  ASSERT_EQ(get(d, "/api/overview").status, 200);
  const std::string kept = dir_ + "/kept.db";
  fs::rename(store_, kept);
  const HttpReply gone = get(d, "/api/overview");
  EXPECT_EQ(gone.status, 503);
  EXPECT_NE(json::parse(gone.body)["error"].get<std::string>().find("no longer exists"), std::string::npos) << gone.body;
  EXPECT_EQ(get(d, "/").status, 200);  // the page itself still loads, and says what is wrong
  EXPECT_EQ(get(d, "/study/1/analysis").status, 503);
  fs::rename(kept, store_);
  EXPECT_EQ(get(d, "/api/overview").status, 200);
  EXPECT_EQ(json::parse(get(d, "/api/overview").body)["progress"]["done"], 6);

  // Damaged: another file of garbage in its place.
  fs::rename(store_, kept);
  {
    std::ofstream junk(store_, std::ios::binary);
    junk << std::string(4096, 'x');
  }
  const HttpReply damaged = get(d, "/api/overview");
  EXPECT_EQ(damaged.status, 503) << damaged.body;
  EXPECT_EQ(get(d, "/api/leaderboard").status, 503);
  fs::remove(store_);
  fs::rename(kept, store_);
  EXPECT_EQ(get(d, "/api/overview").status, 200);
}

// Round 5, item 9: a store copied onto the served one in place (same inode) was served as the old
// one for ever, while `study list` of the path showed the new one.
TEST_F(DashboardTest, AStoreCopiedOntoTheServedOneInPlaceIsServedAsTheNewOne) {
  Dashboard d(store_, eager());
  ASSERT_EQ(json::parse(get(d, "/api/overview").body)["progress"]["done"], 6);
  const std::string other = dir_ + "/other.db";
  { StudyStore empty(other); }
  struct stat before {};
  ASSERT_EQ(::stat(store_.c_str(), &before), 0);
  fs::copy_file(other, store_, fs::copy_options::overwrite_existing);
  struct stat after {};
  ASSERT_EQ(::stat(store_.c_str(), &after), 0);
  ASSERT_EQ(before.st_ino, after.st_ino) << "the copy replaced the file instead of writing onto it";
  const HttpReply reply = get(d, "/api/overview");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(json::parse(reply.body)["progress"]["total"], 0) << reply.body;
}

TEST_F(DashboardTest, ReadersOnManyThreadsWhileAWorkerWrites) {
  // What the server's thread pool does: every route at once while the store changes under it.
  Dashboard d(store_, eager());
  std::atomic<bool> done{false};
  std::atomic<int> failures{0}, reads{0};
  std::vector<std::thread> readers;
  for (int k = 0; k < 4; ++k) {
    readers.emplace_back([&, k] {
      while (!done) {
        const std::string path = k == 0 ? "/api/overview" : k == 1 ? "/api/leaderboard" : k == 2 ? "/api/study/1" : "/api/trial/3";
        if (get(d, path).status != 200) ++failures;
        ++reads;
      }
    });
  }
  StudyStore writer(store_);
  const std::string me = StudyStore::make_owner_id();
  for (const auto& study : writer.studies()) run_trial(writer, *writer.claim_trial({study.id}, me, 60), me, 4, 0.05, true);
  while (reads < 40) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(json::parse(d.overview_json())["progress"]["done"], 9);
}

TEST(ServePostgresTest, ServesAPostgresStoreAndAStoppedServerIsAnErrorPage) {
  auto& server = pacer::testing::PostgresServer::get();
  if (!server.available()) {
    if (pacer::testing::PostgresServer::required()) FAIL() << server.reason();
    GTEST_SKIP() << server.reason();
  }
  const std::string uri = server.create_database();
  make_board_store(uri);
  DashboardOptions o;
  o.check_every_sec = 0;
  o.score_every_sec = 0;
  Dashboard d(uri, o);
  d.check();
  EXPECT_EQ(json::parse(d.overview_json())["progress"]["done"], 6);
  EXPECT_EQ(json::parse(d.leaderboard_json("external", "seconds"))["submissions"][0]["name"], "adamw");
  EXPECT_EQ(d.location().find("pacer_test@"), 0u + std::string("postgresql://").size());
  ASSERT_TRUE(server.stop());
  EXPECT_THROW(d.overview_json(), pacer::StoreUnavailable);
  ASSERT_TRUE(server.start());
  EXPECT_EQ(json::parse(d.overview_json())["progress"]["done"], 6);
}

TEST(ServeAddress, LoopbackIsAnAddressNotAPrefix) {
  for (const std::string host : {"127.0.0.1", "127.8.9.10", "::1", "localhost"}) EXPECT_TRUE(pacer::is_loopback_address(host)) << host;
  for (const std::string host : {"0.0.0.0", "127.corp.example", "10.0.0.1", "::", "localhost.example", ""})
    EXPECT_FALSE(pacer::is_loopback_address(host)) << host;
  const auto names = pacer::loopback_host_names("127.0.0.1", 80);
  EXPECT_NE(std::find(names.begin(), names.end(), "localhost"), names.end());  // browsers leave out :80
}

TEST_F(DashboardTest, CheckNamesWhatIsNotAStore) {
  Dashboard missing(dir_ + "/nothing.db");
  EXPECT_THROW(missing.check(), pacer::InputError);
  std::ofstream(dir_ + "/notes.txt") << "not a store\n";
  Dashboard text(dir_ + "/notes.txt");
  EXPECT_THROW(text.check(), pacer::InputError);
}

// ---- the server as a user starts it

class ServeCliTest : public pacer::testing::CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    store_ = dir_ + "/board.db";
    make_board_store(store_);
  }
  void TearDown() override {
    stop();
    CliFixture::TearDown();
  }
  // Starts `pacer serve STORE --port 0 ARGS` in the background; the URL it prints.
  std::string start(const std::string& args = "") {
    const std::string command = "'" + std::string(PACER_BINARY) + "' serve '" + store_ + "' --port 0 " + args + " >'" +
                                dir_ + "/serve.out' 2>'" + dir_ + "/serve.err' & echo $! >'" + dir_ + "/serve.pid'";
    EXPECT_EQ(pacer::testing::run_shell(command), 0);
    pid_ = std::stoi(pacer::testing::read_file(dir_ + "/serve.pid"));
    const std::regex url_re("http://127\\.0\\.0\\.1:([0-9]+)/");
    for (int i = 0; i < 300; ++i) {
      std::smatch m;
      const std::string out = pacer::testing::read_file(dir_ + "/serve.out");
      if (std::regex_search(out, m, url_re)) {
        port_ = std::stoi(m[1]);
        return m[0];
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "no URL printed: " << pacer::testing::read_file(dir_ + "/serve.err");
    return "";
  }
  // Ctrl-C; true when it stopped by itself and said so.
  bool stop() {
    if (pid_ <= 0) return true;
    ::kill(pid_, SIGINT);
    for (int i = 0; i < 100 && ::kill(pid_, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const bool gone = ::kill(pid_, 0) != 0;
    if (!gone) ::kill(pid_, SIGKILL);
    pid_ = 0;
    return gone && pacer::testing::read_file(dir_ + "/serve.out").find("pacer serve: stopped") != std::string::npos;
  }
  // A connection to the server; -1 when it cannot be made.
  int connect_to_server() const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      return -1;
    }
    return fd;
  }
  // A raw request: what the server answers to bytes no client library would send.
  std::string raw(const std::string& bytes) {
    const int fd = connect_to_server();
    if (fd < 0) return "";
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    std::string reply;
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, static_cast<size_t>(n));
    ::close(fd);
    return reply;
  }
  std::string store_;
  int pid_ = 0, port_ = 0;
};

TEST_F(ServeCliTest, RefusesAnotherAddressWithoutExposeAndWhatIsNotAStore) {
  auto r = pacer("serve '" + store_ + "' --host 0.0.0.0");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--expose"), std::string::npos) << r.err;
  r = pacer("serve '" + dir_ + "/missing.db'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("missing.db does not exist"), std::string::npos) << r.err;
}

// Issue 61, item 7: 12 slow-header clients (a request line and one header, then silence) and 300
// connections that send nothing held all 8 threads of httplib's pool, and a normal request waited
// for them. Each connection now has a thread of its own (serve/guarded_http_server.h) and a
// request's headers a deadline (5 s): a normal request is answered at once, the slow ones are
// closed at their deadline, and the server stops on Ctrl-C with them still open.
TEST_F(ServeCliTest, SlowAndIdleClientsStallNoOne) {
  ASSERT_FALSE(start().empty());
  std::vector<int> slow, idle;
  for (int i = 0; i < 12; ++i) {
    const int fd = connect_to_server();
    ASSERT_GE(fd, 0);
    const std::string head = "GET /api/overview HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    ::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    slow.push_back(fd);
  }
  for (int i = 0; i < 300; ++i) {
    const int fd = connect_to_server();
    ASSERT_GE(fd, 0) << "connection " << i;
    idle.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // every connection accepted and waiting
  httplib::Client client("127.0.0.1", port_);
  client.set_read_timeout(20, 0);
  const auto asked = std::chrono::steady_clock::now();
  auto res = client.Get("/api/overview");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_LT(seconds, 1.0) << "a normal request waited behind slow and idle clients";
  // The slow clients' requests end at their deadline (a 400 and the connection closed).
  for (const int fd : slow) {
    timeval tv{15, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string reply;
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, static_cast<size_t>(n));
    EXPECT_NE(reply.find("HTTP/1.1 400"), std::string::npos) << "a slow client was not cut: " << reply;
  }
  EXPECT_TRUE(stop()) << "Ctrl-C did not stop the server with idle connections open";
  for (const int fd : slow) ::close(fd);
  for (const int fd : idle) ::close(fd);
}

TEST_F(ServeCliTest, PagesPollWhatAnotherProcessWritesAndBadRequestsAreRefused) {
  const std::string url = start("--poll 1");
  ASSERT_FALSE(url.empty());
  httplib::Client client("127.0.0.1", port_);
  client.set_read_timeout(20, 0);
  auto res = client.Get("/api/overview");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(json::parse(res->body)["progress"]["done"], 6);
  EXPECT_NE(res->get_header_value("Content-Security-Policy").find("default-src 'self'"), std::string::npos);

  // Another process (this test) finishes a trial: the JSON the page polls shows it.
  {
    StudyStore writer(store_);
    const std::string me = StudyStore::make_owner_id();
    auto trial = writer.claim_trial({writer.studies()[1].id}, me, 60);
    run_trial(writer, *trial, me, 6, 0.05, true);
  }
  int64_t done = 0;
  for (int i = 0; i < 50 && done != 7; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto again = client.Get("/api/overview");
    ASSERT_TRUE(again);
    done = json::parse(again->body)["progress"]["done"].get<int64_t>();
  }
  EXPECT_EQ(done, 7);

  // Refusals: a request line over the limit, headers over the limit, a body, a malformed request,
  // a method it does not serve, a name that is not this machine's.
  EXPECT_NE(raw("GET /" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").find("HTTP/1.1 414"),
            std::string::npos);
  EXPECT_NE(raw("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(20000, 'b') + "\r\n\r\n").find(" 400"),
            std::string::npos);
  // A body is never read: any method but GET and HEAD is refused first, sized or chunked.
  EXPECT_NE(raw("POST /api/overview HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
                "\r\nContent-Length: 100000\r\n\r\n" + std::string(100000, 'c'))
                .find("HTTP/1.1 405"),
            std::string::npos);
  EXPECT_NE(raw("PUT /api/overview HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n" +
                std::string("fffff\r\n") + std::string(5000, 'd'))
                .find("HTTP/1.1 405"),
            std::string::npos);
  // A range request would copy the reply once per range: refused.
  EXPECT_NE(raw("GET /api/overview HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
                "\r\nRange: bytes=-,-,-,-,-,-\r\nConnection: close\r\n\r\n")
                .find("HTTP/1.1 416"),
            std::string::npos);
  EXPECT_NE(raw("NONSENSE\r\n\r\n").find("HTTP/1.1 400"), std::string::npos);
  EXPECT_NE(raw("GET /api/overview HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n").find("HTTP/1.1 403"),
            std::string::npos);
  // Still serving after all of that, and Ctrl-C stops it cleanly.
  auto after = client.Get("/api/overview");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_TRUE(stop()) << pacer::testing::read_file(dir_ + "/serve.err");
}

TEST_F(ServeCliTest, PagesRenderInHeadlessChromium) {
  const std::string chromium = pacer::testing::find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "Chromium not installed (scripts/setup.sh installs the Debian package chromium)";
  const std::string url = start();
  ASSERT_FALSE(url.empty());
  // The DOM after the page's script fetched the JSON and built its tables.
  const auto dom_of = [&](const std::string& page) {
    const std::string file = dir_ + "/dom.html";
    pacer::testing::run_shell("timeout 120 " + chromium + pacer::testing::chromium_flags(dir_) +
                              " --virtual-time-budget=10000 --dump-dom '" + url + page + "' >'" + file + "' 2>'" + dir_ +
                              "/chromium.log'");
    return pacer::testing::read_file(file);
  };
  const std::string index = dom_of("");
  EXPECT_NE(index.find("<table id=\"studies\">"), std::string::npos) << index.substr(0, 2000);
  EXPECT_EQ(pacer::testing::count_occurrences(index, "href=\"/study/"), 3u);
  EXPECT_NE(index.find("<table id=\"leaderboard\">"), std::string::npos) << index.substr(0, 2000);
  EXPECT_NE(index.find("6/9 trials done"), std::string::npos);
  EXPECT_NE(index.find("src=\"/api/profiles.svg?part=external"), std::string::npos);
  const std::string study = dom_of("study/1");
  EXPECT_NE(study.find("<table id=\"trials\">"), std::string::npos) << study.substr(0, 2000);
  EXPECT_EQ(pacer::testing::count_occurrences(study, "href=\"/trial/"), 3u);
  EXPECT_NE(study.find("learning_rate"), std::string::npos);
  const std::string trial = dom_of("trial/1");
  EXPECT_NE(trial.find("<table id=\"evals\">"), std::string::npos) << trial.substr(0, 2000);
  EXPECT_NE(trial.find("src=\"/api/trial/1/curve.svg"), std::string::npos);
  // And it paints: a screenshot of the index (kept for docs/ by PACER_SERVE_SCREENSHOT).
  const std::string png = dir_ + "/serve.png";
  pacer::testing::run_shell("cd '" + dir_ + "' && timeout 120 " + chromium + pacer::testing::chromium_flags(dir_) +
                            " --virtual-time-budget=10000 --window-size=1280,1000 --screenshot='" + png + "' '" + url +
                            "' >/dev/null 2>&1");
  const std::string shot = pacer::testing::read_file(png);
  ASSERT_GT(shot.size(), 10000u);
  EXPECT_EQ(shot.substr(1, 3), "PNG");
  if (const char* keep = std::getenv("PACER_SERVE_SCREENSHOT")) fs::copy_file(png, keep, fs::copy_options::overwrite_existing);
}

}  // namespace
