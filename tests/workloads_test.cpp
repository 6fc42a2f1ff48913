// The benchmark suite's workloads: every registered model's shapes and parameter types, the SSIM
// metric against golden values from an independent numpy transcription of AlgoPerf's
// (tools/golden/generate_ssim_golden.py), the k-space undersampling, the fortunes corpus (splits,
// determinism, no leaks, bad input), the LM's cross-entropy, batch-norm model state (train vs
// eval, a serialization round trip, the mean over data-parallel ranks), and the suites.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "data/fortunes_corpus.h"
#include "data/kspace_undersampling.h"
#include "distributed/in_process_communicator.h"
#include "models/resnet.h"
#include "models/unet.h"
#include "train/model_state_sync.h"
#include "workloads/language_model_workload.h"
#include "workloads/reconstruction_workload.h"
#include "workloads/registry.h"
#include "workloads/ssim.h"
#include "catalog/suites.h"
#include "workloads/workload.h"

namespace {

namespace fs = std::filesystem;

// Inputs of the right kind for a workload's model, without loading its data.
at::Tensor sample_inputs(const pacer::WorkloadSpec& spec, int64_t n) {
  if (spec.modality == "language modelling") return at::randint(0, 256, {n, 64}, at::kLong);
  if (spec.modality == "regression") return at::randn({n, 32});
  return at::rand({n, 1, 28, 28});
}

std::vector<int64_t> expected_output_shape(const pacer::WorkloadSpec& spec, int64_t n) {
  if (spec.modality == "language modelling") return {n, 64, 256};
  if (spec.modality == "regression") return {n, 1};
  if (spec.modality == "image reconstruction") return {n, 1, 28, 28};
  return {n, 10};
}

TEST(Workloads, EveryModelHasTheRightShapesAndParameterTypes) {
  for (const auto& spec : pacer::workload_specs()) {
    SCOPED_TRACE(spec.name);
    EXPECT_FALSE(spec.modality.empty());
    auto workload = pacer::create_workload(spec.name);
    auto net = workload->init_model(1, at::kCPU);
    const auto params = net->parameters();
    const auto types = net->param_types();
    ASSERT_EQ(types.size(), params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      // A type must fit its tensor: this catches a param_types() list out of parameters() order.
      const auto t = types[i];
      const int64_t dim = params[i].dim();
      if (t == pacer::ParamType::conv_weight) {
        EXPECT_EQ(dim, 4) << i;
      }
      if (t == pacer::ParamType::weight || t == pacer::ParamType::embedding) {
        EXPECT_GE(dim, 2) << i;
      }
      if (t == pacer::ParamType::bias || t == pacer::ParamType::layer_norm_scale ||
          t == pacer::ParamType::layer_norm_bias || t == pacer::ParamType::batch_norm_scale ||
          t == pacer::ParamType::batch_norm_bias) {
        EXPECT_EQ(dim, 1) << i << " " << pacer::to_string(t);
      }
    }
    for (bool training : {true, false}) {
      net->train(training);
      at::Tensor out = workload->model_fn(*net, sample_inputs(spec, 3), training ? pacer::ForwardMode::train
                                                                                 : pacer::ForwardMode::eval,
                                          training ? 0.1 : 0.0);
      EXPECT_EQ(out.sizes().vec(), expected_output_shape(spec, 3));
      EXPECT_TRUE(out.isfinite().all().item<bool>());
    }
  }
}

TEST(Workloads, SameSeedSameInitialModel) {
  for (const char* name : {"fmnist_resnet", "fmnist_vit", "fmnist_recon", "fortunes_lm"}) {
    auto w = pacer::create_workload(name);
    auto a = w->init_model(7, at::kCPU), b = w->init_model(7, at::kCPU), c = w->init_model(8, at::kCPU);
    bool differs = false;
    for (size_t i = 0; i < a->parameters().size(); ++i) {
      EXPECT_TRUE(a->parameters()[i].equal(b->parameters()[i])) << name;
      differs = differs || !a->parameters()[i].equal(c->parameters()[i]);
    }
    EXPECT_TRUE(differs) << name;
  }
}

TEST(Workloads, VariantsChangeTheModel) {
  auto count = [](const char* name) {
    int64_t n = 0;
    for (const auto& p : pacer::create_workload(name)->init_model(1, at::kCPU)->parameters()) n += p.numel();
    return n;
  };
  EXPECT_GT(count("fmnist_vit_glu"), count("fmnist_vit"));      // a gate matrix per block
  EXPECT_LT(count("fortunes_lm_rmsnorm"), count("fortunes_lm"));  // no norm biases
  EXPECT_GT(count("fmnist_recon_layernorm"), count("fmnist_recon"));
  auto large = pacer::create_workload("fmnist_resnet_large_bn_init")->init_model(1, at::kCPU);
  auto base = pacer::create_workload("fmnist_resnet")->init_model(1, at::kCPU);
  EXPECT_DOUBLE_EQ(large->named_parameters()["stage0_block0_bn2.weight"].max().item<double>(), 8.0);
  EXPECT_DOUBLE_EQ(base->named_parameters()["stage0_block0_bn2.weight"].abs().max().item<double>(), 0.0);
}

// The catalog declares each workload's options with defaults (catalog/workload_specs.cpp, no
// torch); the models have their own defaults (src/models/*.h). Giving every option its declared
// default must build the very model built without options: same parameters, same outputs.
TEST(Workloads, DeclaredDefaultsAreTheModelsOwn) {
  int checked = 0;
  for (const auto& spec : pacer::workload_specs()) {
    if (spec.options.empty()) continue;
    pacer::WorkloadOptions defaults;
    for (const auto& option : spec.options) defaults[option.name] = option.default_value;
    const auto plain = pacer::create_workload(spec.name)->init_model(7, at::kCPU);
    const auto declared = pacer::create_workload(spec.name, defaults)->init_model(7, at::kCPU);
    const auto a = plain->named_parameters(), b = declared->named_parameters();
    ASSERT_EQ(a.size(), b.size()) << spec.name;
    for (const auto& p : a) {
      ASSERT_NE(b.find(p.key()), nullptr) << spec.name << " " << p.key();
      EXPECT_TRUE(at::equal(p.value(), b[p.key()])) << spec.name << " " << p.key();
    }
    // The activation shows only in the outputs.
    const bool tokens = spec.modality == "language modelling";
    const at::Tensor inputs = tokens ? at::arange(128, at::kLong).remainder(256).view({2, 64})
                                     : at::linspace(-1.0, 1.0, 2 * 28 * 28).view({2, 1, 28, 28});
    EXPECT_TRUE(at::equal(plain->forward(inputs, 0.0), declared->forward(inputs, 0.0))) << spec.name;
    ++checked;
  }
  EXPECT_EQ(checked, 16);  // every shipped workload but the synthetic one declares options
}

// ---- SSIM

TEST(Ssim, MatchesTheReferenceTranscription) {
  std::ifstream in(std::string(PACER_SOURCE_DIR) + "/tests/golden/ssim.json");
  ASSERT_TRUE(in) << "tests/golden/ssim.json missing";
  const auto golden = nlohmann::json::parse(in);
  ASSERT_GE(golden["cases"].size(), 5u);
  for (const auto& c : golden["cases"]) {
    const int64_t h = c["height"], w = c["width"];
    at::Tensor prediction = at::tensor(c["prediction"].get<std::vector<double>>(), at::kDouble).view({1, h, w});
    at::Tensor target = at::tensor(c["target"].get<std::vector<double>>(), at::kDouble).view({1, h, w});
    const double expected = c["ssim"];
    EXPECT_NEAR(pacer::ssim_per_image(prediction, target).item<double>(), expected, 2e-6) << h << "x" << w;
  }
}

TEST(Ssim, BatchesAndRejectsBadShapes) {
  at::Tensor y = at::rand({4, 1, 28, 28});
  at::Tensor s = pacer::ssim_per_image(y, y);
  EXPECT_EQ(s.sizes().vec(), std::vector<int64_t>{4});
  EXPECT_TRUE(at::allclose(s, at::ones({4}), 1e-6, 1e-6));
  at::Tensor noisy = y + 0.3 * at::randn_like(y);
  EXPECT_TRUE((pacer::ssim_per_image(noisy, y) < 0.9).all().item<bool>());
  EXPECT_THROW(pacer::ssim_per_image(at::rand({2, 5, 5}), at::rand({2, 5, 5})), pacer::Error);
  EXPECT_THROW(pacer::ssim_per_image(at::rand({2, 8, 8}), at::rand({2, 9, 8})), pacer::Error);
}

// ---- k-space

TEST(Kspace, MaskKeepsTheLowFrequencyBandAndAQuarterOfTheColumns) {
  at::Tensor mask = pacer::kspace_column_mask(28, {0.08, 4}, 7);
  EXPECT_EQ(mask.sum().item<float>(), 7.0f);
  EXPECT_EQ(mask[0].item<float>(), 1.0f);  // frequency 0
  EXPECT_TRUE(mask.equal(pacer::kspace_column_mask(28, {0.08, 4}, 7)));
  EXPECT_FALSE(mask.equal(pacer::kspace_column_mask(28, {0.08, 4}, 8)));
  at::Tensor full = at::ones({28});
  at::Tensor images = at::rand({3, 1, 28, 28});
  EXPECT_TRUE(at::allclose(pacer::zero_filled_reconstruction(images, full), images, 1e-5, 1e-5));
  at::Tensor under = pacer::zero_filled_reconstruction(images, mask);
  EXPECT_EQ(under.sizes(), images.sizes());
  EXPECT_FALSE(at::allclose(under, images, 1e-2, 1e-2));
}

// ---- fortunes corpus

class FortunesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: load_fortunes_corpus caches by folder for the process's lifetime.
    dir_ = fs::temp_directory_path() / ("pacer_fortunes_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name, std::ios::binary) << text; }
  fs::path dir_;
};

TEST_F(FortunesTest, SplitsWholeFortunesDeterministically) {
  EXPECT_EQ(pacer::split_fortunes("a\nb\n%\nc\n%\n\n%\nd"), (std::vector<std::string>{"a\nb", "c", "d"}));
  std::string a, b;
  for (int i = 0; i < 30; ++i) a += "fortune A" + std::to_string(i) + " is here and it is long enough\n%\n";
  for (int i = 0; i < 30; ++i) b += "fortune B" + std::to_string(i) + " says something else again\n%\n";
  write("a", a);
  write("b", b);
  write("a.dat", std::string("\0\0binary", 8));  // index files are skipped
  fs::create_symlink(dir_ / "a", dir_ / "a.u8");  // so are links
  const auto& corpus = pacer::load_fortunes_corpus(dir_.string(), 16);
  EXPECT_EQ(corpus.files, 2);
  EXPECT_EQ(corpus.fortunes, 60);
  // 60 fortunes: positions 0, 20, 40 -> test; 10, 30, 50 -> validation.
  auto text = [](const pacer::TensorDataset& d) {
    std::string s;
    at::Tensor all = at::cat({d.inputs.narrow(1, 0, 1), d.targets}, 1);  // windows do not overlap
    for (int64_t i = 0; i < all.numel(); ++i) s += static_cast<char>(all.view({-1})[i].item<int64_t>());
    return s;
  };
  const std::string test = text(corpus.test), validation = text(corpus.validation), train = text(corpus.train);
  EXPECT_NE(test.find("fortune A0 "), std::string::npos);
  EXPECT_NE(validation.find("fortune A10 "), std::string::npos);
  EXPECT_EQ(train.find("fortune A0 "), std::string::npos);
  EXPECT_EQ(train.find("fortune A10 "), std::string::npos);
  EXPECT_NE(train.find("fortune A1 "), std::string::npos);
  EXPECT_EQ(corpus.train.inputs.size(1), 16);
  EXPECT_TRUE(corpus.train.inputs.narrow(1, 1, 15).equal(corpus.train.targets.narrow(1, 0, 15)));
  EXPECT_EQ(corpus.train.size(), corpus.train_bytes / 17);
}

TEST_F(FortunesTest, BadInputNamesTheCulprit) {
  try {
    pacer::load_fortunes_corpus((dir_ / "missing").string(), 16);
    FAIL();
  } catch (const pacer::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);
  }
  write("binary", std::string("abc\0def\n%\n", 10));
  try {
    pacer::load_fortunes_corpus(dir_.string(), 16);
    FAIL();
  } catch (const pacer::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("binary"), std::string::npos);
  }
  fs::remove(dir_ / "binary");
  write("tiny", "one\n%\ntwo\n");
  EXPECT_THROW(pacer::load_fortunes_corpus(dir_.string(), 16), pacer::InputError);
}

