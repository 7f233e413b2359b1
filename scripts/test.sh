#!/usr/bin/env bash
# The test command: installs what is needed, builds with warnings as errors, runs every test in
# Release, the Python package's pytest suite and the aarch64 cross build's tests under qemu-user,
# then the tests again under the address and undefined-behaviour sanitizers, then the threading
# tests under the thread sanitizer, then each libFuzzer target for a bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh
jobs=$(nproc)
step() { printf '\n=== %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }

step "release: configure and build"
cmake --preset release >/dev/null
cmake --build --preset release -j"$jobs"
step "release: tests"
ctest --preset release -j"$jobs"

step "python package: install into out/venv, pytest"
./scripts/test_python.sh

step "aarch64: cross build, tests under qemu-user (NEON, then SVE)"
./scripts/test_aarch64.sh

step "address+undefined sanitizers: configure and build"
cmake --preset asan >/dev/null
cmake --build --preset asan -j"$jobs"
step "address+undefined sanitizers: tests"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --preset asan -j"$jobs"

step "thread sanitizer: configure and build"
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j"$jobs" --target openaclnn_threads_tests
step "thread sanitizer: threading tests"
TSAN_OPTIONS=halt_on_error=1 ctest --preset tsan -j"$jobs"
step "fuzzers (clang, libFuzzer, address+undefined): build"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$jobs"
step "fuzzers: ${OPENACLNN_FUZZ_SECONDS:-20} s each from the seed corpora"
cmake -B build/fuzz -DOPENACLNN_FUZZ_SECONDS="${OPENACLNN_FUZZ_SECONDS:-20}" >/dev/null
ctest --preset fuzz -j"$jobs"
step "all tests passed"
