// .npz reading and writing; see npz.h for why this is hand-written. Zip layout: APPNOTE.TXT 6.3
// (local header + data per member, then the central directory, then the end record); npy layout:
// numpy/lib/format.py (magic, version, little-endian header length, a Python dict literal, data).
#include "core/npz.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/input_file.h"

// Entry bytes are the host's bytes; numpy's "<" means little-endian.
static_assert(std::endian::native == std::endian::little, "tools/npz.cc assumes a little-endian host");

namespace tg {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint64_t kNoZip64Max = 0xFFFFFFFE;  // 0xFFFFFFFF in a size or offset field means "see zip64"
constexpr size_t kLocalHeaderSize = 30, kCentralHeaderSize = 46, kEndRecordSize = 22;
constexpr uint16_t kFlagEncrypted = 0x0001, kFlagDataDescriptor = 0x0008, kFlagStrongEncryption = 0x0040,
                   kFlagUtf8Name = 0x0800;
constexpr int kMaxNpyRank = 64;  // numpy's NPY_MAXDIMS is 32 (64 in numpy 2)
// Reproducible files: every member is dated 1980-01-01 00:00 (the DOS epoch), so equal arrays give
// byte-identical archives.
constexpr uint16_t kDosTime = 0, kDosDate = (0 << 9) | (1 << 5) | 1;

struct DtypeInfo {
  std::string_view descr;
  uint64_t itemsize;
};
constexpr DtypeInfo kDtypes[] = {{"<f4", 4}, {"<f8", 8}, {"<i8", 8}, {"|u1", 1}};

const DtypeInfo* find_dtype(std::string_view descr) {
  for (const DtypeInfo& d : kDtypes)
    if (d.descr == descr) return &d;
  return nullptr;
}

std::string shape_str(const std::vector<int64_t>& shape) {  // Python's tuple repr: (), (3,), (3, 4)
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// Bytes an array of this dtype and shape occupies; an empty string on success, else what is wrong.
std::string array_bytes(std::string_view descr, const std::vector<int64_t>& shape, uint64_t* bytes) {
  const DtypeInfo* d = find_dtype(descr);
  if (!d) return fmt::format("unsupported dtype '{}' (supported: <f4, <f8, <i8, |u1)", descr);
  uint64_t n = 1;
  bool has_zero = false;
  for (int64_t dim : shape) {
    if (dim < 0) return fmt::format("negative extent in shape {}", shape_str(shape));
    has_zero |= dim == 0;
  }
  if (has_zero) {
    *bytes = 0;
    return "";
  }
  for (int64_t dim : shape)
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(dim), &n))
      return fmt::format("shape {} overflows 64 bits", shape_str(shape));
  if (__builtin_mul_overflow(n, d->itemsize, &n) || n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return fmt::format("shape {} of {} overflows 64 bits", shape_str(shape), descr);
  *bytes = n;
  return "";
}

// Throws unless the entry's data matches its dtype and shape; `where` prefixes the message.
void check_entry(const NpzEntry& e, std::string_view where) {
  uint64_t bytes = 0;
  std::string bad = array_bytes(e.dtype, e.shape, &bytes);
  if (!bad.empty()) throw Error(fmt::format("{}array '{}': {}", where, e.name, bad));
  if (bytes != e.data.size())
    throw Error(fmt::format("{}array '{}': shape {} of {} needs {} bytes but {} are given", where, e.name,
                            shape_str(e.shape), e.dtype, bytes, e.data.size()));
}

void expect_dtype(const NpzEntry& e, std::initializer_list<std::string_view> wanted, std::string_view as) {
  if (std::find(wanted.begin(), wanted.end(), e.dtype) == wanted.end())
    throw Error(fmt::format("array '{}' has dtype '{}', not {}", e.name, e.dtype, as));
  check_entry(e, "");
}

template <class T>
std::vector<uint8_t> bytes_of(const T* p, size_t n) {
  const auto* b = reinterpret_cast<const uint8_t*>(p);
  return std::vector<uint8_t>(b, b + n * sizeof(T));
}

// ---------------------------------------------------------------------------------------------- writing

void put16(std::string& s, uint16_t v) {
  s += static_cast<char>(v & 0xFF);
  s += static_cast<char>(v >> 8);
}
void put32(std::string& s, uint32_t v) {
  put16(s, static_cast<uint16_t>(v & 0xFFFF));
  put16(s, static_cast<uint16_t>(v >> 16));
}

// The npy preamble and header of an entry, padded with spaces and a newline so that the data starts
// at a multiple of 64 bytes from the start of the .npy (numpy's ARRAY_ALIGN).
std::string npy_header(const NpzEntry& e) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", e.dtype,
                                 shape_str(e.shape));
  for (int major : {1, 2}) {
    size_t preamble = major == 1 ? 10 : 12;
    size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
    size_t header_len = total - preamble;
    if (major == 1 && header_len > 0xFFFF) continue;  // version 2.0 has a 4-byte header length
    std::string h = "\x93NUMPY";
    h += static_cast<char>(major);
    h += '\0';
    if (major == 1)
      put16(h, static_cast<uint16_t>(header_len));
    else
      put32(h, static_cast<uint32_t>(header_len));
    h += dict;
    h.append(total - h.size() - 1, ' ');
    h += '\n';
    return h;
  }
  throw Error(fmt::format("array '{}': npy header too long", e.name));
}