TEST(FortunesCorpus, TheDebianCorpusSplits) {
  const std::string dir = pacer::resolve_fortunes_dir("");
  if (!fs::exists(dir)) GTEST_SKIP() << "Debian's fortunes package is not installed (scripts/setup.sh installs it)";
  const auto& corpus = pacer::load_fortunes_corpus(dir, 64);
  const double total = static_cast<double>(corpus.train_bytes + corpus.validation_bytes + corpus.test_bytes);
  EXPECT_GT(total, 2.0e6);
  EXPECT_NEAR(corpus.validation_bytes / total, 0.05, 0.01);
  EXPECT_NEAR(corpus.test_bytes / total, 0.05, 0.01);
  EXPECT_GT(corpus.train.size(), 25000);
}

// ---- LM loss

TEST(LanguageModel, CrossEntropyOfAKnownString) {
  auto workload = pacer::create_workload("fortunes_lm");
  const std::string text = "hello, world";
  at::Tensor targets = at::empty({1, static_cast<int64_t>(text.size())}, at::kLong);
  for (size_t i = 0; i < text.size(); ++i) targets[0][static_cast<int64_t>(i)] = static_cast<unsigned char>(text[i]);
  // Uniform logits: ln 256 nats per byte, whatever the string.
  at::Tensor uniform = at::zeros({1, static_cast<int64_t>(text.size()), 256});
  EXPECT_NEAR(workload->loss_fn(targets, uniform, {}, 0.0).mean().item<double>(), std::log(256.0), 1e-5);
  // Logits of 10 on the right byte: -log(e^10 / (e^10 + 255)) per byte.
  at::Tensor sure = uniform.clone();
  sure.scatter_(2, targets.unsqueeze(2), 10.0);
  const double expected = -std::log(std::exp(10.0) / (std::exp(10.0) + 255.0));
  EXPECT_NEAR(workload->loss_fn(targets, sure, {}, 0.0).mean().item<double>(), expected, 1e-5);
  // Label smoothing 0.1: (1 - 0.1) * CE + 0.1 * mean over the classes of -log p.
  const double log_z = std::log(std::exp(10.0) + 255.0);
  const double smooth = 0.9 * expected + 0.1 * ((log_z - 10.0) + 255.0 * log_z) / 256.0;
  EXPECT_NEAR(workload->loss_fn(targets, sure, {}, 0.1).mean().item<double>(), smooth, 1e-5);
}

