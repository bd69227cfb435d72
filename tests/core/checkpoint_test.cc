// save_parameters / load_parameters: a round trip is exact, and a file for another model is refused
// with the parameter named, leaving the set unchanged.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "core/checkpoint.h"
#include "tests/harness/error_of.h"

namespace tg {
namespace {

using check::error_of;

struct ScratchFile {
  std::string path = (std::filesystem::temp_directory_path() / ("tg_ckpt_" + std::to_string(::getpid()) + ".npz")).string();
  ~ScratchFile() { std::filesystem::remove(path); }
};

TEST(Checkpoint, RoundTripIsExactAndMismatchesNameTheParameter) {
  Rng rng(3);
  ParamSet a(DType::f32);
  a.add("W", {3, 4}, init::normal(1.0), &rng);
  a.add("b", {4}, init::normal(1.0), &rng);
  ScratchFile f;
  save_parameters(f.path, a, {NpzEntry("iteration", std::vector<int64_t>{7})});
  EXPECT_EQ(NpzArchive(f.path).int64s("iteration"), std::vector<int64_t>{7});

  ParamSet b(DType::f32);
  b.add("W", {3, 4}, init::zeros());
  b.add("b", {4}, init::zeros());
  load_parameters(f.path, b);
  EXPECT_EQ(std::memcmp(a.values().flat().raw(), b.values().flat().raw(), sizeof(float) * 16), 0);

  ParamSet other(DType::f32);
  other.add("W", {4, 3}, init::zeros());
  other.add("c", {4}, init::zeros());
  const std::string msg = error_of([&] { load_parameters(f.path, other); });
  EXPECT_NE(msg.find("parameter 'W' is [3,4] there, [4,3] here"), std::string::npos) << msg;
  EXPECT_EQ(other.values().norm(), 0.0);
  ParamSet missing(DType::f32);
  missing.add("c", {4}, init::zeros());
  EXPECT_NE(error_of([&] { load_parameters(f.path, missing); }).find("no array 'param/c'"), std::string::npos);
}

}  // namespace
}  // namespace tg