// ---------------------------------------------------------------------------------------------- reading

// Bounds-checked little-endian reads over the whole file; every failure names the file.
class ZipReader {
 public:
  ZipReader(std::string path, std::vector<uint8_t> bytes) : path_(std::move(path)), buf_(std::move(bytes)) {}

  template <class... A>
  [[noreturn]] void fail(fmt::format_string<A...> f, A&&... args) const {
    throw Error(path_ + ": " + fmt::format(f, std::forward<A>(args)...));
  }

  std::vector<NpzEntry> read();

 private:
  struct Member {
    std::string zip_name;
    uint16_t flags = 0;
    uint32_t crc = 0;
    uint64_t size = 0;  // stored: compressed size == uncompressed size
    uint64_t local_offset = 0;
    uint64_t data_offset = 0;  // filled from the local header
  };

  uint16_t u16(uint64_t at) const { return static_cast<uint16_t>(buf_[at] | (buf_[at + 1] << 8)); }
  uint32_t u32(uint64_t at) const { return u16(at) | (static_cast<uint32_t>(u16(at + 2)) << 16); }
  uint64_t u64(uint64_t at) const { return u32(at) | (static_cast<uint64_t>(u32(at + 4)) << 32); }

  uint64_t find_end_record() const;
  // Replaces the 0xFFFFFFFF fields among `fields` with their zip64 extra-field values.
  void apply_zip64(uint64_t extra, uint64_t extra_len, std::initializer_list<uint64_t*> fields,
                   const std::string& entry) const;
  void read_local_header(Member& m, uint64_t data_end) const;
  NpzEntry parse_npy(const Member& m) const;

  std::string path_;
  std::vector<uint8_t> buf_;
};

uint64_t ZipReader::find_end_record() const {
  const uint64_t size = buf_.size();
  bool is_npy = size >= 6 && std::memcmp(buf_.data(), "\x93NUMPY", 6) == 0;
  if (size == 0) fail("empty file (not an .npz archive)");
  if (is_npy) fail("this is a single .npy array, not an .npz archive");
  uint64_t misplaced = 0;  // the end of an end record that does not end the file
  if (size >= kEndRecordSize) {
    // The end record is the last thing in the file, followed only by its comment (< 64 KiB).
    uint64_t lowest = size - kEndRecordSize > 0xFFFF ? size - kEndRecordSize - 0xFFFF : 0;
    for (uint64_t at = size - kEndRecordSize + 1; at-- > lowest;) {
      if (u32(at) != kEndSig) continue;
      uint64_t record_end = at + kEndRecordSize + u16(at + 20);
      if (record_end == size) return at;
      if (record_end < size && !misplaced) misplaced = record_end;
    }
  }
  if (misplaced) fail("{} bytes of data after the end-of-central-directory record", size - misplaced);
  if (size >= 4 && u32(0) == kLocalSig)
    fail("truncated: no end-of-central-directory record in {} bytes", size);
  fail("not an .npz (zip) archive: no end-of-central-directory record");
}

