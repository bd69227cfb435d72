# Sanitizer and fuzzing builds (scripts/sanitize.sh, scripts/fuzz.sh, docs/fuzzing.md).
#
#   TAPEGRAD_SANITIZE=address,undefined   every target compiled and linked with -fsanitize=<list>;
#                                         every finding is fatal (-fno-sanitize-recover=all)
#   TAPEGRAD_FUZZ=ON                      the libFuzzer harnesses in fuzz/ (clang only); the libraries
#                                         get libFuzzer's coverage instrumentation (fuzzer-no-link)
#
# Either one turns tcmalloc off: a sanitizer's allocator must be the only one (ASan's replaces
# malloc; tcmalloc linked beside it takes some allocations and ASan reports bad frees). So does
# -fsanitize in CMAKE_CXX_FLAGS.
set(TAPEGRAD_SANITIZE "" CACHE STRING "sanitizers for every target, as -fsanitize= takes them (e.g. address,undefined)")
option(TAPEGRAD_FUZZ "build the libFuzzer harnesses in fuzz/ (needs clang)" OFF)

if(TAPEGRAD_SANITIZE)
  add_compile_options(-fsanitize=${TAPEGRAD_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${TAPEGRAD_SANITIZE} -fno-sanitize-recover=all)
  message(STATUS "tapegrad: sanitizers ${TAPEGRAD_SANITIZE} (fatal)")
endif()
if(TAPEGRAD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TAPEGRAD_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(TAPEGRAD_SANITIZE OR TAPEGRAD_FUZZ OR CMAKE_CXX_FLAGS MATCHES "-fsanitize")
  # A normal variable: option(TAPEGRAD_TCMALLOC ...) then leaves it alone (policy CMP0077).
  set(TAPEGRAD_TCMALLOC OFF)
  message(STATUS "tapegrad: tcmalloc off under sanitizers")
endif()
