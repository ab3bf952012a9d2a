#!/usr/bin/env bash
# Installs everything a user runs, laid out like a CANN toolkit:
#
#   scripts/install.sh [PREFIX]          (default: $HOME/Ascend/aclrt)
#   scripts/install.sh "$HOME/Ascend/ascend-toolkit/latest"    (where CANN's toolkit would be)
#
# then `source PREFIX/set_env.sh` (or PREFIX/bin/setenv.bash). What lands in PREFIX:
#   set_env.sh, bin/setenv.bash        the same environment: ASCEND_TOOLKIT_HOME, ASCEND_HOME_PATH,
#                                      PATH, LD_LIBRARY_PATH, LIBRARY_PATH, CPATH, PKG_CONFIG_PATH,
#                                      CMAKE_PREFIX_PATH, PYTHONPATH
#   bin/aclrt                          the command line tool (demo, trace summary/render)
#   runtime/include/acl/*.h            acl.h, acl_base.h, acl_rt.h, acl_ext.h, error_codes/
#   runtime/lib64/libascendcl.so       (+ libascendcl.a; libacl_rt.so, libacl_rt_impl.so and
#                                      libruntime.so, links to it)
#   runtime/lib64/pkgconfig/ascendcl.pc
#   runtime/lib64/cmake/ascendcl/      find_package(ascendcl) with CMAKE_PREFIX_PATH=PREFIX (also
#                                      as share/cmake/ascendcl)
#   include, lib64                     -> runtime/include, runtime/lib64
#   <arch>-linux/include, lib64        -> the same, as newer toolkits lay them out (x86_64, aarch64)
#   python/site-packages/acl           the Python package (`import acl`), on PYTHONPATH
#   tikcpp/ascendc_kernel_cmake/       ascendc.cmake: ascendc_library builds kernels written as host
#                                      code (also under <arch>-linux/, where sample scripts look)
#   version.cfg, runtime/version.info, <arch>-linux/ascend_toolkit_install.info
# When PREFIX ends in /latest (the toolkit's own layout), PREFIX/../set_env.sh is written too,
# unless a set_env.sh that aclrt did not write is already there.
#
# The Python package is built with pip in a throwaway venv (on Debian: apt-get install
# python3-venv), from PyPI's maturin, and installed with `pip install --target`; any python3
# from 3.8 on can then import it through PYTHONPATH.
#
# Environment: ACLRT_PROFILE=release|debug (default release); ACLRT_NO_BUILD=1 installs what
# target/<profile> already holds; ACLRT_NO_PYTHON=1 leaves the Python package out;
# ACLRT_PYTHON names the python3 to build it with.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${1:-$HOME/Ascend/aclrt}"
profile="${ACLRT_PROFILE:-release}"
version="$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -1)"
acl_version="1.17.0"
arch="$(uname -m)"

if [ "${ACLRT_NO_BUILD:-0}" != 1 ]; then
    case "$profile" in
        release) cargo build -p aclrt-capi -p aclrt-cli --release ;;
        dev | debug) cargo build -p aclrt-capi -p aclrt-cli ;;
        *) cargo build -p aclrt-capi -p aclrt-cli --profile "$profile" ;;
    esac
fi
case "$profile" in
    release) built="target/release" ;;
    dev | debug) built="target/debug" ;;
    *) built="target/$profile" ;;
esac
for f in libascendcl.so libascendcl.a aclrt; do
    [ -f "$built/$f" ] || { echo "install.sh: $built/$f not built" >&2; exit 1; }
done

mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"
rt="$prefix/runtime"
rm -rf "$rt/include/acl"
mkdir -p "$rt/include" "$rt/lib64/pkgconfig" "$rt/lib64/cmake/ascendcl" "$prefix/bin"
# Timestamps kept (-p): reinstalling unchanged files rebuilds nothing that depends on them.
cp -Rp include/acl "$rt/include/acl"
install -p -m 0755 "$built/libascendcl.so" "$rt/lib64/libascendcl.so"
install -p -m 0644 "$built/libascendcl.a" "$rt/lib64/libascendcl.a"
# Build scripts of other projects link -lacl_rt, -lacl_rt_impl (the vendor's runtime splits its
# interface and implementation in two) or -lruntime: the same library.
ln -sfn libascendcl.so "$rt/lib64/libacl_rt.so"
ln -sfn libascendcl.so "$rt/lib64/libacl_rt_impl.so"
ln -sfn libascendcl.so "$rt/lib64/libruntime.so"
ln -sfn runtime/include "$prefix/include"
ln -sfn runtime/lib64 "$prefix/lib64"
mkdir -p "$prefix/$arch-linux"
ln -sfn ../runtime/include "$prefix/$arch-linux/include"
ln -sfn ../runtime/lib64 "$prefix/$arch-linux/lib64"
install -m 0755 "$built/aclrt" "$prefix/bin/aclrt"
# Writes stdin to file $1 unless it already holds exactly that: an unchanged file keeps its
# timestamp, so builds that include it (CMake files) do not configure again.
write_file() {
    local tmp="$1.tmp.$$"
    cat > "$tmp"
    if cmp -s "$tmp" "$1"; then rm -f "$tmp"; else mv -f "$tmp" "$1"; fi
}
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$acl_version|g" pkgconfig/ascendcl.pc.in |
    write_file "$rt/lib64/pkgconfig/ascendcl.pc"
