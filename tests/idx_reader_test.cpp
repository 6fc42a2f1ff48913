// Tests of the IDX reader (src/data/idx_reader.h): plain and gzip files, and the InputErrors it
// must raise, each naming the file, for every way a file can be broken.
#include "data/idx_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.h"

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

// The bytes of an IDX file: magic (0, 0, type, rank), big-endian dims, then the payload.
Bytes idx_bytes(const std::vector<uint32_t>& dims, const Bytes& payload, uint8_t type = 0x08) {
  Bytes out = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) {
    out.push_back(static_cast<uint8_t>(d >> 24));
    out.push_back(static_cast<uint8_t>(d >> 16));
    out.push_back(static_cast<uint8_t>(d >> 8));
    out.push_back(static_cast<uint8_t>(d));
  }
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes pattern(size_t n) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>((i * 7 + i / 13) % 251);
  return b;
}

class IdxReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::path(::testing::TempDir()) / "idx_reader_test_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << "mkdtemp failed for " << tmpl;
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string write_plain(const std::string& name, const Bytes& bytes) {
    const std::string path = (fs::path(dir_) / name).string();
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    EXPECT_TRUE(out.good()) << path;
    return path;
  }

  std::string write_gzip(const std::string& name, const Bytes& bytes) {
    const std::string path = (fs::path(dir_) / name).string();
    gzFile f = gzopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr) << path;
    if (f == nullptr) return path;
    if (!bytes.empty()) {
      EXPECT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
    }
    EXPECT_EQ(gzclose(f), Z_OK);
    return path;
  }

  static Bytes read_raw(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  // Asserts that reading `path` throws pacer::InputError whose message names the file and contains
  // `expected` (when non-empty); returns the message.
  static std::string expect_input_error(const std::string& path, const std::string& expected) {
    try {
      pacer::read_idx_file(path);
    } catch (const pacer::InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path), std::string::npos) << "message does not name the file: " << msg;
      if (!expected.empty()) {
        EXPECT_NE(msg.find(expected), std::string::npos) << "message: " << msg;
      }
      return msg;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "expected pacer::InputError for " << path << ", got another exception: " << e.what();
      return "";
    }
    ADD_FAILURE() << "expected pacer::InputError for " << path << ", but the file was accepted";
    return "";
  }

  std::string dir_;
};

TEST_F(IdxReaderTest, ReadsPlainFile) {
  const Bytes payload = pattern(3 * 4 * 5);
  const auto path = write_plain("plain-idx3-ubyte", idx_bytes({3, 4, 5}, payload));
  pacer::IdxArray a = pacer::read_idx_file(path);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(a.data, payload);
}

TEST_F(IdxReaderTest, ReadsGzipFile) {
  const Bytes payload = pattern(7 * 28 * 28);
  const auto path = write_gzip("images-idx3-ubyte.gz", idx_bytes({7, 28, 28}, payload));
  pacer::IdxArray a = pacer::read_idx_file(path);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{7, 28, 28}));
  EXPECT_EQ(a.data, payload);
}

TEST_F(IdxReaderTest, ReadsRank1File) {
  const Bytes payload = {0, 9, 3, 3, 255};
  const auto path = write_gzip("labels-idx1-ubyte.gz", idx_bytes({5}, payload));
  pacer::IdxArray a = pacer::read_idx_file(path);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{5}));
  EXPECT_EQ(a.data, payload);
}

TEST_F(IdxReaderTest, MultiByteDimensionsAreBigEndian) {
  // A dimension spanning two bytes (0x0102) must be decoded big-endian.
  const uint32_t d0 = 0x00000102;  // 258
  const Bytes payload = pattern(d0 * 2);
  const auto path = write_plain("big-endian-idx2-ubyte", idx_bytes({d0, 2}, payload));
  pacer::IdxArray a = pacer::read_idx_file(path);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{258, 2}));
  EXPECT_EQ(a.data, payload);
}

TEST_F(IdxReaderTest, BadMagicIsRejected) {
  Bytes bytes = idx_bytes({2, 2}, pattern(4));
  bytes[0] = 0x1f;  // not 0, 0
  expect_input_error(write_plain("bad-magic", bytes), "magic");
  Bytes bytes2 = idx_bytes({2, 2}, pattern(4));
  bytes2[1] = 0x01;
  expect_input_error(write_gzip("bad-magic2.gz", bytes2), "magic");
}

