#!/usr/bin/env bash
# Installs libascendcl and the ACL headers laid out like a CANN toolkit:
#   PREFIX/version.cfg
#   PREFIX/set_env.sh                       (source it: ASCEND_TOOLKIT_HOME, library and pkg-config paths)
#   PREFIX/runtime/include/acl/*.h          (acl.h, acl_base.h, acl_rt.h, acl_ext.h, error_codes/)
#   PREFIX/runtime/lib64/libascendcl.so     (+ libascendcl.a, libruntime.so -> libascendcl.so)
#   PREFIX/runtime/lib64/pkgconfig/ascendcl.pc
#   PREFIX/runtime/lib64/cmake/ascendcl/ascendclConfig.cmake, also as PREFIX/share/cmake/ascendcl
#                                           (find_package(ascendcl) with CMAKE_PREFIX_PATH=PREFIX)
#   PREFIX/include -> runtime/include, PREFIX/lib64 -> runtime/lib64
# Usage: scripts/install.sh [PREFIX]        (default: $HOME/Ascend/aclrt)
# Environment: ACLRT_PROFILE=release|debug (default release); ACLRT_NO_BUILD=1 to install what
# target/<profile> already holds.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${1:-$HOME/Ascend/aclrt}"
profile="${ACLRT_PROFILE:-release}"
version="$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -1)"
acl_version="1.17.0"

if [ "${ACLRT_NO_BUILD:-0}" != 1 ]; then
    case "$profile" in
        release) cargo build -p aclrt-capi --release ;;
        dev | debug) cargo build -p aclrt-capi ;;
        *) cargo build -p aclrt-capi --profile "$profile" ;;
    esac
fi
case "$profile" in
    release) libs="target/release" ;;
    dev | debug) libs="target/debug" ;;
    *) libs="target/$profile" ;;
esac
[ -f "$libs/libascendcl.so" ] || { echo "install.sh: $libs/libascendcl.so not built" >&2; exit 1; }

mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"
rt="$prefix/runtime"
rm -rf "$rt/include/acl"
mkdir -p "$rt/include" "$rt/lib64/pkgconfig" "$rt/lib64/cmake/ascendcl"
cp -R include/acl "$rt/include/acl"
install -m 0755 "$libs/libascendcl.so" "$rt/lib64/libascendcl.so"
install -m 0644 "$libs/libascendcl.a" "$rt/lib64/libascendcl.a"
ln -sfn libascendcl.so "$rt/lib64/libruntime.so"
ln -sfn runtime/include "$prefix/include"
ln -sfn runtime/lib64 "$prefix/lib64"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$acl_version|g" pkgconfig/ascendcl.pc.in \
    > "$rt/lib64/pkgconfig/ascendcl.pc"
for f in ascendclConfig ascendclConfigVersion; do
    sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$acl_version|g" \
        -e "s|@VERSION_MAJOR@|${acl_version%%.*}|g" \
        "cmake/$f.cmake.in" > "$rt/lib64/cmake/ascendcl/$f.cmake"
done
# CMake looks in PREFIX/share/cmake on every platform (lib64 only on some).
mkdir -p "$prefix/share/cmake"
ln -sfn ../../runtime/lib64/cmake/ascendcl "$prefix/share/cmake/ascendcl"

cat > "$prefix/version.cfg" <<CFG
# aclrt $version: AscendCL runtime on an emulated device
runtime_acl_version=$acl_version
runtime_running_version=[$acl_version:$acl_version]
aclrt_version=$version
CFG

cat > "$prefix/set_env.sh" <<ENV
# Source this file to use aclrt as the Ascend toolkit.
export ASCEND_TOOLKIT_HOME="$prefix"
export ASCEND_HOME_PATH="$prefix"
export LD_LIBRARY_PATH="$prefix/lib64\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH="$prefix/lib64/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
ENV

echo "aclrt installed in $prefix (ASCEND_TOOLKIT_HOME=$prefix)"
