#include "tasks/idx.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/input_file.h"

namespace tg::tasks {

namespace {
constexpr int64_t kMaxIdxFileBytes = int64_t{16} << 30;

// The element types of the format: code, bytes, name.
struct ElementType {
  uint8_t code;
  int bytes;
  const char* name;
};
constexpr ElementType kTypes[] = {{0x08, 1, "unsigned byte"}, {0x09, 1, "signed byte"}, {0x0B, 2, "short"},
                                  {0x0C, 4, "int"},           {0x0D, 4, "float"},       {0x0E, 8, "double"}};

// The file's bytes after decompression, produced on demand: the header first, then exactly the
// declared data, so that nothing past the declared size is ever inflated into memory.
class ByteSource {
 public:
  ByteSource(const std::string& path, std::vector<uint8_t> raw) : path_(path), raw_(std::move(raw)) {
    gzip_ = raw_.size() >= 2 && raw_[0] == 0x1f && raw_[1] == 0x8b;
    if (gzip_) {
      std::memset(&z_, 0, sizeof z_);
      if (inflateInit2(&z_, 15 + 16) != Z_OK) throw Error(fmt::format("{}: cannot start gzip decompression", path_));
      z_.next_in = raw_.data();
      z_.avail_in = static_cast<uInt>(std::min<size_t>(raw_.size(), std::numeric_limits<uInt>::max()));
      fed_ = z_.avail_in;
    }
  }
  ~ByteSource() {
    if (gzip_) inflateEnd(&z_);
  }
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Fills `out` with n bytes, or throws naming `what` when the file ends first.
  void read(uint8_t* out, size_t n, const std::string& what) {
    if (!gzip_) {
      if (raw_.size() - pos_ < n)
        throw Error(fmt::format("{}: truncated: {} needs {} bytes, {} are left", path_, what, n, raw_.size() - pos_));
      std::memcpy(out, raw_.data() + pos_, n);
      pos_ += n;
      return;
    }
    size_t done = 0;
    while (done < n) {
      if (z_.avail_in == 0 && fed_ < raw_.size()) feed();
      z_.next_out = out + done;
      z_.avail_out = static_cast<uInt>(std::min<size_t>(n - done, std::numeric_limits<uInt>::max()));
      const uInt before = z_.avail_out;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      done += before - z_.avail_out;
      if (rc == Z_STREAM_END && done < n)
        throw Error(fmt::format("{}: truncated: {} needs {} bytes, the stream ended after {}", path_, what, n, done));
      if (rc == Z_BUF_ERROR && z_.avail_in == 0 && fed_ == raw_.size())  // no input left, output wanted
        throw Error(fmt::format("{}: truncated gzip stream while reading {}", path_, what));
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
        throw Error(fmt::format("{}: corrupt gzip data while reading {} ({})", path_, what, z_.msg ? z_.msg : "zlib error"));
    }
  }

  // True when nothing follows what was read (one byte of lookahead at most).
  bool at_end() {
    if (!gzip_) return pos_ == raw_.size();
    uint8_t probe;
    z_.next_out = &probe;
    z_.avail_out = 1;
    for (;;) {
      if (z_.avail_in == 0 && fed_ < raw_.size()) feed();
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (z_.avail_out == 0) return false;  // a byte past the declared data
      if (rc == Z_STREAM_END) return z_.avail_in == 0 && fed_ == raw_.size();
      if (rc != Z_OK) return false;
    }
  }

 private:
  void feed() {
    z_.next_in = raw_.data() + fed_;
    z_.avail_in = static_cast<uInt>(std::min<size_t>(raw_.size() - fed_, std::numeric_limits<uInt>::max()));
    fed_ += z_.avail_in;
  }
  std::string path_;
  std::vector<uint8_t> raw_;
  bool gzip_ = false;
  size_t pos_ = 0, fed_ = 0;
  z_stream z_{};
};

uint32_t big_endian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

float element(const uint8_t* p, const ElementType& t) {
  switch (t.code) {
    case 0x08: return static_cast<float>(p[0]);
    case 0x09: return static_cast<float>(static_cast<int8_t>(p[0]));
    case 0x0B: return static_cast<float>(static_cast<int16_t>((uint16_t{p[0]} << 8) | p[1]));
    case 0x0C: return static_cast<float>(static_cast<int32_t>(big_endian32(p)));
    case 0x0D: {
      const uint32_t bits = big_endian32(p);
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default: {  // 0x0E
      uint64_t bits = (uint64_t{big_endian32(p)} << 32) | big_endian32(p + 4);
      double d;
      std::memcpy(&d, &bits, 8);
      return static_cast<float>(d);
    }
  }
}
}  // namespace

bool looks_like_idx(const std::string& path) {
  try {
    InputFile(path, "IDX file", kMaxIdxFileBytes);  // a regular file: gzopen would wait on a FIFO
  } catch (const Error&) {
    return false;
  }
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files as they are
  if (!f) return false;
  unsigned char head[4];
  const int n = gzread(f, head, 4);
  gzclose(f);
  return n == 4 && head[0] == 0 && head[1] == 0 && head[2] >= 0x08 && head[2] <= 0x0E && head[3] >= 1 && head[3] <= 4;
}

IdxArray read_idx(const std::string& path, int64_t max_values) {
  InputFile file(path, "IDX file", kMaxIdxFileBytes);
  ByteSource in(path, file.read_all<std::vector<uint8_t>>());
  uint8_t magic[4];
  in.read(magic, 4, "the magic number");
  if (magic[0] != 0 || magic[1] != 0)
    throw Error(fmt::format("{}: not an IDX file (the magic number starts {:02x} {:02x}, not 00 00)", path, magic[0],
                            magic[1]));
  const ElementType* type = nullptr;
  for (const ElementType& t : kTypes)
    if (t.code == magic[2]) type = &t;
  if (!type) throw Error(fmt::format("{}: unknown IDX element type 0x{:02x}", path, magic[2]));
  const int ndims = magic[3];
  if (ndims < 1) throw Error(fmt::format("{}: the header declares no dimensions", path));
  IdxArray a;
  a.type = type->name;
  int64_t count = 1;
  for (int k = 0; k < ndims; ++k) {
    uint8_t d[4];
    in.read(d, 4, fmt::format("dimension {}", k));
    const int64_t n = big_endian32(d);
    if (n == 0) throw Error(fmt::format("{}: dimension {} is 0 (the header declares an empty array)", path, k));
    if (n > max_values / count)
      throw Error(fmt::format("{}: dimension {} is {}, so the header declares more than {} values, the bound", path, k,
                              n, max_values));
    count *= n;
    a.shape.push_back(n);
  }
  std::vector<uint8_t> data(static_cast<size_t>(count) * static_cast<size_t>(type->bytes));
  in.read(data.data(), data.size(),
          fmt::format("the data ({} {}s of shape {})", count, type->name, fmt::join(a.shape, "x")));
  if (!in.at_end()) throw Error(fmt::format("{}: bytes after the {} values the header declares", path, count));
  a.values.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) a.values[static_cast<size_t>(i)] = element(data.data() + i * type->bytes, *type);
  return a;
}

}  // namespace tg::tasks
