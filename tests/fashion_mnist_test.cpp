// Tests of the Fashion-MNIST loader (src/data/fashion_mnist.h): split sizes and shapes, the
// normalization with training-split statistics, the validation split being the tail of the
// official training file, data-folder resolution and errors for broken folders.
#include "data/fashion_mnist.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "data/idx_reader.h"

namespace {

namespace fs = std::filesystem;

const std::string kDir = pacer::kDefaultFashionMnistDir;

bool dataset_present() {
  for (const char* f : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
                        "t10k-labels-idx1-ubyte.gz"}) {
    if (!fs::exists(fs::path(kDir) / f)) return false;
  }
  return true;
}

#define SKIP_WITHOUT_DATASET() \
  if (!dataset_present()) GTEST_SKIP() << "Fashion-MNIST is not installed in " << kDir

at::Tensor labels_tensor(const pacer::IdxArray& a) {
  return at::from_blob(const_cast<uint8_t*>(a.data.data()), {static_cast<int64_t>(a.data.size())}, at::kByte)
      .to(at::kLong);
}

TEST(FashionMnist, SplitSizesShapesAndTypes) {
  SKIP_WITHOUT_DATASET();
  const auto& data = pacer::load_fashion_mnist(kDir);
  EXPECT_EQ(data.train.size(), 50000);
  EXPECT_EQ(data.validation.size(), 10000);
  EXPECT_EQ(data.test.size(), 10000);
  EXPECT_EQ(data.num_classes, 10);
  for (const auto* split : {&data.train, &data.validation, &data.test}) {
    const int64_t n = split->size();
    EXPECT_EQ(split->inputs.sizes(), at::IntArrayRef({n, 1, 28, 28}));
    EXPECT_EQ(split->inputs.scalar_type(), at::kFloat);
    EXPECT_TRUE(split->inputs.is_contiguous());
    EXPECT_EQ(split->targets.sizes(), at::IntArrayRef({n}));
    EXPECT_EQ(split->targets.scalar_type(), at::kLong);
    EXPECT_GE(split->targets.min().item<int64_t>(), 0);
    EXPECT_LE(split->targets.max().item<int64_t>(), 9);
  }
}

TEST(FashionMnist, CachedPerFolder) {
  SKIP_WITHOUT_DATASET();
  const auto& a = pacer::load_fashion_mnist(kDir);
  const auto& b = pacer::load_fashion_mnist(kDir);
  EXPECT_EQ(&a, &b);
}

TEST(FashionMnist, NormalizedWithTrainingStatistics) {
  SKIP_WITHOUT_DATASET();
  const auto& data = pacer::load_fashion_mnist(kDir);
  const at::Tensor x = data.train.inputs.to(at::kDouble);
  EXPECT_NEAR(x.mean().item<double>(), 0.0, 1e-4);
  EXPECT_NEAR(x.std().item<double>(), 1.0, 1e-4);
  // The recorded statistics are those of pixels in [0, 1] (Fashion-MNIST: about 0.286 and 0.353).
  EXPECT_NEAR(data.pixel_mean, 0.286, 0.01);
  EXPECT_NEAR(data.pixel_std, 0.353, 0.01);
  // Validation and test use the training statistics, not their own: a raw pixel of 0 maps to the
  // same value everywhere.
  const double zero = -data.pixel_mean / data.pixel_std;
  EXPECT_NEAR(data.validation.inputs.min().item<double>(), zero, 1e-5);
  EXPECT_NEAR(data.test.inputs.min().item<double>(), zero, 1e-5);
  EXPECT_NEAR(data.train.inputs.max().item<double>(), (1.0 - data.pixel_mean) / data.pixel_std, 1e-4);
}

TEST(FashionMnist, ValidationIsTheTailOfTheOfficialTrainingFile) {
  SKIP_WITHOUT_DATASET();
  const auto& data = pacer::load_fashion_mnist(kDir);
  const pacer::IdxArray raw_labels = pacer::read_idx_file(kDir + "/train-labels-idx1-ubyte.gz");
  ASSERT_EQ(raw_labels.dims, (std::vector<int64_t>{60000}));
  const at::Tensor all = labels_tensor(raw_labels);
  EXPECT_TRUE(at::equal(data.train.targets, all.narrow(0, 0, 50000)));
  EXPECT_TRUE(at::equal(data.validation.targets, all.narrow(0, 50000, 10000)));

  const pacer::IdxArray raw_test = pacer::read_idx_file(kDir + "/t10k-labels-idx1-ubyte.gz");
  EXPECT_TRUE(at::equal(data.test.targets, labels_tensor(raw_test)));

  // The images too: validation image i is official training image 50000 + i, normalized.
  const pacer::IdxArray raw_images = pacer::read_idx_file(kDir + "/train-images-idx3-ubyte.gz");
  ASSERT_EQ(raw_images.dims, (std::vector<int64_t>{60000, 28, 28}));
  auto image = [&](int64_t i) {
    at::Tensor bytes = at::from_blob(const_cast<uint8_t*>(raw_images.data.data()) + i * 784, {1, 28, 28}, at::kByte);
    return ((bytes.to(at::kFloat) / 255.0 - data.pixel_mean) / data.pixel_std);
  };
  for (int64_t i : {int64_t{0}, int64_t{4321}, int64_t{9999}}) {
    EXPECT_TRUE(at::allclose(data.validation.inputs[i], image(50000 + i), 1e-5, 1e-5)) << "validation image " << i;
  }
  EXPECT_TRUE(at::allclose(data.train.inputs[0], image(0), 1e-5, 1e-5));
  EXPECT_TRUE(at::allclose(data.train.inputs[49999], image(49999), 1e-5, 1e-5));
}

