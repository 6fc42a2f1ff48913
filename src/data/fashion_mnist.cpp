#include "data/fashion_mnist.h"

#include <ATen/ATen.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "core/error.h"
#include "data/idx_reader.h"

namespace pacer {
namespace {

constexpr int64_t kTrainExamples = 50000;

at::Tensor images_to_tensor(IdxArray&& array, const std::string& path) {
  if (array.dims.size() != 3 || array.dims[1] != 28 || array.dims[2] != 28) {
    throw InputError(path + ": expected images of shape [N, 28, 28]");
  }
  auto bytes = std::make_shared<std::vector<uint8_t>>(std::move(array.data));
  at::Tensor raw = at::from_blob(bytes->data(), {array.dims[0], 1, 28, 28}, at::kByte);
  return raw.to(at::kFloat).div_(255.0);  // copies out of the byte buffer
}

at::Tensor labels_to_tensor(IdxArray&& array, const std::string& path, int64_t expected) {
  if (array.dims.size() != 1) throw InputError(path + ": expected a 1-dimensional label file");
  if (array.dims[0] != expected) {
    throw InputError(path + ": " + std::to_string(array.dims[0]) + " labels for " + std::to_string(expected) +
                     " images");
  }
  for (uint8_t label : array.data) {
    if (label > 9) throw InputError(path + ": label " + std::to_string(label) + " outside 0..9");
  }
  at::Tensor raw = at::from_blob(array.data.data(), {array.dims[0]}, at::kByte);
  return raw.to(at::kLong);
}

ImageClassificationData load_images_uncached(const std::string& dir) {
  const std::string train_images = dir + "/train-images-idx3-ubyte.gz";
  const std::string train_labels = dir + "/train-labels-idx1-ubyte.gz";
  const std::string test_images = dir + "/t10k-images-idx3-ubyte.gz";
  const std::string test_labels = dir + "/t10k-labels-idx1-ubyte.gz";

  at::Tensor x_all = images_to_tensor(read_idx_file(train_images), train_images);
  at::Tensor y_all = labels_to_tensor(read_idx_file(train_labels), train_labels, x_all.size(0));
  at::Tensor x_test = images_to_tensor(read_idx_file(test_images), test_images);
  at::Tensor y_test = labels_to_tensor(read_idx_file(test_labels), test_labels, x_test.size(0));
  if (x_all.size(0) <= kTrainExamples) {
    throw InputError(train_images + ": need more than " + std::to_string(kTrainExamples) +
                     " training images to hold out a validation split, found " + std::to_string(x_all.size(0)));
  }

  ImageClassificationData data;
  at::Tensor x_train = x_all.narrow(0, 0, kTrainExamples);
  data.pixel_mean = x_train.mean().item<double>();
  data.pixel_std = x_train.std().item<double>();
  auto normalize = [&](const at::Tensor& x) { return ((x - data.pixel_mean) / data.pixel_std).contiguous(); };
  const int64_t n_val = x_all.size(0) - kTrainExamples;
  data.train = {normalize(x_train), y_all.narrow(0, 0, kTrainExamples).contiguous()};
  data.validation = {normalize(x_all.narrow(0, kTrainExamples, n_val)), y_all.narrow(0, kTrainExamples, n_val).contiguous()};
  data.test = {normalize(x_test), y_test};
  return data;
}

}  // namespace

std::string resolve_data_dir(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv(kDataDirEnv); env != nullptr && *env != '\0') return env;
  return kDefaultFashionMnistDir;
}

const ImageClassificationData& load_fashion_mnist(const std::string& dir) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<ImageClassificationData>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(dir);
  if (it == cache.end()) {
    it = cache.emplace(dir, std::make_unique<ImageClassificationData>(load_images_uncached(dir))).first;
  }
  return *it->second;
}

}  // namespace pacer