// ---- batch-norm model state

TEST(BatchNormState, TrainUpdatesStatisticsEvalUsesThem) {
  auto net = std::make_shared<pacer::ResNet>(pacer::ResNetOptions{});
  at::Tensor x = at::rand({16, 1, 28, 28}) * 3 + 1;
  const auto before = net->named_buffers()["stem_bn.running_mean"].clone();
  net->train();
  net->forward(x, 0.0);
  EXPECT_FALSE(net->named_buffers()["stem_bn.running_mean"].equal(before));
  // In eval mode an example's output does not depend on the rest of its batch; in training it does.
  net->eval();
  const auto stats = net->named_buffers()["stem_bn.running_mean"].clone();
  at::Tensor alone = net->forward(x.narrow(0, 0, 1), 0.0);
  at::Tensor in_batch = net->forward(x, 0.0).narrow(0, 0, 1);
  EXPECT_TRUE(at::allclose(alone, in_batch, 1e-5, 1e-5));
  EXPECT_TRUE(net->named_buffers()["stem_bn.running_mean"].equal(stats));  // eval leaves the state alone
  net->train();
  EXPECT_FALSE(at::allclose(net->forward(x.narrow(0, 0, 2), 0.0).narrow(0, 0, 1), net->forward(x, 0.0).narrow(0, 0, 1),
                            1e-4, 1e-4));
}

