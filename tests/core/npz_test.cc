// .npz: round trips, interchange with numpy both ways, every kind of corruption (always a tg::Error,
// never a crash or a huge allocation), and atomic writes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "core/error.h"
#include "tests/harness/error_of.h"
#include "tests/harness/temp_files.h"
#include "core/npz.h"

namespace tg {
namespace {
namespace fs = std::filesystem;

using check::contains;
using check::error_of;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tapegrad-npz-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// ------------------------------------------------------------------ a second, independent zip writer
// Builds archives with arbitrary (also invalid) members, with its own CRC-32 so that it does not
// share code with the implementation under test.

uint32_t crc32_of(const std::string& s) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void le16(std::string& s, uint32_t v) {
  s += static_cast<char>(v & 0xFF);
  s += static_cast<char>((v >> 8) & 0xFF);
}
void le32(std::string& s, uint32_t v) {
  le16(s, v & 0xFFFF);
  le16(s, v >> 16);
}

struct Member {
  std::string name, bytes;
  uint16_t method = 0;
  bool zip64_sizes = false;  // sizes 0xFFFFFFFF in both headers, the real ones in a zip64 extra field
  bool zip64_extra = true;   // with zip64_sizes: whether that extra field is there
};

struct ZipOptions {
  std::string between_cd_and_end;  // garbage after the central directory entries
  bool count_garbage_in_cd = false;  // include that garbage in the central directory's size
};

std::string make_zip(const std::vector<Member>& members, const ZipOptions& opt = {}) {
  std::string out, cd;
  for (const Member& m : members) {
    uint32_t crc = crc32_of(m.bytes), offset = static_cast<uint32_t>(out.size());
    uint32_t size = m.zip64_sizes ? 0xFFFFFFFF : static_cast<uint32_t>(m.bytes.size());
    std::string extra;
    if (m.zip64_sizes && m.zip64_extra) {
      le16(extra, 1);
      le16(extra, 16);
      le32(extra, static_cast<uint32_t>(m.bytes.size()));
      le32(extra, 0);
      le32(extra, static_cast<uint32_t>(m.bytes.size()));
      le32(extra, 0);
    }
    std::string common;
    le16(common, 0);  // flags
    le16(common, m.method);
    le32(common, 0);  // time, date
    le32(common, crc);
    le32(common, size);
    le32(common, size);
    le16(common, static_cast<uint32_t>(m.name.size()));
    le16(common, static_cast<uint32_t>(extra.size()));
    le32(out, 0x04034b50);
    le16(out, 20);
    out += common + m.name + extra + m.bytes;
    le32(cd, 0x02014b50);
    le16(cd, 20);
    le16(cd, 20);
    cd += common;
    le16(cd, 0);  // comment
    le16(cd, 0);  // disk
    le16(cd, 0);  // internal attributes
    le32(cd, 0);  // external attributes
    le32(cd, offset);
    cd += m.name + extra;
  }
  uint32_t cd_offset = static_cast<uint32_t>(out.size());
  uint32_t cd_size = static_cast<uint32_t>(cd.size() + (opt.count_garbage_in_cd ? opt.between_cd_and_end.size() : 0));
  out += cd + opt.between_cd_and_end;
  le32(out, 0x06054b50);
  le32(out, 0);  // disks
  le16(out, static_cast<uint32_t>(members.size()));
  le16(out, static_cast<uint32_t>(members.size()));
  le32(out, cd_size);
  le32(out, cd_offset);
  le16(out, 0);
  return out;
}

// An .npy with the given header dict text (padded like numpy) and data bytes.
std::string make_npy(const std::string& dict, const std::string& data, int major = 1, int minor = 0) {
  std::string h = dict;
  size_t preamble = major == 1 ? 10 : 12;
  while ((preamble + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += static_cast<char>(minor);
  if (major == 1)
    le16(out, static_cast<uint32_t>(h.size()));
  else
    le32(out, static_cast<uint32_t>(h.size()));
  return out + h + data;
}

std::string dict(const std::string& descr, const std::string& shape, const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

// ------------------------------------------------------------------ numpy via Debian's python

bool have_numpy() {
  static const bool ok = ::access("/usr/bin/python3", X_OK) == 0 &&
                         std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
  return ok;
}

// Runs a python script with /usr/bin/python3; returns its stdout and stderr.
std::string run_python(const TempDir& dir, const std::string& script) {
  std::string file = dir / "script.py";
  write_bytes(file, script);
  FILE* p = ::popen(("/usr/bin/python3 '" + file + "' 2>&1").c_str(), "r");
  if (!p) return "popen failed";
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int status = ::pclose(p);
  if (status != 0) out += "\n(exit status " + std::to_string(status) + ")";
  return out;
}

std::vector<NpzEntry> sample_entries() {
  std::vector<NpzEntry> e;
  e.emplace_back("weights", Tensor::from({2, 3}, std::vector<double>{0.5, -1.25, 2, 3.75, -8, 1e-3}, DType::f32));
  e.emplace_back("scalar", Tensor::scalar(3.141592653589793, DType::f64));
  e.emplace_back("empty", Tensor::zeros({0, 5}, DType::f32));
  e.emplace_back("rank4", Tensor::from({1, 2, 1, 2}, std::vector<double>{1, 2, 3, 4}, DType::f64));
  e.emplace_back("steps", std::vector<int64_t>{1, -2, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()});
  e.emplace_back("grid", std::vector<int64_t>{1, 2, 3, 4, 5, 6}, std::vector<int64_t>{3, 2});
  e.emplace_back("history", std::vector<double>{0.25, 1e300, -0.0}, std::vector<int64_t>{3, 1});
  e.emplace_back("config", std::string_view(R"({"model": "lstm", "hidden": 128})"));
  e.emplace_back("no_bytes", std::string_view(""));
  return e;
}

void expect_same(const std::vector<NpzEntry>& a, const std::vector<NpzEntry>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].dtype, b[i].dtype) << a[i].name;
    EXPECT_EQ(a[i].shape, b[i].shape) << a[i].name;
    EXPECT_EQ(a[i].data, b[i].data) << a[i].name;
  }
}

// ------------------------------------------------------------------ round trips

TEST(Npz, RoundTripKeepsNamesDtypesShapesAndBytes) {
  TempDir dir;
  std::string path = dir / "a.npz";
  std::vector<NpzEntry> written = sample_entries();
  write_npz(path, written);
  std::vector<NpzEntry> read = read_npz(path);
  expect_same(written, read);
  EXPECT_FALSE(check::has_temporary_files(path));

  Tensor w = to_tensor(read[0]);
  EXPECT_EQ(w.dtype(), DType::f32);
  EXPECT_EQ(w.shape(), (Shape{2, 3}));
  EXPECT_EQ(w.to_vector(), (std::vector<double>{0.5, -1.25, 2, 3.75, -8, static_cast<float>(1e-3)}));
  Tensor s = to_tensor(read[1]);
  EXPECT_EQ(s.shape().rank(), 0);
  EXPECT_EQ(s.item(), 3.141592653589793);
  EXPECT_EQ(to_tensor(read[2]).shape(), (Shape{0, 5}));
  EXPECT_EQ(read[4].int64s()[3], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(read[6].doubles()[1], 1e300);
  EXPECT_EQ(read[7].bytes(), R"({"model": "lstm", "hidden": 128})");
  EXPECT_EQ(read[8].bytes(), "");
}

TEST(Npz, DataStartsAt64ByteBoundaryOfEachNpy) {
  for (const NpzEntry& e : sample_entries()) {
    TempDir dir;
    write_npz(dir / "one.npz", {e});
    std::string bytes = read_bytes(dir / "one.npz");
    size_t npy = bytes.find("\x93NUMPY");
    ASSERT_NE(npy, std::string::npos);
    EXPECT_EQ(bytes[npy + 6], 1) << "version 1.0";
    size_t header_len = static_cast<unsigned char>(bytes[npy + 8]) | static_cast<unsigned char>(bytes[npy + 9]) << 8;
    EXPECT_EQ((10 + header_len) % 64, 0u) << e.name;
    EXPECT_EQ(bytes[npy + 10 + header_len - 1], '\n');
  }
}

TEST(Npz, EmptyArchiveAndIdenticalBytesForIdenticalInput) {
  TempDir dir;
  write_npz(dir / "empty.npz", {});
  EXPECT_TRUE(read_npz(dir / "empty.npz").empty());
  write_npz(dir / "x.npz", sample_entries());
  write_npz(dir / "y.npz", sample_entries());
  EXPECT_EQ(read_bytes(dir / "x.npz"), read_bytes(dir / "y.npz"));
}

TEST(Npz, ArchiveLookupAndTypedAccessErrorsNameFileAndArray) {
  TempDir dir;
  std::string path = dir / "a.npz";
  write_npz(path, sample_entries());
  NpzArchive a(path);
  EXPECT_TRUE(a.contains("weights"));
  EXPECT_FALSE(a.contains("weights.npy"));
  EXPECT_EQ(a.tensor("rank4").shape(), (Shape{1, 2, 1, 2}));
  EXPECT_EQ(a.int64s("grid"), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(a.doubles("weights")[1], -1.25);
  std::string msg = error_of([&] { a.at("theta"); });
  EXPECT_TRUE(contains(msg, path + ": no array 'theta' (arrays: config, empty,")) << msg;
  msg = error_of([&] { a.tensor("steps"); });
  EXPECT_TRUE(contains(msg, path + ": array 'steps' has dtype '<i8'")) << msg;
  msg = error_of([&] { a.int64s("weights"); });
  EXPECT_TRUE(contains(msg, "array 'weights' has dtype '<f4'")) << msg;
  msg = error_of([&] { a.bytes("steps"); });
  EXPECT_TRUE(contains(msg, "not bytes")) << msg;
}

TEST(Npz, WriterRejectsInconsistentEntriesBeforeTouchingTheDisk) {
  TempDir dir;
  std::string path = dir / "bad.npz";
  auto expect_rejected = [&](std::vector<NpzEntry> entries, const std::string& part) {
    std::string msg = error_of([&] { write_npz(path, entries); });
    EXPECT_TRUE(contains(msg, path + ": ") && contains(msg, part)) << msg;
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(check::has_temporary_files(path));
  };
  expect_rejected({NpzEntry("x", "<f4", {3}, std::vector<uint8_t>(8))}, "needs 12 bytes but 8 are given");
  expect_rejected({NpzEntry("x", "<f2", {1}, std::vector<uint8_t>(2))}, "unsupported dtype '<f2'");
  expect_rejected({NpzEntry("x", "<f8", {-1}, {})}, "negative extent");
  expect_rejected({NpzEntry("a", std::vector<int64_t>{1}), NpzEntry("a", std::vector<int64_t>{2})}, "duplicate array name 'a'");
  expect_rejected({NpzEntry("", std::vector<int64_t>{1})}, "bad array name");
  EXPECT_TRUE(contains(error_of([] { NpzEntry("x", std::vector<double>{1, 2, 3}, {2, 2}); }), "needs 32 bytes but 24"));
  EXPECT_TRUE(contains(error_of([] { to_tensor(NpzEntry("x", "<f8", {1, 1, 1, 1, 1}, std::vector<uint8_t>(8))); }),
                       "rank 5"));
}

// ------------------------------------------------------------------ interchange with numpy

TEST(Npz, NumpyLoadsOurFiles) {
  if (!have_numpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  TempDir dir;
  std::string path = dir / "ours.npz";
  write_npz(path, sample_entries());
  std::string out = run_python(dir, R"PY(
import zipfile, numpy as np
path = ')PY" + path + R"PY('
assert zipfile.ZipFile(path).testzip() is None
d = np.load(path)
print(sorted(d.files))
def check(name, dtype, shape, values):
    a = d[name]
    assert a.dtype == np.dtype(dtype), (name, a.dtype)
    assert a.shape == shape, (name, a.shape)
    assert a.tolist() == values, (name, a.tolist())
check('weights', '<f4', (2, 3), [[0.5, -1.25, 2.0], [3.75, -8.0, float(np.float32(1e-3))]])
check('scalar', '<f8', (), 3.141592653589793)
check('empty', '<f4', (0, 5), [])
check('rank4', '<f8', (1, 2, 1, 2), [[[[1.0, 2.0]], [[3.0, 4.0]]]])
check('steps', '<i8', (4,), [1, -2, 2**63 - 1, -2**63])
check('grid', '<i8', (3, 2), [[1, 2], [3, 4], [5, 6]])
check('history', '<f8', (3, 1), [[0.25], [1e300], [-0.0]])
assert bytes(d['config']) == b'{"model": "lstm", "hidden": 128}', bytes(d['config'])
assert d['config'].dtype == np.uint8 and d['no_bytes'].shape == (0,)
print('OK')
)PY");
  EXPECT_EQ(out, "['config', 'empty', 'grid', 'history', 'no_bytes', 'rank4', 'scalar', 'steps', 'weights']\nOK\n");
}

TEST(Npz, WeLoadNumpyFilesIncludingHeadersOf128BytesAndMore) {
  if (!have_numpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  TempDir dir;
  std::string path = dir / "numpy.npz";
  std::string out = run_python(dir, R"PY(
import zipfile, numpy as np
path = ')PY" + path + R"PY('
long_shape = (1,) * 18 + (2, 3)
np.savez(path,
         long_header=np.arange(6, dtype=np.float64).reshape(long_shape),
         f32=np.array([[0.5, -2.0], [4.0, 1e-3]], dtype=np.float32),
         i64=np.array([7, -9, 2**62], dtype=np.int64),
         u1=np.frombuffer(b'rng-state', dtype=np.uint8),
         zero_d=np.float64(2.5),
         empty=np.zeros((0, 4), dtype=np.float32))
npy = zipfile.ZipFile(path).read('long_header.npy')
assert npy[8] >= 0x80, npy[8]  # the header-length byte that xtensor reads as negative
print('OK')
)PY");
  ASSERT_EQ(out, "OK\n");
  NpzArchive a(path);
  EXPECT_EQ(a.entries().size(), 6u);
  const NpzEntry& l = a.at("long_header");
  EXPECT_EQ(l.dtype, "<f8");
  EXPECT_EQ(l.shape.size(), 20u);
  EXPECT_EQ(l.doubles(), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(a.tensor("f32").to_vector(), (std::vector<double>{0.5, -2, 4, static_cast<float>(1e-3)}));
  EXPECT_EQ(a.tensor("f32").shape(), (Shape{2, 2}));
  EXPECT_EQ(a.int64s("i64"), (std::vector<int64_t>{7, -9, int64_t{1} << 62}));
  EXPECT_EQ(a.bytes("u1"), "rng-state");
  EXPECT_EQ(a.tensor("zero_d").item(), 2.5);
  EXPECT_EQ(a.tensor("empty").shape(), (Shape{0, 4}));
}

TEST(Npz, NumpyCompressedAndOtherDtypesAreRejectedClearly) {
  if (!have_numpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  TempDir dir;
  std::string out = run_python(dir, R"PY(
import numpy as np
np.savez_compressed(')PY" + (dir / "c.npz") + R"PY(', a=np.zeros(3))
np.savez(')PY" + (dir / "i32.npz") + R"PY(', a=np.zeros(3, dtype=np.int32))
np.savez(')PY" + (dir / "fortran.npz") + R"PY(', a=np.asfortranarray(np.zeros((2, 3))))
print('OK')
)PY");
  ASSERT_EQ(out, "OK\n");
  std::string msg = error_of([&] { read_npz(dir / "c.npz"); });
  EXPECT_TRUE(contains(msg, "compression method 8")) << msg;
  msg = error_of([&] { read_npz(dir / "i32.npz"); });
  EXPECT_TRUE(contains(msg, "unsupported dtype '<i4'")) << msg;
  msg = error_of([&] { read_npz(dir / "fortran.npz"); });
  EXPECT_TRUE(contains(msg, "fortran_order")) << msg;
}

// ------------------------------------------------------------------ corruption

TEST(Npz, HandBuiltArchiveIsValid) {  // checks the test's own zip writer
  TempDir dir;
  write_bytes(dir / "ok.npz", make_zip({{"a.npy", make_npy(dict("<f8", "(2,)"), std::string(16, '\0'))}}));
  std::vector<NpzEntry> e = read_npz(dir / "ok.npz");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].doubles(), (std::vector<double>{0, 0}));
}

TEST(Npz, Zip64SizeFieldsAreRead) {  // Python's zipfile writes them for members of 4 GiB and more
  TempDir dir;
  Member m{"a.npy", make_npy(dict("<f8", "(2,)"), std::string(16, '\0'))};
  m.zip64_sizes = true;
  write_bytes(dir / "zip64.npz", make_zip({m}));
  EXPECT_EQ(read_npz(dir / "zip64.npz").at(0).doubles(), (std::vector<double>{0, 0}));
  m.zip64_extra = false;
  write_bytes(dir / "zip64.npz", make_zip({m}));
  std::string msg = error_of([&] { read_npz(dir / "zip64.npz"); });
  EXPECT_TRUE(contains(msg, "entry 'a.npy': size or offset 0xFFFFFFFF without a zip64 extra field")) << msg;
}

TEST(Npz, TruncationAtEveryOffsetIsAnError) {
  TempDir dir;
  std::string good = dir / "good.npz", cut = dir / "cut.npz";
  write_npz(good, {NpzEntry("a", std::vector<int64_t>{1, 2}), NpzEntry("b", std::string_view("xyz"))});
  std::string bytes = read_bytes(good);
  for (size_t n = 0; n < bytes.size(); ++n) {
    write_bytes(cut, bytes.substr(0, n));
    std::string msg = error_of([&] { read_npz(cut); });
    EXPECT_EQ(msg.rfind(cut + ": ", 0), 0u) << "cut at " << n << ": " << msg;
  }
}

TEST(Npz, EveryFlippedByteIsAnErrorOrHarmless) {
  TempDir dir;
  std::string good = dir / "good.npz", bad = dir / "bad.npz";
  std::vector<NpzEntry> entries = {NpzEntry("a", std::vector<int64_t>{1, 2}), NpzEntry("b", std::string_view("xyz"))};
  write_npz(good, entries);
  std::string bytes = read_bytes(good);
  size_t first_npy = bytes.find("\x93NUMPY"), crc_errors = 0, npy_bytes = 0;
  for (size_t at = 0; size_t data_size : {16, 3}) {  // the two members' .npy bytes: preamble, header, data
    at = bytes.find("\x93NUMPY", at);
    npy_bytes += 10 + (static_cast<unsigned char>(bytes[at + 8]) | static_cast<unsigned char>(bytes[at + 9]) << 8) + data_size;
    ++at;
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5A);
    write_bytes(bad, flipped);
    try {
      // Some fields are informational (dates, attributes, "made by"): then the arrays are unchanged.
      expect_same(entries, read_npz(bad));
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(bad + ": ", 0), 0u) << e.what();
      crc_errors += contains(e.what(), "CRC-32 mismatch");
    }
  }
  EXPECT_EQ(crc_errors, npy_bytes);  // every byte of every .npy (header and data) is covered by its CRC
  // Flipping a data byte in particular names the CRC.
  std::string flipped = bytes;
  flipped[first_npy + 128] ^= 1;  // the first data byte (the header is 128 bytes)
  write_bytes(bad, flipped);
  EXPECT_TRUE(contains(error_of([&] { read_npz(bad); }), "entry 'a.npy': CRC-32 mismatch"));
}

struct BadCase {
  std::string what;
  std::string archive;
  std::string expected;  // part of the message
};

TEST(Npz, MalformedHeadersAndArchivesAreErrorsNamingTheProblem) {
  const std::string f8x2(16, '\0');
  auto one = [](const std::string& npy, const std::string& name = "a.npy") { return make_zip({{name, npy}}); };
  std::vector<BadCase> cases = {
      {"half float", one(make_npy(dict("<f2", "(2,)"), f8x2)), "unsupported dtype '<f2'"},
      {"big endian", one(make_npy(dict(">f8", "(2,)"), f8x2)), "unsupported dtype '>f8'"},
      {"bool", one(make_npy(dict("|b1", "(16,)"), f8x2)), "unsupported dtype '|b1'"},
      {"name not descr", one(make_npy(dict("float64", "(2,)"), f8x2)), "unsupported dtype 'float64'"},
      {"structured", one(make_npy("{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (2,), }", f8x2)),
       "structured dtypes"},
      {"fortran order", one(make_npy(dict("<f8", "(2,)", "True"), f8x2)), "fortran_order arrays are not supported"},
      {"fortran order not a bool", one(make_npy(dict("<f8", "(2,)", "0"), f8x2)), "must be True or False"},
      {"too little data", one(make_npy(dict("<f8", "(3,)"), f8x2)), "needs 24 bytes of data, the entry has 16"},
      {"too much data", one(make_npy(dict("<f8", "(1,)"), f8x2)), "needs 8 bytes of data, the entry has 16"},
      {"10^12 elements", one(make_npy(dict("<f8", "(1000000, 1000000)"), f8x2)), "needs 8000000000000 bytes"},
      {"overflowing shape", one(make_npy(dict("<f8", "(4294967296, 4294967296, 4294967296)"), f8x2)), "overflows 64 bits"},
      {"overflowing extent", one(make_npy(dict("<f8", "(99999999999999999999,)"), f8x2)), "overflows 64 bits"},
      {"shape not a tuple", one(make_npy(dict("<f8", "(2)"), f8x2)), "must be a tuple"},
      {"shape a list", one(make_npy(dict("<f8", "[2]"), f8x2)), "expected '('"},
      {"negative extent", one(make_npy(dict("<f8", "(-2,)"), f8x2)), "non-negative integer"},
      {"double comma", one(make_npy(dict("<f8", "(2,,)"), f8x2)), "non-negative integer"},
      {"missing key", one(make_npy("{'descr': '<f8', 'shape': (2,), }", f8x2)), "needs the keys"},
      {"extra key", one(make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", f8x2)),
       "unexpected key 'x'"},
      {"duplicate key", one(make_npy("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}", f8x2)),
       "duplicate key 'descr'"},
      {"text after dict", one(make_npy(dict("<f8", "(2,)") + " x", f8x2)), "unexpected text after the header dict"},
      {"unterminated", one(make_npy("{'descr': '<f8", f8x2)), "unterminated string"},
      {"not a dict", one(make_npy("garbage", f8x2)), "expected '{'"},
      {"bad magic", one("\x93NUMPX" + make_npy(dict("<f8", "(2,)"), f8x2).substr(6)), "not an .npy array"},
      {"version 3.0", one(make_npy(dict("<f8", "(2,)"), f8x2, 3)), "version 3.0 is not supported"},
      {"version 1.1", one(make_npy(dict("<f8", "(2,)"), f8x2, 1, 1)), "version 1.1 is not supported"},
      {"header longer than entry", one(make_npy(dict("<f8", "(2,)"), f8x2).substr(0, 40)), ".npy header of 118 bytes, but only 30 remain"},
      {"tiny npy", one("\x93NUM"), "not an .npy array"},
      {"not .npy", one(make_npy(dict("<f8", "(2,)"), f8x2), "a.txt"), "entry 'a.txt': not an .npy member"},
      {"bare .npy name", one(make_npy(dict("<f8", "(2,)"), f8x2), ".npy"), "not an .npy member"},
      {"duplicate names", make_zip({{"a.npy", make_npy(dict("<f8", "(2,)"), f8x2)}, {"a.npy", make_npy(dict("<f8", "(2,)"), f8x2)}}),
       "duplicate entry 'a.npy'"},
      {"deflated", make_zip({{"a.npy", make_npy(dict("<f8", "(2,)"), f8x2), 8}}), "compression method 8"},
      {"garbage counted in central directory",
       make_zip({{"a.npy", make_npy(dict("<f8", "(2,)"), f8x2)}}, {"JUNK", true}),
       "4 bytes of trailing garbage in the central directory"},
      {"garbage before end record", make_zip({{"a.npy", make_npy(dict("<f8", "(2,)"), f8x2)}}, {"JUNK", false}),
       "4 bytes of garbage between the central directory and the end record"},
      {"appended garbage", one(make_npy(dict("<f8", "(2,)"), f8x2)) + "trailing", "8 bytes of data after the end-of-central-directory record"},
      {"a bare .npy", make_npy(dict("<f8", "(2,)"), f8x2), "single .npy array, not an .npz"},
      {"text", "hello, world\n", "not an .npz (zip) archive"},
      {"empty", "", "empty file"},
  };
  // Sizes that point beyond the file: the central directory claims a huge entry.
  {
    std::string z = one(make_npy(dict("<f8", "(2,)"), f8x2));
    size_t cd = z.find("PK\x01\x02");
    std::string huge = z;
    for (size_t k : {20u, 24u}) huge.replace(cd + k, 4, "\xff\xff\xff\x7f");
    cases.push_back({"huge sizes", huge, "disagrees with the central directory"});
    std::string both = huge;
    size_t local = 0;
    for (size_t k : {18u, 22u}) both.replace(local + k, 4, "\xff\xff\xff\x7f");
    cases.push_back({"huge sizes in both headers", both, "truncated: entry 'a.npy' needs 2147483647 bytes"});
    std::string offset = z;
    offset.replace(cd + 42, 4, "\x00\x10\x00\x00", 4);
    cases.push_back({"local header offset beyond data", offset, "truncated: entry 'a.npy' has its local header at offset 4096"});
    std::string crc = z;
    crc[14] ^= 1;  // the local header's CRC
    cases.push_back({"local and central CRC differ", crc, "disagrees with the central directory"});
    std::string count = z;
    count[z.size() - 14] = count[z.size() - 12] = 2;  // the end record claims two entries
    cases.push_back({"entry count too high", count, "truncated central directory: entry 2 of 2"});
  }
  TempDir dir;
  std::string path = dir / "bad.npz";
  for (const BadCase& c : cases) {
    write_bytes(path, c.archive);
    std::string msg = error_of([&] { read_npz(path); });
    EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << c.what << ": " << msg;
    EXPECT_TRUE(contains(msg, c.expected)) << c.what << ": expected '" << c.expected << "' in: " << msg;
  }
}

TEST(Npz, RandomGarbageMissingFilesAndDirectoriesAreErrors) {
  TempDir dir;
  std::string path = dir / "junk.npz";
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string junk(rng() % 300, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    if (trial % 2) junk = "PK\x03\x04" + junk + (trial % 4 == 1 ? std::string("PK\x05\x06") + std::string(18, '\0') : "");
    write_bytes(path, junk);
    std::string msg = error_of([&] { read_npz(path); });
    EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
  }
  std::string missing = dir / "missing.npz";
  EXPECT_EQ(error_of([&] { read_npz(missing); }), "cannot read archive " + missing + ": no such file");
  EXPECT_EQ(error_of([&] { read_npz(dir.path().string()); }), "cannot read archive " + dir.path().string() + ": it is a directory");
  // A FIFO would block the open (nobody writes it) and /dev/zero never ends: both are refused at once.
  std::string fifo = dir / "fifo.npz";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { read_npz(fifo); }), "cannot read archive " + fifo + ": not a regular file (a FIFO)");
  EXPECT_EQ(error_of([&] { read_npz("/dev/zero"); }), "cannot read archive /dev/zero: not a regular file (a character device)");
}

// ------------------------------------------------------------------ atomic writes

TEST(Npz, WriteIntoMissingOrReadOnlyDirectoryFailsWithoutLeftovers) {
  TempDir dir;
  std::string missing = dir / "no/such/dir/a.npz";
  std::string msg = error_of([&] { write_npz(missing, sample_entries()); });
  EXPECT_TRUE(contains(msg, missing + ": cannot create temporary file")) << msg;
  EXPECT_TRUE(contains(msg, "No such file or directory")) << msg;

  // /proc refuses new files even to root.
  msg = error_of([&] { write_npz("/proc/tapegrad-npz-test.npz", sample_entries()); });
  EXPECT_EQ(msg.rfind("/proc/tapegrad-npz-test.npz: cannot create temporary file", 0), 0u) << msg;

  if (::geteuid() != 0) {  // root ignores permission bits
    fs::path ro = dir.path() / "ro";
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    msg = error_of([&] { write_npz((ro / "a.npz").string(), sample_entries()); });
    EXPECT_TRUE(contains(msg, "Permission denied")) << msg;
    EXPECT_TRUE(fs::is_empty(ro));
  }
}

TEST(Npz, ExistingFileSurvivesFailedWrites) {
  TempDir dir;
  std::string path = dir / "ckpt.npz";
  write_npz(path, {NpzEntry("version", std::vector<int64_t>{1})});
  const std::string before = read_bytes(path);

  // The temporary file cannot be created (no file descriptor left): the write fails before any byte
  // is written. (Its name is unique, so a file or directory named PATH.tmp no longer gets in the way.)
  std::string msg;
  {
    struct rlimit old {};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &old), 0);
    struct rlimit none = old;
    none.rlim_cur = 0;
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &none), 0);
    msg = error_of([&] { write_npz(path, sample_entries()); });
    ::setrlimit(RLIMIT_NOFILE, &old);
  }
  EXPECT_TRUE(contains(msg, path + ": cannot create temporary file")) << msg;
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_FALSE(check::has_temporary_files(path));

  // The disk "fills up" half-way (a file-size limit): the temporary file is removed.
  {
    struct rlimit old {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    struct rlimit small = old;
    small.rlim_cur = 64 * 1024;
    auto old_handler = ::signal(SIGXFSZ, SIG_IGN);  // report EFBIG instead of killing the process
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    msg = error_of([&] { write_npz(path, {NpzEntry("big", std::vector<double>(1 << 20, 1.0))}); });
    ::setrlimit(RLIMIT_FSIZE, &old);
    ::signal(SIGXFSZ, old_handler);
    EXPECT_TRUE(contains(msg, path + ": cannot write: File too large")) << msg;
  }
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_FALSE(check::has_temporary_files(path));

  // Invalid input is rejected before the disk is touched.
  msg = error_of([&] { write_npz(path, {NpzEntry("x", "<f4", {2}, std::vector<uint8_t>(3))}); });
  EXPECT_TRUE(contains(msg, "needs 8 bytes but 3 are given")) << msg;
  EXPECT_EQ(read_bytes(path), before);

  // A successful write replaces the file and leaves nothing else behind.
  write_npz(path, sample_entries());
  expect_same(read_npz(path), sample_entries());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace tg
