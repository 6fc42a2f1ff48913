#pragma once
// The Pacer SDK's test support: unit tests of an update rule in a test program of your own, with
// any test framework. Link the CMake target pacer::testing (a shared library holding the layers
// the SDK reaches: built-in algorithms, update rules, schedules, the plugin loader); it brings
// LibTorch and the SDK's headers. docs/writing_an_algorithm.md, "Unit-testing an update rule".
//
//   algorithms/rule_harness.h   RuleHarness: your parameters, your gradient per step, the rule's
//                               own calls as a trial makes them, and a resumed copy from its
//                               state(); algorithm_factory("adamw" | "./build/libmine.so")
//
//   #include <pacer/testing.h>
//   pacer::RuleHarness mine(pacer::algorithm_factory("./build/libsignum.so"), {at::ones({3})},
//                           pacer::Hyperparameters{{"learning_rate", 0.1}, {"warmup_factor", 0}});
//   mine.step({at::full({3}, 0.5)});   // sign(m) = 1: p = 1 - 0.1 (step 0 of a cosine from 0.1)
#include "algorithm.h"
#include "algorithms/rule_harness.h"
