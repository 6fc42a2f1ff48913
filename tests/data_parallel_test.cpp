// Data parallelism across real processes over c10d Gloo on loopback: the distributed combiners
// against the in-process tree reference (2, 3 and 4 ranks), `pacer launch` runs equal to
// virtual-worker runs, a killed rank makes the others fail within the collective timeout; in
// process, the launcher (dist/rank_launcher: a failing rank stops the others, per-rank logs,
// forwarded interrupts, refusals before any rank starts) and the rendezvous checks.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ATen/ATen.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <thread>

#include "core/error.h"
#include "distributed/adasum.h"
#include "distributed/c10d_communicator.h"
#include "distributed/dist_environment.h"
#include "distributed/gradient_combiner.h"
#include "distributed/rank_launcher.h"
#include "distributed/rendezvous.h"
#include "support/child_process.h"
#include "support/cli_runner.h"
#include "support/input_error.h"

namespace pacer {
namespace {

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Starts `command` through the shell with extra environment variables; output to `log`.
pid_t start(const std::string& command, const std::vector<std::string>& env, const std::string& log) {
  return testing::start_child(command, env, log);
}

using testing::wait_exit;

std::vector<std::string> rank_env(int rank, int world, int port) {
  return {"RANK=" + std::to_string(rank), "WORLD_SIZE=" + std::to_string(world), "LOCAL_RANK=" + std::to_string(rank),
          "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + std::to_string(port)};
}

std::vector<at::Tensor> worker_buffers(int p, int64_t total, uint64_t seed) {
  at::manual_seed(seed);
  const at::Tensor common = at::randn({total});
  std::vector<at::Tensor> out;
  for (int r = 0; r < p; ++r) out.push_back(common + 0.7 * at::randn({total}));
  return out;
}

// One rank of DistributedCombinerTest: runs only when started by it (PACER_TEST_COMBINE set).
TEST(DistributedRank, CombinesLikeTheReference) {
  const char* which = std::getenv("PACER_TEST_COMBINE");
  if (!which) GTEST_SKIP() << "a rank of DistributedCombinerTest, started by it";
  const DistEnvironment env = DistEnvironment::from_environment();
  C10dCommunicator comm(env, {"gloo", std::chrono::seconds(30)});
  const std::vector<int64_t> numels = {1001, 7, 50000, 3};  // odd sizes: halves cut through tensors
  const std::vector<at::Tensor> inputs = worker_buffers(env.world_size, 51011, 42);
  const at::Tensor want = std::string(which) == "adasum" ? adasum_tree_reference(inputs, numels)
                                                          : at::stack(inputs).mean(0);
  // Both Adasum algorithms (whole-vector doubling, vector halving) over the same processes.
  for (int64_t whole_vector_bytes : {int64_t{1} << 40, int64_t{0}}) {
    at::Tensor mine = inputs[static_cast<size_t>(env.rank)].clone();
    CombinerOptions options;
    options.adasum_whole_vector_bytes = options.adasum_whole_vector_bytes_in_process = whole_vector_bytes;
    make_gradient_combiner(which, options)->combine(comm, mine, numels);
    EXPECT_LT((mine - want).abs().max().item<float>(), 1e-5f)
        << which << " rank " << env.rank << ", whole-vector threshold " << whole_vector_bytes;
  }
}

// The sockets this process listens on (/proc/net/tcp and tcp6 rows in state LISTEN whose inode
// is one of this process's descriptors), each as the kernel prints its local address.
std::vector<std::string> listening_addresses() {
  std::set<std::string> inodes;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  std::vector<std::string> out;
  for (const char* table : {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream row(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      row >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
      if (state == "0A" && inodes.count(inode)) out.push_back(local);
    }
  }
  return out;
}

// 127.0.0.0/8 (tcp: a little-endian word, "0100007F:PORT"), ::1 and ::ffff:127.x.x.x (tcp6).
bool is_loopback_address(const std::string& local) {
  const std::string host = local.substr(0, local.find(':'));
  if (host.size() == 8) return host.substr(6, 2) == "7F";
  return host == "00000000000000000000000001000000" ||
         (host.rfind("0000000000000000FFFF0000", 0) == 0 && host.substr(30, 2) == "7F");
}

// One rank of DataParallelTest.AOneNodeLaunchListensOnLoopbackOnly (PACER_TEST_LISTEN set).
TEST(DistributedRank, ListensOnLoopbackOnly) {
  if (!std::getenv("PACER_TEST_LISTEN")) GTEST_SKIP() << "a rank of AOneNodeLaunchListensOnLoopbackOnly, started by it";
  const DistEnvironment env = DistEnvironment::from_environment();
  C10dCommunicator comm(env, {"gloo", std::chrono::seconds(30)});
  comm.barrier();  // every rank's sockets are up
  for (const std::string& local : listening_addresses()) {
    EXPECT_TRUE(is_loopback_address(local)) << "rank " << env.rank << " listens on " << local;
  }
  comm.barrier();  // none exits while another still looks
}

class DataParallelTest : public testing::CliFixture {};

// A build against a pip LibTorch has no Gloo backend (docs/development.md, "Gloo only with its own
// headers"): the tests of processes over Gloo skip there, saying so.
#define PACER_SKIP_WITHOUT_GLOO()                                                              \
  if (!C10dCommunicator::gloo_available())                                                    \
  GTEST_SKIP() << "built without c10d's Gloo backend (a LibTorch that ships no Gloo headers)"

TEST_F(DataParallelTest, GlooCombinersEqualTheInProcessReference) {
  PACER_SKIP_WITHOUT_GLOO();
  for (const char* combine : {"adasum", "mean"}) {
    for (int world : {2, 3, 4}) {
      const int port = free_port();
      std::vector<pid_t> pids;
      for (int r = 0; r < world; ++r) {
        auto env = rank_env(r, world, port);
        env.push_back(std::string("PACER_TEST_COMBINE=") + combine);
        pids.push_back(start("/proc/" + std::to_string(getpid()) + "/exe --gtest_filter=DistributedRank.*", env,
                             dir_ + "/rank" + std::to_string(r) + ".log"));
      }
      for (int r = 0; r < world; ++r) {
        EXPECT_EQ(wait_exit(pids[static_cast<size_t>(r)]), 0)
            << combine << ", " << world << " ranks, rank " << r << ":\n"
            << testing::read_file(dir_ + "/rank" + std::to_string(r) + ".log");
      }
    }
  }
}

// Columns of eval_measurements.csv by name, one vector per eval.
std::map<std::string, std::vector<double>> read_evals(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  std::stringstream header(line);
  for (std::string name; std::getline(header, name, ',');) names.push_back(name);
  std::map<std::string, std::vector<double>> columns;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string cell;
    for (size_t i = 0; std::getline(row, cell, ',') && i < names.size(); ++i) columns[names[i]].push_back(std::stod(cell));
  }
  return columns;
}

// Round 5, item 14: c10d's TCP store bound every interface ([::], 0.0.0.0) even with master
// address 127.0.0.1. A one-node launch now meets through a file; Gloo's device stays on loopback.
TEST_F(DataParallelTest, AOneNodeLaunchListensOnLoopbackOnly) {
  PACER_SKIP_WITHOUT_GLOO();
  const std::string exe = "/proc/" + std::to_string(getpid()) + "/exe";
  const auto launched = pacer("launch -n 2 -- env PACER_TEST_LISTEN=1 '" + std::filesystem::read_symlink(exe).string() +
                              "' --gtest_filter=DistributedRank.ListensOnLoopbackOnly");
  EXPECT_EQ(launched.code, 0) << launched.out << launched.err;
  EXPECT_EQ(launched.out.find("listens on"), std::string::npos) << launched.out;
  EXPECT_NE(launched.out.find("[  PASSED  ] 1 test"), std::string::npos) << launched.out;
}

TEST_F(DataParallelTest, ProcessesEqualVirtualWorkers) {
  PACER_SKIP_WITHOUT_GLOO();
  struct Case {
    int workers;
    std::string combine;
  };
  for (const Case& c : {Case{2, "--combine adasum"}, Case{3, "--combine mean"}, Case{4, "--combine adasum --adasum-mode delta"}}) {
    const std::string run = "run -w synthetic_regression -a momentum --batch-size 48 --max-steps 40 --eval-every 20 "
                            "--budget 1000 --threads 1 -q --set learning_rate=0.01 " + c.combine;
    const std::string dp = dir_ + "/dp" + std::to_string(c.workers), virt = dir_ + "/v" + std::to_string(c.workers);
    const auto launched = pacer("launch -n " + std::to_string(c.workers) + " -- '" + PACER_BINARY + "' " + run +
                                " --out '" + dp + "'");
    ASSERT_EQ(launched.code, 0) << launched.out << launched.err;
    const auto single = pacer(run + " --virtual-workers " + std::to_string(c.workers) + " --out '" + virt + "'");
    ASSERT_EQ(single.code, 0) << single.out << single.err;
    const auto a = read_evals(dp + "/eval_measurements.csv"), b = read_evals(virt + "/eval_measurements.csv");
    ASSERT_EQ(a.at("global_step").size(), 3u);
    ASSERT_EQ(a.at("global_step"), b.at("global_step"));
    for (const char* column : {"train/loss", "validation/loss", "test/loss"}) {
      for (size_t i = 0; i < a.at(column).size(); ++i) {
        EXPECT_NEAR(a.at(column)[i], b.at(column)[i], 1e-4 * std::abs(b.at(column)[i]))
            << c.combine << " " << c.workers << " workers, " << column << " at eval " << i;
      }
    }
    // The runs trained: the loss moved.
    EXPECT_LT(a.at("validation/loss").back(), a.at("validation/loss").front()) << c.combine;
    // Only rank 0 wrote the trial folder; the others said how they ended.
    EXPECT_NE(launched.out.find("[rank 1] rank 1: finished after 40 steps (max_steps)"), std::string::npos) << launched.out;
  }
}

TEST_F(DataParallelTest, AKilledRankMakesTheOthersFailWithinTheTimeout) {
  PACER_SKIP_WITHOUT_GLOO();
  const int world = 3, port = free_port();
  std::vector<pid_t> pids;
  for (int r = 0; r < world; ++r) {
    pids.push_back(start("'" + std::string(PACER_BINARY) +
                             "' run -w synthetic_regression -a sgd --set learning_rate=0.05 --batch-size 48 --max-steps 100000000 --eval-every 200 --budget 100000 "
                             "--ignore-targets --threads 1 --combine adasum --dist-timeout 20",
                         rank_env(r, world, port), dir_ + "/rank" + std::to_string(r) + ".log"));
  }
  // Wait until rank 0 has logged an eval: the ranks are training together.
  const auto started = std::chrono::steady_clock::now();
  while (testing::read_file(dir_ + "/rank0.log").find("eval step 200") == std::string::npos) {
    ASSERT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(90))
        << testing::read_file(dir_ + "/rank0.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pids[1], SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  EXPECT_NE(wait_exit(pids[0]), 0);
  EXPECT_NE(wait_exit(pids[2]), 0);
  EXPECT_EQ(wait_exit(pids[1]), 128 + SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - killed, std::chrono::seconds(30));
  const std::string rank0 = testing::read_file(dir_ + "/rank0.log");
  EXPECT_NE(rank0.find("rank 0: "), std::string::npos) << rank0;
  EXPECT_NE(rank0.find("failed"), std::string::npos) << rank0;
}

// Ctrl-C at `pacer launch`: forwarded to every rank, which stop together after the current step;
// rank 0 writes what was measured; everything exits 130.
TEST_F(DataParallelTest, LaunchForwardsCtrlCAndTheRanksStopTogether) {
  PACER_SKIP_WITHOUT_GLOO();
  const pid_t launch = start("'" + std::string(PACER_BINARY) + "' launch -n 2 -- '" + PACER_BINARY +
                                 "' run -w synthetic_regression -a sgd --set learning_rate=0.05 --batch-size 48 "
                                 "--max-steps 100000000 --eval-every 200 --budget 100000 --ignore-targets --threads 1 "
                                 "--combine mean --out '" + dir_ + "/interrupted'",
                             {}, dir_ + "/launch.log");
  const auto started = std::chrono::steady_clock::now();
  while (testing::read_file(dir_ + "/launch.log").find("[rank 0] eval step 200") == std::string::npos) {
    ASSERT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(90)) << testing::read_file(dir_ + "/launch.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(launch, SIGINT);
  const auto interrupted = std::chrono::steady_clock::now();
  EXPECT_EQ(wait_exit(launch), 130);
  EXPECT_LT(std::chrono::steady_clock::now() - interrupted, std::chrono::seconds(30));
  const std::string log = testing::read_file(dir_ + "/launch.log");
  EXPECT_NE(log.find("pacer launch: interrupt, forwarding to 2 rank(s)"), std::string::npos) << log;
  EXPECT_NE(log.find("[rank 0] status:              interrupted (interrupted)"), std::string::npos) << log;
  EXPECT_NE(log.find("[rank 1] rank 1: finished after"), std::string::npos) << log;
  const std::string trial = testing::read_file(dir_ + "/interrupted/trial.json");
  EXPECT_NE(trial.find("\"stop_reason\": \"interrupted\""), std::string::npos) << trial;
  EXPECT_NE(testing::read_file(dir_ + "/interrupted/eval_measurements.csv").find(",200,"), std::string::npos);
}

// Two nodes simulated on one machine: one `pacer launch` per node with torchrun's flags; together
// they train as one 2-rank job (equal to 2 virtual workers), and --log-dir keeps each rank's output.
TEST_F(DataParallelTest, TwoLaunchesWithTorchrunFlagsFormOneJob) {
  PACER_SKIP_WITHOUT_GLOO();
  const int port = free_port();
  const std::string run = "run -w synthetic_regression -a momentum --batch-size 48 --max-steps 40 --eval-every 20 "
                          "--budget 1000 --threads 1 -q --set learning_rate=0.01 --combine mean";
  auto node = [&](int rank) {
    return "launch --nnodes 2 --node-rank " + std::to_string(rank) + " --nproc-per-node 1 --master-addr 127.0.0.1 "
           "--master-port " + std::to_string(port) + " --log-dir '" + dir_ + "/logs" + std::to_string(rank) + "' -- '" +
           PACER_BINARY + "' " + run + " --out '" + dir_ + "/node" + std::to_string(rank) + "'";
  };
  // Node 1 first: it waits for node 0's rendezvous instead of failing.
  const pid_t second = start("'" + std::string(PACER_BINARY) + "' " + node(1), {}, dir_ + "/node1.log");
  const auto first = pacer(node(0));
  if (first.code != 0) ::kill(-second, SIGKILL);  // node 1 would wait for a partner that is gone
  const int second_code = wait_exit(second);
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  ASSERT_EQ(second_code, 0) << testing::read_file(dir_ + "/node1.log");
  EXPECT_NE(first.err.find("node 0 of 2, 1 processes (ranks 0-0 of 2)"), std::string::npos) << first.err;
  EXPECT_NE(testing::read_file(dir_ + "/logs1/rank_1.log").find("rank 1: finished after 40 steps"), std::string::npos);
  EXPECT_NE(testing::read_file(dir_ + "/logs0/rank_0.log").find("status:"), std::string::npos);

  const auto single = pacer(run + " --virtual-workers 2 --out '" + dir_ + "/virtual'");
  ASSERT_EQ(single.code, 0) << single.err;
  const auto a = read_evals(dir_ + "/node0/eval_measurements.csv"), b = read_evals(dir_ + "/virtual/eval_measurements.csv");
  ASSERT_EQ(a.at("global_step"), b.at("global_step"));
  for (size_t i = 0; i < a.at("validation/loss").size(); ++i) {
    EXPECT_NEAR(a.at("validation/loss")[i], b.at("validation/loss")[i], 1e-4 * std::abs(b.at("validation/loss")[i]));
  }
}

// A rendezvous that cannot work fails at once with one line (exit 2), before any rank starts.
using testing::input_error_of;

TEST(Rendezvous, TorchrunEndpointsParseAndBadOnesNameWhatIsWrong) {
  RendezvousEndpoint e = parse_rendezvous_endpoint("node0:29400");
  EXPECT_EQ(e.host, "node0");
  EXPECT_EQ(e.port, 29400);
  e = parse_rendezvous_endpoint("[::1]:80");
  EXPECT_EQ(e.host, "::1");
  EXPECT_EQ(e.port, 80);
  e = parse_rendezvous_endpoint("node0");
  EXPECT_FALSE(e.port.has_value());
  EXPECT_EQ(parse_rendezvous_endpoint("[fe80::1]").host, "fe80::1");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"host:70000", "port '70000' is not in 1-65535"}, {"host:", "port '' is not in 1-65535"},
      {"host:+80", "port '+80'"}, {"[::1]x", "expected :PORT after ']'"}, {"[::1", "unclosed '['"},
      {":80", "no host"}, {"host:0", "port '0'"}};
  for (const auto& c : bad) {
    const std::string& text = c.first;  // a named variable: clang's lambdas cannot capture a structured binding
    const std::string& fragment = c.second;
    const std::string message = input_error_of([&] { parse_rendezvous_endpoint(text); });
    EXPECT_NE(message.find("--rdzv-endpoint '" + text + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << text << ": " << message;
  }
}

TEST(Rendezvous, Node0MustServeAnAddressOfThisMachine) {
  EXPECT_EQ(check_rendezvous_address_is_local("127.0.0.1", 29500, true), "");
  EXPECT_NE(input_error_of([] { check_rendezvous_address_is_local("no-such-host.invalid", 1, true); })
                .find("'no-such-host.invalid' does not resolve"),
            std::string::npos);
  // TEST-NET-1 is no address of this machine (unless the kernel lets anything bind): an error on
  // one node, a warning across nodes (a forwarded address can work there).
  if (testing::read_file("/proc/sys/net/ipv4/ip_nonlocal_bind").rfind("0", 0) == 0) {
    EXPECT_NE(input_error_of([] { check_rendezvous_address_is_local("192.0.2.1", 7, true); })
                  .find("'192.0.2.1' (port 7) is not an address of this machine"),
              std::string::npos);
    EXPECT_NE(check_rendezvous_address_is_local("192.0.2.1", 7, false).find("the other nodes must reach it there"),
              std::string::npos);
  }
}

TEST(Rendezvous, OtherNodesWaitForNode0BoundedByTheTimeoutAndStopOnAnInterrupt) {
  std::atomic<int> interrupts{0};
  int waited = 0;
  const int closed = free_loopback_port();  // nobody listens there
  const auto start = std::chrono::steady_clock::now();
  const std::string message =
      input_error_of([&] { wait_for_rendezvous("127.0.0.1", closed, 0.3, interrupts, [&] { ++waited; }); });
  EXPECT_NE(message.find("cannot reach the rendezvous at 127.0.0.1:" + std::to_string(closed)), std::string::npos)
      << message;
  EXPECT_NE(message.find("within 0.3 s"), std::string::npos) << message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(waited, 1);  // announced once, not per attempt
  interrupts = 1;
  EXPECT_FALSE(wait_for_rendezvous("127.0.0.1", closed, 30.0, interrupts));
  // A listening node 0: reached at the first attempt.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  interrupts = 0;
  EXPECT_TRUE(wait_for_rendezvous("127.0.0.1", ntohs(addr.sin_port), 5.0, interrupts));
  ::close(fd);
}

TEST(Rendezvous, EachRankIsToldTorchrunsVariablesWhichDistEnvironmentReadsBack) {
  const LaunchLayout layout{/*processes=*/2, /*nnodes=*/3, /*node_rank=*/1};
  const std::vector<std::string> env = rank_environment(layout, 1, "node0", 29400);
  EXPECT_EQ(env, (std::vector<std::string>{"RANK=3", "WORLD_SIZE=6", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2",
                                           "GROUP_RANK=1", "MASTER_ADDR=node0", "MASTER_PORT=29400"}));
  std::map<std::string, std::string> vars;
  for (const auto& kv : env) vars[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  const DistEnvironment read = DistEnvironment::from_lookup([&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
  EXPECT_EQ(read.rank, 3);
  EXPECT_EQ(read.world_size, 6);
  EXPECT_EQ(read.local_rank, 1);
  EXPECT_EQ(read.local_world_size, 2);
  EXPECT_EQ(read.master_addr, "node0");
  EXPECT_EQ(read.master_port, 29400);
}

// The rendezvous checks are tested in process above (Rendezvous.*); through the binary: each
// refusal comes before any rank starts, and the ranks get torchrun's variables.
TEST_F(DataParallelTest, LaunchRefusesABadRendezvousBeforeStartingRanks) {
  auto r = pacer("launch -n 1 --master-addr no-such-host.invalid -- sh -c 'echo started'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'no-such-host.invalid' does not resolve"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("started"), std::string::npos);
  const auto started = std::chrono::steady_clock::now();
  r = pacer("launch -n 1 --nnodes 2 --node-rank 1 --rdzv-endpoint 127.0.0.1:" + std::to_string(free_port()) +
            " --rdzv-timeout 1 -- sh -c 'echo started'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot reach the rendezvous at 127.0.0.1:"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("started"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(15));  // 1 s, not a library timeout
  EXPECT_EQ(pacer("launch -n 1 --nnodes 2 --node-rank 2 -- true").code, 2);
  EXPECT_EQ(pacer("launch -n 1 --rdzv-endpoint 'host:70000' -- true").code, 2);
  EXPECT_EQ(pacer("launch -n 1 --rdzv-endpoint 127.0.0.1:5 --master-port 6 -- true").code, 2);  // two answers
  // torchrun's spellings, and what each rank is told.
  r = pacer("launch --nproc_per_node 2 --nnodes 1 --node_rank 0 --rdzv_endpoint 127.0.0.1:" + std::to_string(free_port()) +
            " -- sh -c 'echo $RANK/$WORLD_SIZE local $LOCAL_RANK/$LOCAL_WORLD_SIZE group $GROUP_RANK'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("[rank 1] 1/2 local 1/2 group 0"), std::string::npos) << r.out;
}

// Ranks whose initial parameters differ: in-process now (RankSync.DifferentInitialParametersFailOnEveryRank
// in trial_loop_test.cpp), the same check the processes run.

// What `pacer launch` does, in process (dist/rank_launcher): the command only binds options.
std::string read_all(std::FILE* f) {
  std::rewind(f);
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), f)) > 0;) text.append(buffer, n);
  return text;
}

struct CapturedLaunch {
  std::FILE* out = std::tmpfile();
  std::FILE* messages = std::tmpfile();
  ~CapturedLaunch() {
    std::fclose(out);
    std::fclose(messages);
  }
  LaunchRequest request(int processes, const std::string& shell) const {
    LaunchRequest r;
    r.layout.processes = processes;
    r.command = {"sh", "-c", shell};
    r.output = out;
    r.messages = messages;
    return r;
  }
};

TEST(LaunchRanks, OneFailingRankStopsTheOthersAndItsStatusIsTheResult) {
  CapturedLaunch io;
  LaunchRequest r = io.request(3, "echo hello from $RANK of $WORLD_SIZE; if [ \"$RANK\" = 1 ]; then sleep 0.5; exit 3; fi; "
                                  "sleep 60");  // the others print first
  r.grace_sec = 2;
  const auto start_time = std::chrono::steady_clock::now();
  EXPECT_EQ(launch_ranks(r), 3);
  EXPECT_LT(std::chrono::steady_clock::now() - start_time, std::chrono::seconds(20));  // not the others' 60 s
  const std::string out = read_all(io.out), messages = read_all(io.messages);
  EXPECT_NE(out.find("[rank 1] hello from 1 of 3"), std::string::npos) << out;
  EXPECT_NE(out.find("[rank 2] hello from 2 of 3"), std::string::npos) << out;
  EXPECT_NE(messages.find("rank 1 exited with status 3; stopping the other ranks"), std::string::npos) << messages;
  EXPECT_NE(messages.find("failed (exit status by rank: 0:"), std::string::npos) << messages;
}

TEST(LaunchRanks, EachRankIsToldItsPlaceAndItsLinesGoToItsLogFile) {
  CapturedLaunch io;
  const std::string dir = ::testing::TempDir() + "/launch_logs_" + std::to_string(::getpid());
  LaunchRequest r = io.request(2, "echo $RANK/$WORLD_SIZE local $LOCAL_RANK group $GROUP_RANK at $MASTER_ADDR");
  r.layout.nnodes = 1;
  r.log_dir = dir;
  EXPECT_EQ(launch_ranks(r), 0);
  const std::string out = read_all(io.out), messages = read_all(io.messages);
  EXPECT_NE(out.find("[rank 0] 0/2 local 0 group 0 at 127.0.0.1"), std::string::npos) << out;
  EXPECT_NE(out.find("[rank 1] 1/2 local 1 group 0 at 127.0.0.1"), std::string::npos) << out;
  EXPECT_EQ(testing::read_file(dir + "/rank_1.log"), "1/2 local 1 group 0 at 127.0.0.1\n");
  EXPECT_NE(messages.find("pacer launch: 2 processes, rendezvous 127.0.0.1:"), std::string::npos) << messages;
  // An interrupt counted before the ranks start reaches the supervisor as one to forward: the
  // ranks get SIGINT and the launch ends without waiting out their sleep.
  std::atomic<int> interrupts{0};
  LaunchRequest slow = io.request(2, "sleep 30");
  slow.interrupts = &interrupts;
  slow.grace_sec = 1;
  std::thread press([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    interrupts = 1;
  });
  const auto start_time = std::chrono::steady_clock::now();
  EXPECT_NE(launch_ranks(slow), 0);
  press.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start_time, std::chrono::seconds(15));
  EXPECT_NE(read_all(io.messages).find("interrupt, forwarding to 2 rank(s)"), std::string::npos);
}

TEST(LaunchRanks, BadRequestsAreRefusedBeforeAnyRankStarts) {
  CapturedLaunch io;
  const std::string marker = "echo started";
  LaunchRequest r = io.request(1, marker);
  r.layout.nnodes = 2;
  r.layout.node_rank = 2;
  EXPECT_NE(input_error_of([&] { launch_ranks(r); }).find("--node-rank 2: must be below --nnodes 2"), std::string::npos);
  r = io.request(1, marker);
  r.command.clear();
  EXPECT_NE(input_error_of([&] { launch_ranks(r); }).find("no command"), std::string::npos);
  r = io.request(1, marker);
  r.rdzv_endpoint = "host:70000";
  EXPECT_NE(input_error_of([&] { launch_ranks(r); }).find("--rdzv-endpoint"), std::string::npos);
  r = io.request(2, marker);
  r.log_dir = "/proc/no-such-folder";
  EXPECT_NE(input_error_of([&] { launch_ranks(r); }).find("--log-dir: cannot write /proc/no-such-folder/rank_0.log"),
            std::string::npos);
  r = io.request(1, marker);
  r.command = {"/nonexistent/program"};
  EXPECT_NE(input_error_of([&] { launch_ranks(r); }).find("/nonexistent/program"), std::string::npos);
  EXPECT_EQ(read_all(io.out).find("started"), std::string::npos);
}

TEST_F(DataParallelTest, BadDataParallelOptionsAreInputErrors) {
  auto r = pacer("run -w synthetic_regression -a sgd --combine median --max-steps 2 -q");
  EXPECT_EQ(r.code, 2);
  r = pacer("run -w synthetic_regression -a sgd --combine mean --virtual-workers 5 --max-steps 2 -q");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("does not split into 5"), std::string::npos) << r.err;
  r = pacer("run -w synthetic_regression -a sgd --combine mean --adasum-mode delta --max-steps 2 -q");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--adasum-mode delta needs --combine adasum"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pacer