// Sets or unsets an environment variable for the scope of a test, restoring the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(FashionMnist, ResolveDataDirPrecedence) {
  {
    ScopedEnv env(pacer::kDataDirEnv, nullptr);
    EXPECT_EQ(pacer::resolve_data_dir(""), "/usr/share/datasets/fashion-mnist");
    EXPECT_EQ(pacer::resolve_data_dir("/from/flag"), "/from/flag");
  }
  {
    ScopedEnv env(pacer::kDataDirEnv, "/from/env");
    EXPECT_EQ(pacer::resolve_data_dir(""), "/from/env");
    EXPECT_EQ(pacer::resolve_data_dir("/from/flag"), "/from/flag");
  }
  {
    ScopedEnv env(pacer::kDataDirEnv, "");  // set but empty: as if unset
    EXPECT_EQ(pacer::resolve_data_dir(""), "/usr/share/datasets/fashion-mnist");
  }
}

class FashionMnistFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::path(::testing::TempDir()) / "fashion_mnist_test_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Writes a gzip IDX file of unsigned bytes with the given dims, every byte = `fill`.
  void write_idx(const std::string& name, const std::vector<uint32_t>& dims, uint8_t fill) {
    std::vector<uint8_t> bytes = {0, 0, 0x08, static_cast<uint8_t>(dims.size())};
    size_t total = 1;
    for (uint32_t d : dims) {
      for (int s = 24; s >= 0; s -= 8) bytes.push_back(static_cast<uint8_t>(d >> s));
      total *= d;
    }
    bytes.resize(bytes.size() + total, fill);
    gzFile f = gzopen((dir_ + "/" + name).c_str(), "wb1");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
    ASSERT_EQ(gzclose(f), Z_OK);
  }

  void expect_error_naming(const std::string& file, const std::string& expected = "") {
    try {
      pacer::load_fashion_mnist(dir_);
      ADD_FAILURE() << "expected pacer::InputError naming " << file;
    } catch (const pacer::InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(dir_ + "/" + file), std::string::npos) << msg;
      if (!expected.empty()) {
        EXPECT_NE(msg.find(expected), std::string::npos) << msg;
      }
    }
  }

  std::string dir_;
};

TEST_F(FashionMnistFolderTest, EmptyFolderNamesTheMissingFile) {
  expect_error_naming("train-images-idx3-ubyte.gz");
}

TEST_F(FashionMnistFolderTest, MissingLabelFileIsNamed) {
  write_idx("train-images-idx3-ubyte.gz", {20, 28, 28}, 1);
  expect_error_naming("train-labels-idx1-ubyte.gz");
}

TEST_F(FashionMnistFolderTest, LabelCountMismatchIsNamed) {
  write_idx("train-images-idx3-ubyte.gz", {20, 28, 28}, 1);
  write_idx("train-labels-idx1-ubyte.gz", {19}, 3);
  expect_error_naming("train-labels-idx1-ubyte.gz", "19");
}

TEST_F(FashionMnistFolderTest, LabelOutOfRangeIsNamed) {
  write_idx("train-images-idx3-ubyte.gz", {20, 28, 28}, 1);
  write_idx("train-labels-idx1-ubyte.gz", {20}, 10);
  expect_error_naming("train-labels-idx1-ubyte.gz", "10");
}

TEST_F(FashionMnistFolderTest, WrongImageShapeIsNamed) {
  write_idx("train-images-idx3-ubyte.gz", {20, 27, 28}, 1);
  expect_error_naming("train-images-idx3-ubyte.gz");
}

TEST_F(FashionMnistFolderTest, TooFewTrainingImagesForAValidationSplit) {
  write_idx("train-images-idx3-ubyte.gz", {20, 28, 28}, 1);
  write_idx("train-labels-idx1-ubyte.gz", {20}, 3);
  write_idx("t10k-images-idx3-ubyte.gz", {5, 28, 28}, 1);
  write_idx("t10k-labels-idx1-ubyte.gz", {5}, 3);
  expect_error_naming("train-images-idx3-ubyte.gz", "50000");
}

TEST(FashionMnistFolder, NonexistentFolder) {
  try {
    pacer::load_fashion_mnist("/nonexistent/pacer-data");
    ADD_FAILURE() << "expected pacer::InputError";
  } catch (const pacer::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/pacer-data/train-images-idx3-ubyte.gz"), std::string::npos)
        << e.what();
  }
}

}  // namespace