for f in ascendclConfig ascendclConfigVersion; do
    sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$acl_version|g" \
        -e "s|@VERSION_MAJOR@|${acl_version%%.*}|g" \
        "cmake/$f.cmake.in" | write_file "$rt/lib64/cmake/ascendcl/$f.cmake"
done
# Kernel libraries of CANN sample builds (ASCENDC_CMAKE_DIR): host code on the emulated device.
mkdir -p "$prefix/tikcpp/ascendc_kernel_cmake"
sed -e "s|@PREFIX@|$prefix|g" cmake/ascendc.cmake.in |
    write_file "$prefix/tikcpp/ascendc_kernel_cmake/ascendc.cmake"
ln -sfn ../tikcpp "$prefix/$arch-linux/tikcpp"
# CMake looks in PREFIX/share/cmake on every platform (lib64 only on some).
mkdir -p "$prefix/share/cmake"
ln -sfn ../../runtime/lib64/cmake/ascendcl "$prefix/share/cmake/ascendcl"

cat > "$prefix/version.cfg" <<CFG
# aclrt $version: AscendCL runtime on an emulated device
runtime_acl_version=$acl_version
runtime_running_version=[$acl_version:$acl_version]
aclrt_version=$version
CFG
cat > "$rt/version.info" <<INFO
Version=$acl_version
aclrt_version=$version
INFO
cat > "$prefix/$arch-linux/ascend_toolkit_install.info" <<INFO
package_name=aclrt
version=$acl_version
aclrt_version=$version
arch=$arch
os=linux
path=$prefix/$arch-linux
INFO

if [ "${ACLRT_NO_PYTHON:-0}" != 1 ]; then
    site="$prefix/python/site-packages"
    py="${ACLRT_PYTHON:-python3}"
    echo "install.sh: installing the Python package into $site (pip, maturin from PyPI)"
    build_env="$(mktemp -d)"
    trap 'rm -rf "$build_env"' EXIT
    if ! "$py" -m venv "$build_env/venv" >/dev/null; then
        echo "install.sh: '$py -m venv' failed; on Debian: apt-get install python3-venv" \
            "(or ACLRT_NO_PYTHON=1 to leave the Python package out)" >&2
        exit 1
    fi
    rm -rf "$site/acl" "$site"/aclrt-*.dist-info
    "$build_env/venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
        --upgrade --target "$site" .
fi

env_text() {
    cat <<ENV
# aclrt $version as the Ascend toolkit: source this file (bash, sh, zsh).
export ASCEND_TOOLKIT_HOME="$prefix"
export ASCEND_HOME_PATH="$prefix"
export PATH="$prefix/bin\${PATH:+:\$PATH}"
export LD_LIBRARY_PATH="$prefix/lib64\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export LIBRARY_PATH="$prefix/lib64\${LIBRARY_PATH:+:\$LIBRARY_PATH}"
export CPATH="$prefix/include\${CPATH:+:\$CPATH}"
export PKG_CONFIG_PATH="$prefix/lib64/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
export CMAKE_PREFIX_PATH="$prefix\${CMAKE_PREFIX_PATH:+:\$CMAKE_PREFIX_PATH}"
export PYTHONPATH="$prefix/python/site-packages\${PYTHONPATH:+:\$PYTHONPATH}"
ENV
}
env_text > "$prefix/set_env.sh"
env_text > "$prefix/bin/setenv.bash"

marker="# aclrt: sources latest/set_env.sh"
if [ "$(basename "$prefix")" = latest ]; then
    top="$(dirname "$prefix")/set_env.sh"
    if [ ! -e "$top" ] || grep -qxF "$marker" "$top"; then
        printf '%s\n. "%s"\n' "$marker" "$prefix/set_env.sh" > "$top"
    else
        echo "install.sh: $top belongs to another toolkit; left as it is"
    fi
fi

echo "aclrt installed in $prefix: source $prefix/set_env.sh to use it (aclrt on PATH," \
    "ASCEND_TOOLKIT_HOME=$prefix)"
