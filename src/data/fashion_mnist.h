#pragma once
// Fashion-MNIST from IDX files (as installed by Debian's dataset-fashion-mnist).
// Splits: train = first 50,000 official training images, validation = the last 10,000,
// test = the official 10,000 test images. Pixels are scaled to [0, 1] and then normalized with
// the mean and standard deviation of the 50,000 training images.
//
//   auto data = pacer::load_fashion_mnist(pacer::resolve_data_dir(""));
//   data.train.inputs.sizes();  // [50000, 1, 28, 28], float
#include <string>

#include "data/tensor_dataset.h"

namespace pacer {

inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";
inline constexpr const char* kDataDirEnv = "PACER_DATA_DIR";

struct ImageClassificationData {
  TensorDataset train, validation, test;
  double pixel_mean = 0.0, pixel_std = 1.0;
  int64_t num_classes = 10;
};

// The flag's value when non-empty, else $PACER_DATA_DIR, else the Debian package's folder.
std::string resolve_data_dir(const std::string& flag_value);

// Loads (and caches per process) the four IDX files from `dir`. Throws InputError naming the
// file when one is missing, truncated or inconsistent.
const ImageClassificationData& load_fashion_mnist(const std::string& dir);

}  // namespace pacer
