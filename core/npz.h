// .npz archives (numpy's np.savez format): checkpoints, RNG states and run metadata on disk.
//
// Hand-written rather than borrowed: xtensor's npy reader misreads valid headers (it reads the header
// length through a signed char, so headers of 128+ bytes fail), trusts the sizes it reads and has
// undefined behaviour on malformed input; libzip's CMake package is broken on Debian 12 (it requires
// the zipcmp/zipmerge/ziptool binaries). A stored (uncompressed) zip with zlib's CRC-32 is small.
//
// Writing is atomic (temp file, fsync, rename, fsync of the directory). Reading validates every size
// and field before using it and throws tg::Error("path: what is wrong") on anything unexpected.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace tg {

// One array of an archive. `name` is numpy's key (the zip member is name + ".npy"); `data` holds the
// little-endian, row-major bytes: product(shape) * itemsize(dtype) of them.
struct NpzEntry {
  std::string name;
  std::string dtype;  // "<f4", "<f8", "<i8" or "|u1"
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  NpzEntry() = default;
  NpzEntry(std::string name, std::string dtype, std::vector<int64_t> shape, std::vector<uint8_t> data);
  NpzEntry(std::string name, const Tensor& t);                  // <f4 or <f8, the tensor's shape
  NpzEntry(std::string name, const std::vector<int64_t>& values);  // <i8, 1-d
  NpzEntry(std::string name, const std::vector<int64_t>& values, std::vector<int64_t> shape);
  NpzEntry(std::string name, const std::vector<double>& values);   // <f8, 1-d
  NpzEntry(std::string name, const std::vector<double>& values, std::vector<int64_t> shape);
  NpzEntry(std::string name, std::string_view bytes);  // |u1, 1-d: JSON text, an RNG state, ...

  int64_t count() const;  // number of elements
  // Typed copies of the values; each throws tg::Error naming the array when the dtype differs.
  std::vector<int64_t> int64s() const;  // <i8
  std::vector<double> doubles() const;  // <f4 or <f8
  std::string bytes() const;            // |u1
};

// Writes `entries` to `path` atomically: an existing file there is replaced only when the whole new
// file is on disk, and survives any failure unchanged. Throws tg::Error naming the path and the reason.
void write_npz(const std::string& path, const std::vector<NpzEntry>& entries);

// Reads and fully validates an archive written by write_npz or by numpy (np.savez, not savez_compressed).
std::vector<NpzEntry> read_npz(const std::string& path);
// The same from bytes in memory; `name` stands for the path in error messages.
std::vector<NpzEntry> read_npz_bytes(const std::string& name, std::vector<uint8_t> bytes);

// A float32/float64 tensor from an <f4/<f8 entry of rank <= 4; throws tg::Error otherwise.
Tensor to_tensor(const NpzEntry& e);

// An archive loaded into memory with lookup by name; errors name the file and the array.
class NpzArchive {
 public:
  explicit NpzArchive(std::string path);  // read_npz(path)
  const std::string& path() const { return path_; }
  const std::map<std::string, NpzEntry, std::less<>>& entries() const { return entries_; }
  bool contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }
  const NpzEntry& at(std::string_view name) const;  // "path: no array 'x' (arrays: a, b)"
  Tensor tensor(std::string_view name) const;
  std::vector<int64_t> int64s(std::string_view name) const;
  std::vector<double> doubles(std::string_view name) const;
  std::string bytes(std::string_view name) const;

 private:
  std::string path_;
  std::map<std::string, NpzEntry, std::less<>> entries_;
};

}  // namespace tg