TEST(BatchNormState, SurvivesASerializationRoundTrip) {
  auto net = std::make_shared<pacer::ResNet>(pacer::ResNetOptions{});
  net->train();
  for (int i = 0; i < 3; ++i) net->forward(at::rand({8, 1, 28, 28}) * 2, 0.0);
  const std::string path = (fs::temp_directory_path() / ("pacer_bn_" + std::to_string(::getpid()) + ".pt")).string();
  {
    torch::serialize::OutputArchive archive;
    net->save(archive);
    archive.save_to(path);
  }
  at::manual_seed(99);
  auto restored = std::make_shared<pacer::ResNet>(pacer::ResNetOptions{});
  {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    restored->load(archive);
  }
  fs::remove(path);
  auto a = net->named_buffers(), b = restored->named_buffers();
  ASSERT_EQ(a.size(), b.size());
  for (const auto& item : a) EXPECT_TRUE(item.value().equal(b[item.key()])) << item.key();
  net->eval();
  restored->eval();
  at::Tensor x = at::rand({4, 1, 28, 28});
  EXPECT_TRUE(net->forward(x, 0.0).equal(restored->forward(x, 0.0)));
}

TEST(BatchNormState, RanksEvaluateWithTheMeanOfTheirStatistics) {
  std::vector<std::shared_ptr<pacer::ResNet>> nets;
  for (int r = 0; r < 2; ++r) {
    at::manual_seed(1);
    nets.push_back(std::make_shared<pacer::ResNet>(pacer::ResNetOptions{}));
    nets.back()->train();
    nets.back()->forward(at::rand({8, 1, 28, 28}) * (r + 1), 0.0);  // different shards, different statistics
  }
  const at::Tensor mean = (nets[0]->named_buffers()["stem_bn.running_var"] + nets[1]->named_buffers()["stem_bn.running_var"]) / 2;
  const at::Tensor steps = nets[0]->named_buffers()["stem_bn.num_batches_tracked"].clone();
  pacer::run_in_process(2, [&](pacer::Communicator& comm) {
    EXPECT_GT(pacer::average_model_state(comm, *nets[static_cast<size_t>(comm.rank())]), 0);
  });
  EXPECT_TRUE(at::allclose(nets[0]->named_buffers()["stem_bn.running_var"], mean, 1e-6, 1e-6));
  EXPECT_TRUE(nets[0]->named_buffers()["stem_bn.running_var"].equal(nets[1]->named_buffers()["stem_bn.running_var"]));
  EXPECT_TRUE(nets[0]->named_buffers()["stem_bn.num_batches_tracked"].equal(steps));  // integers untouched
}