void ZipReader::apply_zip64(uint64_t extra, uint64_t extra_len, std::initializer_list<uint64_t*> fields,
                            const std::string& entry) const {
  size_t wanted = 0;
  for (uint64_t* f : fields) wanted += *f == 0xFFFFFFFF;
  bool found = false;
  for (uint64_t at = extra, end = extra + extra_len; end - at >= 4;) {
    uint16_t id = u16(at), len = u16(at + 2);
    if (len > end - at - 4) fail("entry '{}': malformed extra field", entry);
    if (id == 0x0001 && wanted) {
      if (len < 8 * wanted) fail("entry '{}': zip64 extra field of {} bytes, {} needed", entry, len, 8 * wanted);
      uint64_t p = at + 4;
      for (uint64_t* f : fields)
        if (*f == 0xFFFFFFFF) {
          *f = u64(p);
          p += 8;
        }
      found = true;
    }
    at += 4 + len;
  }
  if (wanted && !found) fail("entry '{}': size or offset 0xFFFFFFFF without a zip64 extra field", entry);
}

void ZipReader::read_local_header(Member& m, uint64_t data_end) const {
  const std::string& name = m.zip_name;
  uint64_t at = m.local_offset;
  if (at > data_end || data_end - at < kLocalHeaderSize)
    fail("truncated: entry '{}' has its local header at offset {}, but entry data ends at {}", name, at, data_end);
  if (u32(at) != kLocalSig) fail("entry '{}': no local header signature at offset {}", name, at);
  uint16_t flags = u16(at + 6), method = u16(at + 8);
  uint64_t crc = u32(at + 14), csize = u32(at + 18), usize = u32(at + 22);
  uint64_t name_len = u16(at + 26), extra_len = u16(at + 28);
  uint64_t header = kLocalHeaderSize + name_len + extra_len;
  if (header > data_end - at)
    fail("truncated: local header of entry '{}' needs {} bytes, {} remain", name, header, data_end - at);
  std::string local_name(reinterpret_cast<const char*>(&buf_[at + kLocalHeaderSize]), name_len);
  if (local_name != name) fail("entry '{}': its local header names it '{}'", name, local_name);
  if (method != 0) fail("entry '{}': local header says compression method {}", name, method);
  if (flags != m.flags) fail("entry '{}': flags {:#x} in the local header, {:#x} in the central directory", name, flags, m.flags);
  apply_zip64(at + kLocalHeaderSize + name_len, extra_len, {&usize, &csize}, name);
  // With a data descriptor (bit 3) the local CRC and sizes may be zero; the central directory has them.
  bool deferred = (flags & kFlagDataDescriptor) && crc == 0 && csize == 0 && usize == 0;
  if (!deferred && (crc != m.crc || csize != m.size || usize != m.size))
    fail("entry '{}': local header (CRC {:08x}, {} bytes) disagrees with the central directory (CRC {:08x}, {} bytes)",
         name, crc, csize, m.crc, m.size);
  m.data_offset = at + header;
  uint64_t remain = data_end - m.data_offset;
  if (m.size > remain) fail("truncated: entry '{}' needs {} bytes, {} remain", name, m.size, remain);
}

