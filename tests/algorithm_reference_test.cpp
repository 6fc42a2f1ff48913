// What an `-a` value names, decided once (catalog/algorithm_reference.h): a name, a plugin
// library or a Python submission, and with it whether it runs contained. Light: no LibTorch.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catalog/algorithm_reference.h"
#include "catalog/plugin_records.h"

namespace {

namespace fs = std::filesystem;
using Kind = pacer::AlgorithmReference::Kind;

class AlgorithmReferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pacer_algorithm_reference_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "submission_folder");
    fs::create_directories(dir_ / "empty_folder");
    std::ofstream(dir_ / "submission_folder" / "submission.py") << "# a submission\n";
    std::ofstream(dir_ / "loose.py") << "# a submission\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AlgorithmReferenceTest, ANameIsTrustedAndNamesNoFile) {
  const pacer::AlgorithmReference ref = pacer::algorithm_reference("nadamw");
  EXPECT_EQ(ref.kind, Kind::name);
  EXPECT_FALSE(ref.names_a_file());
  EXPECT_FALSE(ref.untrusted());
  EXPECT_EQ(ref.value, "nadamw");
  EXPECT_EQ(pacer::algorithm_name_of("nadamw"), "nadamw");
}

TEST_F(AlgorithmReferenceTest, ALibraryIsUntrustedAndSplitsItsName) {
  const pacer::AlgorithmReference whole = pacer::algorithm_reference("./libsignum.so");
  EXPECT_EQ(whole.kind, Kind::library);
  EXPECT_TRUE(whole.untrusted());
  EXPECT_TRUE(whole.whole_library());
  EXPECT_EQ(whole.file.path, "./libsignum.so");
  EXPECT_TRUE(fs::path(whole.file.canonical).is_absolute());

  const pacer::AlgorithmReference one = pacer::algorithm_reference("libplugins.so:signum");
  EXPECT_EQ(one.kind, Kind::library);
  EXPECT_FALSE(one.whole_library());
  EXPECT_EQ(one.file.path, "libplugins.so");
  EXPECT_EQ(one.file.name, "signum");
  EXPECT_FALSE(one.file.python);

  // A path is never looked up as a name: a folder that holds no submission.py is a library path
  // (loading it then says what is wrong with it).
  EXPECT_EQ(pacer::algorithm_reference((dir_ / "empty_folder").string()).kind, Kind::library);
}

TEST_F(AlgorithmReferenceTest, ASubmissionIsUntrustedAndNamesItsFile) {
  const pacer::AlgorithmReference folder = pacer::algorithm_reference((dir_ / "submission_folder").string() + "/");
  EXPECT_EQ(folder.kind, Kind::python);
  EXPECT_TRUE(folder.untrusted());
  EXPECT_FALSE(folder.whole_library());
  EXPECT_TRUE(folder.file.python);
  EXPECT_EQ(fs::path(folder.file.canonical).filename(), "submission.py");

  const pacer::AlgorithmReference file = pacer::algorithm_reference((dir_ / "loose.py").string());
  EXPECT_EQ(file.kind, Kind::python);
  EXPECT_EQ(fs::path(file.file.canonical).filename(), "loose.py");
}

TEST_F(AlgorithmReferenceTest, ABarePyNameThatIsNoFileIsANameNotCode) {
  // Nothing is loaded for it, so nothing runs contained: it is looked up as a name and refused
  // there as an unknown algorithm.
  const pacer::AlgorithmReference ref = pacer::algorithm_reference("no_such_submission.py");
  EXPECT_EQ(ref.kind, Kind::name);
  EXPECT_FALSE(ref.untrusted());
}

TEST_F(AlgorithmReferenceTest, AFileNotYetLoadedHasNoName) {
  EXPECT_THROW(pacer::algorithm_name_of((dir_ / "loose.py").string()), std::exception);
}

}  // namespace