// ---- data of the new workloads (real Fashion-MNIST)

TEST(Reconstruction, SplitsAreDeterministicUndersampledImages) {
  auto a = pacer::create_workload("fmnist_recon");
  a->load({});
  EXPECT_EQ(a->dataset(pacer::EvalSplit::train).size(), 50000);
  EXPECT_EQ(a->dataset(pacer::EvalSplit::validation).size(), pacer::FashionMnistReconstructionWorkload::kEvalExamples);
  EXPECT_EQ(a->dataset(pacer::EvalSplit::test).size(), pacer::FashionMnistReconstructionWorkload::kEvalExamples);
  const auto& v = a->dataset(pacer::EvalSplit::validation);
  EXPECT_GE(v.targets.min().item<float>(), -1e-6f);
  EXPECT_LE(v.targets.max().item<float>(), 1.0f + 1e-6f);
  // The zero-filled input is a degraded image: SSIM well below 1, well above noise.
  const double input_ssim = pacer::ssim_per_image(v.inputs.narrow(0, 0, 200), v.targets.narrow(0, 0, 200)).mean().item<double>();
  EXPECT_GT(input_ssim, 0.2);
  EXPECT_LT(input_ssim, 0.9);
  auto b = pacer::create_workload("fmnist_recon_tanh");
  b->load({});
  EXPECT_TRUE(b->dataset(pacer::EvalSplit::validation).inputs.equal(v.inputs));
  const auto metrics = a->evaluate(*a->init_model(1, at::kCPU), pacer::EvalSplit::validation);
  EXPECT_EQ(metrics.at("num_examples"), pacer::FashionMnistReconstructionWorkload::kEvalExamples);
  EXPECT_TRUE(metrics.count("ssim") && metrics.count("loss"));
}

// ---- suites

TEST(Suites, SmallHoldsEveryBaseWorkloadOnce) {
  const auto& small = pacer::workload_suite("small");
  std::set<std::string> names(small.begin(), small.end());
  EXPECT_EQ(names.size(), small.size());
  for (const auto& spec : pacer::workload_specs()) EXPECT_EQ(names.count(spec.name), spec.is_variant() ? 0u : 1u) << spec.name;
  for (const char* name : {"fmnist_resnet", "fmnist_vit", "fmnist_recon", "fortunes_lm"}) EXPECT_EQ(names.count(name), 1u);
  for (const auto& v : pacer::workload_suite("variants")) EXPECT_TRUE(pacer::workload_spec(v).is_variant()) << v;
  EXPECT_EQ(pacer::workload_suite("all").size(), pacer::workload_specs().size());
  EXPECT_THROW(pacer::workload_suite("nope"), pacer::InputError);
}

TEST(Suites, HeldOutDrawIsOneVariantPerBaseAndRepeatable) {
  const auto& small = pacer::workload_suite("small");
  const auto drawn = pacer::draw_held_out_variants(small, 42);
  EXPECT_EQ(drawn, pacer::draw_held_out_variants(small, 42));
  std::set<std::string> bases;
  for (const auto& name : drawn) {
    const auto& spec = pacer::workload_spec(name);
    ASSERT_TRUE(spec.is_variant()) << name;
    EXPECT_TRUE(bases.insert(spec.base_workload).second) << "two variants of " << spec.base_workload;
  }
  size_t with_variants = 0;
  for (const auto& name : small) with_variants += pacer::workload_variants(name).empty() ? 0 : 1;
  EXPECT_EQ(drawn.size(), with_variants);
  bool some_seed_differs = false;
  for (uint64_t seed = 0; seed < 20 && !some_seed_differs; ++seed)
    some_seed_differs = pacer::draw_held_out_variants(small, seed) != drawn;
  EXPECT_TRUE(some_seed_differs);
}

}  // namespace