TEST_F(IdxReaderTest, UnsupportedTypeIsRejected) {
  // 0x0D is float32 in the IDX format: valid IDX, but not what the reader supports.
  const std::string msg = expect_input_error(write_plain("float-idx1", idx_bytes({4}, pattern(16), 0x0D)), "unsupported");
  EXPECT_NE(msg.find("0x0D"), std::string::npos) << "the type byte should be shown in hex: " << msg;
  expect_input_error(write_gzip("int32-idx1.gz", idx_bytes({4}, pattern(16), 0x0C)), "unsupported");
}

TEST_F(IdxReaderTest, ImplausibleRankOrDimensionIsRejected) {
  expect_input_error(write_plain("rank0", idx_bytes({}, {})), "rank");
  expect_input_error(write_plain("dim0", idx_bytes({3, 0}, {})), "dimension");
}

TEST_F(IdxReaderTest, TruncatedHeaderIsRejected) {
  expect_input_error(write_plain("empty", {}), "truncated");
  expect_input_error(write_plain("two-bytes", {0, 0}), "truncated");
  Bytes bytes = idx_bytes({10, 28, 28}, {});
  bytes.resize(4 + 4 + 2);  // magic, first dim, half of the second
  expect_input_error(write_plain("half-dims", bytes), "truncated");
  expect_input_error(write_gzip("half-dims.gz", bytes), "truncated");
}

TEST_F(IdxReaderTest, TruncatedDataIsRejected) {
  Bytes bytes = idx_bytes({10, 8}, pattern(80));
  bytes.resize(bytes.size() - 1);
  expect_input_error(write_plain("short-data", bytes), "truncated");
  expect_input_error(write_gzip("short-data.gz", bytes), "truncated");
}

TEST_F(IdxReaderTest, AHeaderClaimingGigabytesInATinyFileIsTruncatedNotAnAllocation) {
  // Found by fuzz/idx_fuzzer (out of memory): the reader allocated and zero-filled what the header
  // claims before reading. 65536 x 65536 x 4 is 16 GiB, the largest the reader accepts; the file
  // holds 14 bytes of it. The buffer now grows with the data read.
  const Bytes bytes = idx_bytes({65536, 65536, 4}, pattern(14));
  expect_input_error(write_plain("claims-16gib", bytes), "truncated IDX data (expected 17179869184 bytes)");
  expect_input_error(write_gzip("claims-16gib.gz", bytes), "truncated");
}

TEST_F(IdxReaderTest, CutGzipStreamIsRejected) {
  // A .gz file cut short (e.g. an interrupted download): the stream ends before the IDX data does.
  const auto full = write_gzip("full.gz", idx_bytes({50, 28, 28}, pattern(50 * 28 * 28)));
  Bytes raw = read_raw(full);
  ASSERT_GT(raw.size(), 100u);
  raw.resize(raw.size() / 2);
  expect_input_error(write_plain("cut.gz", raw), "truncated");
}

TEST_F(IdxReaderTest, TrailingBytesAreRejected) {
  Bytes bytes = idx_bytes({3, 3}, pattern(9));
  bytes.push_back(0);
  expect_input_error(write_plain("trailing", bytes), "trailing");
  expect_input_error(write_gzip("trailing.gz", bytes), "trailing");
}

TEST_F(IdxReaderTest, CorruptGzipStreamIsRejected) {
  const auto good = write_gzip("good.gz", idx_bytes({50, 28, 28}, pattern(50 * 28 * 28)));
  ASSERT_NO_THROW(pacer::read_idx_file(good));
  const Bytes raw = read_raw(good);
  ASSERT_GT(raw.size(), 64u);
  // Several corruptions in the middle of the deflate stream; every one must be reported.
  for (size_t where : {raw.size() / 3, raw.size() / 2, (2 * raw.size()) / 3}) {
    SCOPED_TRACE("corrupted at byte " + std::to_string(where));
    Bytes bad = raw;
    for (size_t i = where; i < where + 8 && i < bad.size(); ++i) bad[i] ^= 0xA5;
    expect_input_error(write_plain("corrupt-" + std::to_string(where) + ".gz", bad), "corrupt");
  }
}

TEST_F(IdxReaderTest, MissingFileIsRejected) {
  const std::string path = (fs::path(dir_) / "does-not-exist-idx3-ubyte.gz").string();
  expect_input_error(path, "");
}

TEST(IdxReaderRealData, FashionMnistTestLabels) {
  const std::string path = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is not installed";
  pacer::IdxArray a = pacer::read_idx_file(path);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{10000}));
  ASSERT_EQ(a.data.size(), 10000u);
  // Fashion-MNIST's test set has exactly 1000 examples of each of the 10 classes.
  std::vector<int> counts(256, 0);
  for (uint8_t label : a.data) ++counts[label];
  for (int c = 0; c < 10; ++c) EXPECT_EQ(counts[c], 1000) << "class " << c;
}

}  // namespace
