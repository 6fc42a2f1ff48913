#pragma once
// Declaring a hyperparameter by name instead of by position. HyperparameterSpec is an aggregate
// whose positional order ends in two booleans that exclude a range end; a list filled by position
// excludes an end, or swaps min and max, without a word. Torch-free, header-only.
//
//   std::vector<pacer::HyperparameterSpec> specs = {
//       pacer::hyperparameter("learning_rate").defaults_to(1e-3).in(1e-6, 1.0).describe("peak learning rate"),
//       pacer::hyperparameter("beta2").defaults_to(0.999).in(0.0, 1.0).excluding_max(),  // [0, 1)
//       pacer::hyperparameter("seed_offset").at_least(0.0),                               // no default: required
//   };
#include <string>
#include <utility>

#include "core/export.h"
#include "core/hyperparameters.h"

namespace pacer {

class PACER_API HyperparameterBuilder {
 public:
  explicit HyperparameterBuilder(std::string name) { spec_.name = std::move(name); }

  HyperparameterBuilder& defaults_to(double value) {
    spec_.default_value = value;
    return *this;
  }
  // Both ends included unless excluding_min/excluding_max says otherwise.
  HyperparameterBuilder& in(double min, double max) {
    spec_.min = min;
    spec_.max = max;
    return *this;
  }
  HyperparameterBuilder& at_least(double min) {
    spec_.min = min;
    return *this;
  }
  HyperparameterBuilder& at_most(double max) {
    spec_.max = max;
    return *this;
  }
  HyperparameterBuilder& excluding_min() {
    spec_.min_excluded = true;
    return *this;
  }
  HyperparameterBuilder& excluding_max() {
    spec_.max_excluded = true;
    return *this;
  }
  HyperparameterBuilder& describe(std::string description) {
    spec_.description = std::move(description);
    return *this;
  }

  const HyperparameterSpec& spec() const { return spec_; }
  // Implicit, so that a list of builders is a list of specs.
  operator HyperparameterSpec() const { return spec_; }  // NOLINT(google-explicit-constructor)

 private:
  HyperparameterSpec spec_;
};

inline HyperparameterBuilder hyperparameter(std::string name) { return HyperparameterBuilder(std::move(name)); }

}  // namespace pacer
