#!/bin/sh
# Checks <prefix>/set_env.sh as a CANN user relies on it: sourced from sh and from bash (from
# another folder), it exports the toolkit variables pointing at the prefix and puts lib64 on the
# library paths; the prefix is laid out as a toolkit (lib64 with CANN's library names, lib a link).
# Usage: check_set_env.sh <prefix>
set -eu
prefix=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

for name in ascendcl acl_rt nnopbase opapi opapi_nn opapi_math acl_op_compiler; do
  [ -e "$prefix/lib64/lib$name.so" ] || fail "$prefix/lib64/lib$name.so is missing"
done
[ -L "$prefix/lib" ] || fail "$prefix/lib should be a link to lib64"
for folder in acl aclnn aclnnop; do
  [ -d "$prefix/include/$folder" ] || fail "$prefix/include/$folder is missing"
done
[ -f "$prefix/set_env.sh" ] || fail "$prefix/set_env.sh is missing"

real_prefix=$(cd "$prefix" && pwd)
for shell in sh bash; do
  out=$(cd / && env -i PATH="$PATH" LD_LIBRARY_PATH=/keep/me "$shell" -c \
    ". '$real_prefix/set_env.sh' && printf '%s\n' \"\$ASCEND_TOOLKIT_HOME\" \"\$ASCEND_HOME_PATH\" \
\"\$LD_LIBRARY_PATH\" \"\$CMAKE_PREFIX_PATH\" \"\$ASCEND_OPP_PATH\"")
  home=$(echo "$out" | sed -n 1p)
  [ "$home" = "$real_prefix" ] || fail "$shell: ASCEND_TOOLKIT_HOME='$home', expected '$real_prefix'"
  [ "$(echo "$out" | sed -n 2p)" = "$real_prefix" ] || fail "$shell: ASCEND_HOME_PATH"
  [ "$(echo "$out" | sed -n 3p)" = "$real_prefix/lib64:/keep/me" ] ||
    fail "$shell: LD_LIBRARY_PATH='$(echo "$out" | sed -n 3p)', expected lib64 first, the old value kept"
  [ "$(echo "$out" | sed -n 4p)" = "$real_prefix" ] || fail "$shell: CMAKE_PREFIX_PATH"
  [ "$(echo "$out" | sed -n 5p)" = "$real_prefix/opp" ] || fail "$shell: ASCEND_OPP_PATH"
  echo "$shell: set_env.sh exports ASCEND_TOOLKIT_HOME=$home"
done
