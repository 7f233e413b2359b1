#!/usr/bin/env bash
# The Python package's tests: installs the already built library (build/release, from
# scripts/test.sh) under out/install, makes a fresh virtual environment out/venv from Debian's
# python3 with its site packages (Debian's numpy and torch are then visible), installs ./python
# into it against that library (no second library build), and runs the pytest suite.
#   scripts/test_python.sh           install and run the tests
#   scripts/test_python.sh example   install and run the short example (the main job)
# Extra arguments after the mode go to pytest (e.g. -k layer_norm).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-test}
[ $# -gt 0 ] && shift
prefix=$PWD/out/install
venv=$PWD/out/venv
step() { printf '\n=== %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }

if [ ! -f build/release/CMakeCache.txt ]; then
  echo "test_python: build/release is not configured; run scripts/test.sh or" \
       "'cmake --preset release && cmake --build --preset release' first" >&2
  exit 1
fi
step "python: library (build/release, target openaclnn) installed into $prefix"
cmake --build --preset release -j"$(nproc)" --target openaclnn
cmake --install build/release --prefix "$prefix" >/dev/null

step "python: fresh virtual environment $venv (Debian's python3, system site packages)"
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
py=$venv/bin/python
# Keep Debian's numpy (torch 1.13 is built against it): pip may not replace it in the venv, so it
# picks an ml_dtypes that works with it.
numpy_version=$("$py" -c 'import numpy; print(numpy.__version__)')
echo "numpy==$numpy_version" > "$venv/constraints.txt"
export PIP_CONSTRAINT=$venv/constraints.txt PIP_DISABLE_PIP_VERSION_CHECK=1

step "python: pip install ./python against $prefix"
"$py" -m pip install -q "./python[test]" \
  --config-settings=cmake.define.openaclnn_DIR="$prefix/lib64/cmake/openaclnn"
"$py" -c 'import openaclnn, numpy; print("openaclnn", openaclnn.__version__, "from",
  openaclnn.__file__, "numpy", numpy.__version__)'

cd python  # run from the package's folder, against the installed package (not the sources)
if [ "$mode" = example ]; then
  step "python: example"
  "$py" -P examples/example.py "$@"
  step "python: golden data (out/golden)"
  "$py" -P examples/golden.py --out ../out/golden "$@"
else
  step "python: pytest"
  # Debian's torch is part of the test command: its tests fail rather than skip without it.
  OPENACLNN_REQUIRE_TORCH=1 "$py" -P -m pytest -ra tests "$@"
fi