// A strict reader of numpy's header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class NpyHeaderParser {
 public:
  NpyHeaderParser(std::string_view text, const ZipReader& zip, const std::string& entry)
      : s_(text), zip_(zip), entry_(entry) {}

  void parse(std::string& descr, bool& fortran_order, std::vector<int64_t>& shape) {
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    skip_space();
    expect('{');
    for (skip_space(); !eat('}'); skip_space()) {
      std::string key = string_literal("a key");
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr") {
        once(seen_descr, key);
        if (peek() == '[') bad("structured dtypes are not supported");
        descr = string_literal("'descr'");
      } else if (key == "fortran_order") {
        once(seen_fortran, key);
        fortran_order = boolean();
      } else if (key == "shape") {
        once(seen_shape, key);
        shape = tuple();
      } else {
        bad(fmt::format("unexpected key '{}'", key));
      }
      skip_space();
      if (eat('}')) break;
      expect(',');
    }
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
    if (i_ != s_.size()) bad("unexpected text after the header dict");
    if (!seen_descr || !seen_fortran || !seen_shape) bad("needs the keys 'descr', 'fortran_order' and 'shape'");
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    zip_.fail("entry '{}': bad .npy header at character {}: {}", entry_, i_, what);
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool eat(char c) {
    if (peek() != c || i_ >= s_.size()) return false;
    ++i_;
    return true;
  }
  void expect(char c) {
    if (!eat(c)) bad(fmt::format("expected '{}'", c));
  }
  void skip_space() {
    while (peek() == ' ') ++i_;
  }
  void once(bool& seen, const std::string& key) {
    if (seen) bad(fmt::format("duplicate key '{}'", key));
    seen = true;
  }
  std::string string_literal(std::string_view what) {
    char q = peek();
    if (q != '\'' && q != '"') bad(fmt::format("expected a string for {}", what));
    size_t end = s_.find(q, ++i_);
    if (end == std::string_view::npos) bad("unterminated string");
    std::string_view body = s_.substr(i_, end - i_);
    if (body.find('\\') != std::string_view::npos) bad("escapes in strings are not supported");
    i_ = end + 1;
    return std::string(body);
  }
  bool boolean() {
    if (s_.substr(i_, 4) == "True") return i_ += 4, true;
    if (s_.substr(i_, 5) == "False") return i_ += 5, false;
    bad("'fortran_order' must be True or False");
  }
  int64_t integer() {
    if (peek() < '0' || peek() > '9') bad("expected a non-negative integer in 'shape'");
    int64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[i_] - '0', &v))
        bad("extent in 'shape' overflows 64 bits");
      ++i_;
    }
    return v;
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    skip_space();
    bool trailing_comma = false;
    while (!eat(')')) {
      if (static_cast<int>(dims.size()) == kMaxNpyRank) bad(fmt::format("rank above {}", kMaxNpyRank));
      dims.push_back(integer());
      skip_space();
      trailing_comma = eat(',');
      skip_space();
      if (!trailing_comma && peek() != ')') bad("expected ',' or ')' in 'shape'");
    }
    if (dims.size() == 1 && !trailing_comma) bad("'shape' must be a tuple: (n,) not (n)");
    return dims;
  }

  std::string_view s_;
  size_t i_ = 0;
  const ZipReader& zip_;
  const std::string& entry_;
};

NpzEntry ZipReader::parse_npy(const Member& m) const {
  const std::string& name = m.zip_name;
  const uint8_t* p = &buf_[m.data_offset];
  const uint64_t len = m.size;
  if (len < 10 || std::memcmp(p, "\x93NUMPY", 6) != 0) fail("entry '{}': not an .npy array (no \\x93NUMPY magic)", name);
  int major = p[6], minor = p[7];
  if (!((major == 1 || major == 2) && minor == 0))
    fail("entry '{}': .npy format version {}.{} is not supported (1.0 and 2.0 are)", name, major, minor);
  uint64_t preamble = major == 1 ? 10 : 12;
  if (len < preamble) fail("entry '{}': truncated .npy preamble", name);
  // Unsigned reads: header lengths of 128 bytes and more are common and valid.
  uint64_t header_len = major == 1 ? u16(m.data_offset + 8) : u32(m.data_offset + 8);
  if (header_len > len - preamble)
    fail("entry '{}': .npy header of {} bytes, but only {} remain", name, header_len, len - preamble);
  std::string_view header(reinterpret_cast<const char*>(p + preamble), header_len);
  std::string descr;
  bool fortran_order = true;
  std::vector<int64_t> shape;
  NpyHeaderParser(header, *this, name).parse(descr, fortran_order, shape);
  if (fortran_order) fail("entry '{}': fortran_order arrays are not supported", name);
  uint64_t need = 0;
  std::string bad = array_bytes(descr, shape, &need);
  if (!bad.empty()) fail("entry '{}': {}", name, bad);
  uint64_t have = len - preamble - header_len;
  if (need != have)
    fail("entry '{}': shape {} of {} needs {} bytes of data, the entry has {}", name, shape_str(shape), descr, need, have);
  NpzEntry e;
  e.name = name.substr(0, name.size() - 4);
  e.dtype = descr;
  e.shape = std::move(shape);
  e.data.assign(p + preamble + header_len, p + len);
  return e;
}

