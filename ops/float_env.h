// Denormal (subnormal) floats: flushed to zero, or kept as IEEE 754 says. On x86 an operation that
// makes or reads a subnormal takes a microcode assist, tens of times slower than a normal one; a trained
// network whose weights, gradients or Adam moments drift into the subnormal range (|x| < 1.2e-38 in
// float32) then runs several times slower per step (measured: an LSTM regression after 6,000 Adam
// updates, 3.2 against 14.8 iterations per second with flushing, docs/results/denormals.md);
// tapegrad runs record their choice (RunConfig::denormals) and flush unless told to keep them.
#pragma once
#include <string>

namespace tg::fenv {

// Sets the calling thread's mode: flush = FTZ (results that would be subnormal become 0) and DAZ
// (subnormal inputs read as 0). Threads created afterwards inherit it (POSIX: a new thread starts
// with its creator's floating-point environment): the threads that split a batch (core/fork_join.h)
// and OpenMP's (oneDNN's products) start after a run is made. OpenBLAS's own worker threads start when
// the library loads and keep IEEE arithmetic: products OpenBLAS splits between its threads (eval and
// sample with more than one BLAS thread; training runs one BLAS thread per batch shard) may not flush.
// No effect (and flush_supported() false) on CPUs without these modes.
void set_flush_denormals(bool flush);
bool flushing_denormals();  // the calling thread's mode
bool flush_supported();

// "" (the default: flush where the CPU can) / flush / keep, as a run records it: "flush" or "keep".
std::string resolve_denormals(const std::string& choice);

}  // namespace tg::fenv
