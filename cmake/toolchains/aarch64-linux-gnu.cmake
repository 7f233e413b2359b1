# Cross build for 64-bit Arm Linux (aarch64) on a Debian x86-64 host, against the arm64 packages of
# Debian's multiarch (scripts/install_deps_aarch64.sh installs them; nothing is downloaded here).
# Test programs run through qemu-user; QEMU_CPU in the environment picks the emulated CPU.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# The arm64 libraries live in /usr/lib/aarch64-linux-gnu (multiarch, with their CMake files in
# its cmake/ folder); oneDNN's headers and CMake files, which cannot be installed beside the amd64
# ones, were unpacked into build/aarch64-sysroot. Search the sysroot first.
get_filename_component(OPENACLNN_AARCH64_SYSROOT
                       "${CMAKE_CURRENT_LIST_DIR}/../../build/aarch64-sysroot" ABSOLUTE)
list(PREPEND CMAKE_PREFIX_PATH "${OPENACLNN_AARCH64_SYSROOT}/usr")
# No host (x86-64) package may be found: the amd64 CMake files sit under lib/x86_64-linux-gnu,
# which is never searched with the aarch64 library architecture, and these folders are ignored.
list(APPEND CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/cmake)

find_program(OPENACLNN_QEMU_AARCH64 qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR "${OPENACLNN_QEMU_AARCH64}")