std::vector<NpzEntry> ZipReader::read() {
  const uint64_t end = find_end_record();
  uint16_t disk = u16(end + 4), cd_disk = u16(end + 6);
  uint64_t count_here = u16(end + 8), count = u16(end + 10);
  uint64_t cd_size = u32(end + 12), cd_offset = u32(end + 16);
  if (count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF ||
      (end >= 20 && u32(end - 20) == kZip64LocatorSig))
    fail("zip64 archives (over 65535 arrays or 4 GiB) are not supported");
  if (disk != 0 || cd_disk != 0 || count_here != count) fail("multi-disk zip archives are not supported");
  if (cd_offset > end || cd_size > end - cd_offset)
    fail("truncated: central directory of {} bytes at offset {}, but the end record is at {}", cd_size, cd_offset, end);
  if (cd_offset + cd_size != end)
    fail("{} bytes of garbage between the central directory and the end record", end - cd_offset - cd_size);

  std::vector<Member> members;
  std::set<std::string> names;
  uint64_t at = cd_offset;
  for (uint64_t i = 0; i < count; ++i) {
    if (end - at < kCentralHeaderSize)
      fail("truncated central directory: entry {} of {} needs {} bytes, {} remain", i + 1, count, kCentralHeaderSize, end - at);
    if (u32(at) != kCentralSig) fail("central directory entry {} of {}: bad signature", i + 1, count);
    Member m;
    m.flags = u16(at + 8);
    uint16_t method = u16(at + 10);
    m.crc = u32(at + 16);
    uint64_t csize = u32(at + 20), usize = u32(at + 24);
    uint64_t name_len = u16(at + 28), extra_len = u16(at + 30), comment_len = u16(at + 32);
    uint64_t disk_start = u16(at + 34);
    m.local_offset = u32(at + 42);
    uint64_t record = kCentralHeaderSize + name_len + extra_len + comment_len;
    if (record > end - at)
      fail("truncated central directory: entry {} of {} needs {} bytes, {} remain", i + 1, count, record, end - at);
    m.zip_name.assign(reinterpret_cast<const char*>(&buf_[at + kCentralHeaderSize]), name_len);
    const std::string& name = m.zip_name;
    apply_zip64(at + kCentralHeaderSize + name_len, extra_len, {&usize, &csize, &m.local_offset}, name);
    if (m.flags & (kFlagEncrypted | kFlagStrongEncryption)) fail("entry '{}': encrypted entries are not supported", name);
    if (method != 0)
      fail("entry '{}': compression method {} (only stored entries are read: np.savez, not np.savez_compressed)", name, method);
    if (csize != usize) fail("entry '{}': stored entry with compressed size {} but size {}", name, csize, usize);
    if (disk_start != 0) fail("entry '{}': on another disk (multi-disk archives are not supported)", name);
    if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".npy") != 0)
      fail("entry '{}': not an .npy member (names must end in .npy)", name);
    if (name.find('\0') != std::string::npos) fail("entry {} of {}: NUL in its name", i + 1, count);
    if (!names.insert(name).second) fail("duplicate entry '{}'", name);
    m.size = csize;
    members.push_back(std::move(m));
    at += record;
  }
  if (at != end) fail("{} bytes of trailing garbage in the central directory", end - at);

  for (Member& m : members) read_local_header(m, cd_offset);
  // Members must not share bytes: overlapping entries are a known zip-bomb and confusion trick.
  std::vector<const Member*> by_offset;
  for (const Member& m : members) by_offset.push_back(&m);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const Member* a, const Member* b) { return a->local_offset < b->local_offset; });
  for (size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i - 1]->data_offset + by_offset[i - 1]->size > by_offset[i]->local_offset)
      fail("entries '{}' and '{}' overlap", by_offset[i - 1]->zip_name, by_offset[i]->zip_name);

  std::vector<NpzEntry> entries;
  for (const Member& m : members) {
    uint32_t crc = static_cast<uint32_t>(crc32_z(0, buf_.data() + m.data_offset, m.size));
    if (crc != m.crc) fail("entry '{}': CRC-32 mismatch (stored {:08x}, computed {:08x}): the file is corrupt", m.zip_name, m.crc, crc);
    entries.push_back(parse_npy(m));
  }
  return entries;
}

// Through InputFile: a FIFO or a device given as a checkpoint is refused, not waited on or read forever.
std::vector<uint8_t> read_whole_file(const std::string& path) {
  return InputFile(path, "archive", kMaxCheckpointBytes).read_all<std::vector<uint8_t>>();
}

}  // namespace

// ---------------------------------------------------------------------------------------------- NpzEntry

NpzEntry::NpzEntry(std::string name_, std::string dtype_, std::vector<int64_t> shape_, std::vector<uint8_t> data_)
    : name(std::move(name_)), dtype(std::move(dtype_)), shape(std::move(shape_)), data(std::move(data_)) {}

NpzEntry::NpzEntry(std::string name_, const Tensor& t) : name(std::move(name_)) {
  if (!t.defined()) throw Error(fmt::format("npz: array '{}': undefined tensor", name));
  dtype = t.dtype() == DType::f32 ? "<f4" : "<f8";
  shape.assign(t.shape().begin(), t.shape().end());
  const auto* p = static_cast<const uint8_t*>(t.raw());
  data.assign(p, p + static_cast<size_t>(t.size()) * dtype_size(t.dtype()));
}

NpzEntry::NpzEntry(std::string name_, const std::vector<int64_t>& values)
    : NpzEntry(std::move(name_), values, {static_cast<int64_t>(values.size())}) {}

NpzEntry::NpzEntry(std::string name_, const std::vector<int64_t>& values, std::vector<int64_t> shape_)
    : name(std::move(name_)), dtype("<i8"), shape(std::move(shape_)), data(bytes_of(values.data(), values.size())) {
  check_entry(*this, "npz: ");
}

NpzEntry::NpzEntry(std::string name_, const std::vector<double>& values)
    : NpzEntry(std::move(name_), values, {static_cast<int64_t>(values.size())}) {}

NpzEntry::NpzEntry(std::string name_, const std::vector<double>& values, std::vector<int64_t> shape_)
    : name(std::move(name_)), dtype("<f8"), shape(std::move(shape_)), data(bytes_of(values.data(), values.size())) {
  check_entry(*this, "npz: ");
}

NpzEntry::NpzEntry(std::string name_, std::string_view bytes)
    : name(std::move(name_)), dtype("|u1"), shape{static_cast<int64_t>(bytes.size())},
      data(bytes_of(bytes.data(), bytes.size())) {}

int64_t NpzEntry::count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> NpzEntry::int64s() const {
  expect_dtype(*this, {"<i8"}, "int64 (<i8)");
  std::vector<int64_t> v(data.size() / 8);
  if (!v.empty()) std::memcpy(v.data(), data.data(), data.size());
  return v;
}

std::vector<double> NpzEntry::doubles() const {
  expect_dtype(*this, {"<f8", "<f4"}, "floating point (<f4 or <f8)");
  if (dtype == "<f8") {
    std::vector<double> v(data.size() / 8);
    if (!v.empty()) std::memcpy(v.data(), data.data(), data.size());
    return v;
  }
  std::vector<float> f(data.size() / 4);
  if (!f.empty()) std::memcpy(f.data(), data.data(), data.size());
  return std::vector<double>(f.begin(), f.end());
}

std::string NpzEntry::bytes() const {
  expect_dtype(*this, {"|u1"}, "bytes (|u1)");
  return std::string(data.begin(), data.end());
}

Tensor to_tensor(const NpzEntry& e) {
  expect_dtype(e, {"<f4", "<f8"}, "a tensor type (<f4 or <f8)");
  if (static_cast<int>(e.shape.size()) > Shape::kMaxRank)
    throw Error(fmt::format("array '{}' has rank {}; tensors have rank at most {}", e.name, e.shape.size(), Shape::kMaxRank));
  Tensor t = Tensor::empty(Shape(e.shape.begin(), e.shape.end()), e.dtype == "<f4" ? DType::f32 : DType::f64);
  if (!e.data.empty()) std::memcpy(t.raw(), e.data.data(), e.data.size());
  return t;
}

// ---------------------------------------------------------------------------------------------- files

void write_npz(const std::string& path, const std::vector<NpzEntry>& entries) {
  // Everything is checked before the disk is touched, and the sizes are known up front because this
  // writer does not produce zip64 (no 4 GiB checkpoints here).
  const std::string where = path + ": ";
  if (entries.size() > 0xFFFF) throw Error(fmt::format("{}{} arrays, at most 65535 are supported", where, entries.size()));
  std::set<std::string_view> names;
  std::vector<std::string> headers;
  uint64_t offset = 0, central_size = 0;
  for (const NpzEntry& e : entries) {
    if (e.name.empty() || e.name.find('\0') != std::string::npos || e.name.size() > 0xFFFF - 4)
      throw Error(fmt::format("{}bad array name '{}'", where, e.name));
    if (!names.insert(e.name).second) throw Error(fmt::format("{}duplicate array name '{}'", where, e.name));
    check_entry(e, where);
    headers.push_back(npy_header(e));
    uint64_t member = headers.back().size() + e.data.size();
    if (member > kNoZip64Max || offset > kNoZip64Max) throw Error(fmt::format("{}archive over 4 GiB (zip64) is not supported", where));
    offset += kLocalHeaderSize + e.name.size() + 4 + member;
    central_size += kCentralHeaderSize + e.name.size() + 4;
  }
  if (offset > kNoZip64Max || central_size > kNoZip64Max)
    throw Error(fmt::format("{}archive over 4 GiB (zip64) is not supported", where));

  AtomicFile out(path);
  std::string central;
  offset = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const NpzEntry& e = entries[i];
    const std::string& npy = headers[i];
    std::string zip_name = e.name + ".npy";
    uint32_t crc = static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(npy.data()), npy.size()));
    if (!e.data.empty()) crc = static_cast<uint32_t>(crc32_z(crc, e.data.data(), e.data.size()));  // NULL buf resets the CRC
    uint32_t size = static_cast<uint32_t>(npy.size() + e.data.size());
    bool utf8 = std::any_of(zip_name.begin(), zip_name.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    uint16_t flags = utf8 ? kFlagUtf8Name : 0;

    std::string local;
    put32(local, kLocalSig);
    put16(local, 20);  // version needed: 2.0
    put16(local, flags);
    put16(local, 0);  // stored
    put16(local, kDosTime);
    put16(local, kDosDate);
    put32(local, crc);
    put32(local, size);
    put32(local, size);
    put16(local, static_cast<uint16_t>(zip_name.size()));
    put16(local, 0);  // no extra field
    local += zip_name;
    out.write(local);
    out.write(npy);
    out.write(e.data.data(), e.data.size());

    put32(central, kCentralSig);
    put16(central, (3 << 8) | 20);  // made by: Unix, zip 2.0 (so the mode below means rw-r--r--)
    put16(central, 20);
    put16(central, flags);
    put16(central, 0);
    put16(central, kDosTime);
    put16(central, kDosDate);
    put32(central, crc);
    put32(central, size);
    put32(central, size);
    put16(central, static_cast<uint16_t>(zip_name.size()));
    put16(central, 0);  // extra
    put16(central, 0);  // comment
    put16(central, 0);  // disk
    put16(central, 0);  // internal attributes
    put32(central, 0100644u << 16);  // external attributes: regular file, 0644
    put32(central, static_cast<uint32_t>(offset));
    central += zip_name;
    offset += local.size() + size;
  }
  std::string end;
  put32(end, kEndSig);
  put16(end, 0);
  put16(end, 0);
  put16(end, static_cast<uint16_t>(entries.size()));
  put16(end, static_cast<uint16_t>(entries.size()));
  put32(end, static_cast<uint32_t>(central.size()));
  put32(end, static_cast<uint32_t>(offset));
  put16(end, 0);  // comment
  out.write(central);
  out.write(end);
  out.commit();
}

std::vector<NpzEntry> read_npz(const std::string& path) { return read_npz_bytes(path, read_whole_file(path)); }

std::vector<NpzEntry> read_npz_bytes(const std::string& name, std::vector<uint8_t> bytes) {
  return ZipReader(name, std::move(bytes)).read();
}

// ---------------------------------------------------------------------------------------------- NpzArchive

NpzArchive::NpzArchive(std::string path) : path_(std::move(path)) {
  for (NpzEntry& e : read_npz(path_)) {
    std::string name = e.name;
    entries_.emplace(std::move(name), std::move(e));
  }
}

const NpzEntry& NpzArchive::at(std::string_view name) const {
  auto it = entries_.find(name);
  if (it != entries_.end()) return it->second;
  std::string have;
  for (const auto& [n, e] : entries_) have += (have.empty() ? "" : ", ") + n;
  throw Error(fmt::format("{}: no array '{}' (arrays: {})", path_, name, have.empty() ? "none" : have));
}

namespace {
template <class F>
auto with_path(const std::string& path, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}
}  // namespace

Tensor NpzArchive::tensor(std::string_view name) const {
  const NpzEntry& e = at(name);
  return with_path(path_, [&] { return to_tensor(e); });
}
std::vector<int64_t> NpzArchive::int64s(std::string_view name) const {
  const NpzEntry& e = at(name);
  return with_path(path_, [&] { return e.int64s(); });
}
std::vector<double> NpzArchive::doubles(std::string_view name) const {
  const NpzEntry& e = at(name);
  return with_path(path_, [&] { return e.doubles(); });
}
std::string NpzArchive::bytes(std::string_view name) const {
  const NpzEntry& e = at(name);
  return with_path(path_, [&] { return e.bytes(); });
}

}  // namespace tg
