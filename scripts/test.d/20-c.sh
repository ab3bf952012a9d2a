#!/usr/bin/env bash
# C ABI: builds libascendcl, compiles every ACL test program in tests/c and every example in
# examples/c with gcc, runs them; checks the exported symbols against the headers, the headers
# under C++, static linking, and a build against the toolkit-style install tree.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"

if ! command -v pkg-config >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "20-c.sh: installing pkg-config (apt-get install pkg-config)"
    apt-get install -y -q pkg-config >/dev/null 2>&1 || true
fi

cargo build -p aclrt-capi -p aclrt-cli
lib="$root/target/debug"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cflags=(-std=c11 -Wall -Wextra -Werror -Wno-deprecated-declarations -I"$root/include")
failed=0

run() {
    local name="$1"
    shift
    if ! timeout 120 "$@"; then
        echo "!!! $name failed"
        failed=1
    fi
}

echo "--- exported symbols match the headers"
declared="$(grep -ho 'ACL_FUNC_VISIBILITY[^(]*\b\(acl[A-Za-z0-9_]*\)(' include/acl/*.h |
    sed 's/.*\b\(acl[A-Za-z0-9_]*\)($/\1/' | sort -u)"
exported="$(nm -D --defined-only "$lib/libascendcl.so" | awk '{print $3}' | grep '^acl' | sort -u)"
if [ "$declared" != "$exported" ]; then
    echo "!!! declared vs exported differ:"
    diff <(echo "$declared") <(echo "$exported") || true
    failed=1
else
    echo "$(echo "$declared" | wc -l) functions declared and exported"
fi
# Every function of the vendor's runtime headers (the list in include/acl/vendor-functions.txt)
# is declared by ours, hence exported.
vendor="$(grep . include/acl/vendor-functions.txt | sort -u)"
missing="$(comm -23 <(echo "$vendor") <(echo "$declared"))"
if [ -n "$missing" ]; then
    echo "!!! vendor functions not declared by include/acl:"
    echo "$missing"
    failed=1
else
    echo "all $(echo "$vendor" | wc -l) vendor runtime functions declared"
fi
# tests/c/test_vendor_symbols.c is generated from that list and must be current.
if ! diff -q <(scripts/gen-vendor-symbols-test.sh /dev/stdout) tests/c/test_vendor_symbols.c >/dev/null; then
    echo "!!! tests/c/test_vendor_symbols.c is stale: run scripts/gen-vendor-symbols-test.sh"
    failed=1
fi
# The address of every function, compiled exactly as strictly as asked of vendor programs.
gcc -std=c11 -Wall -Werror -O0 -I"$root/include" tests/c/test_vendor_symbols.c -L"$lib" -lascendcl \
    -o "$out/test_vendor_symbols_O0"
run test_vendor_symbols_O0 "$out/test_vendor_symbols_O0"
if ! readelf -d "$lib/libascendcl.so" | grep -q 'SONAME.*\[libascendcl.so\]'; then
    echo "!!! libascendcl.so has no SONAME libascendcl.so"
    failed=1
fi

echo "--- C test programs"
# The kernels of test_kernels: a host shared library loaded through aclrtBinaryLoad*.
gcc "${cflags[@]}" -fPIC -shared tests/c/kernels/binary_kernels.c -o "$out/libbinary_kernels.so"
export ACLRT_TEST_BINARY_KERNELS="$out/libbinary_kernels.so"
for src in tests/c/*.c; do
    name="$(basename "$src" .c)"
    gcc "${cflags[@]}" -I"$root/tests/c" "$src" -L"$lib" -lascendcl -lpthread -o "$out/$name"
    run "$name" "$out/$name"
done

if command -v valgrind >/dev/null 2>&1; then
    echo "--- memory errors and leaks (valgrind) with garbage handles, contexts and several threads"
    # Definite leaks fail the run; "possibly lost" blocks (threads' stacks and the like at
    # exit) are neither errors nor shown.
    for name in test_handles test_threads test_callbacks test_process test_trace_names test_kernels; do
        run "valgrind $name" valgrind -q --leak-check=full --show-leak-kinds=definite \
            --errors-for-leak-kinds=definite --error-exitcode=3 "$out/$name"
    done
fi

echo "--- headers compile as C++"
cat > "$out/cxx_check.cpp" <<'CPP'
#include "acl/acl.h"
#include "acl/acl_ext.h"
#include <cstdio>
static aclError kernel(void *) { return ACL_SUCCESS; }
int main()
{
    aclrtStream s = nullptr;
    if (aclrtCreateStream(&s) != ACL_ERROR_UNINITIALIZE) return 1;
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
    if (aclxLaunchHostKernel(nullptr, kernel, nullptr, "k") != ACL_SUCCESS) return 1;
    if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) return 1;
    if (aclFinalize() != ACL_SUCCESS) return 1;
    std::puts("cxx_check: ok");
    return 0;
}
CPP
g++ -std=c++17 -Wall -Wextra -Werror -I"$root/include" "$out/cxx_check.cpp" -L"$lib" -lascendcl -o "$out/cxx_check"
run cxx_check "$out/cxx_check"

echo "--- static library"
gcc "${cflags[@]}" -I"$root/tests/c" tests/c/test_memory.c "$lib/libascendcl.a" -lpthread -ldl -lm \
    -o "$out/test_memory_static"
if ldd "$out/test_memory_static" | grep -q ascendcl; then
    echo "!!! static build still needs libascendcl.so"
    failed=1
fi
run test_memory_static "$out/test_memory_static"

echo "--- examples"
for src in examples/c/*.c; do
    name="$(basename "$src" .c)"
    # exception_handling.c uses aclrtSetExceptionInfoCallback, which the vendor deprecates.
    gcc -Wall -Wextra -Werror -Wno-deprecated-declarations -I"$root/include" "$src" -L"$lib" \
        -lascendcl -lpthread -o "$out/$name"
    run "$name" "$out/$name"
done

echo "--- toolkit-style install"
# As CANN lays it out: ascend-toolkit/latest, with set_env.sh one level up.
prefix="$out/Ascend/ascend-toolkit/latest"
arch="$(uname -m)"
ACLRT_PROFILE=debug ACLRT_NO_BUILD=1 ACLRT_NO_PYTHON=1 scripts/install.sh "$prefix"
for f in version.cfg set_env.sh bin/setenv.bash bin/aclrt runtime/version.info \
    runtime/include/acl/acl.h runtime/include/acl/acl_rt.h runtime/include/acl/acl_base.h \
    runtime/include/acl/acl_ext.h runtime/lib64/libascendcl.so runtime/lib64/libascendcl.a \
    runtime/lib64/libruntime.so runtime/lib64/libacl_rt.so runtime/lib64/libacl_rt_impl.so \
    include/acl/acl.h lib64/libascendcl.so lib64/libruntime.so lib64/libacl_rt.so \
    lib64/libacl_rt_impl.so lib64/pkgconfig/ascendcl.pc \
    lib64/cmake/ascendcl/ascendclConfig.cmake share/cmake/ascendcl/ascendclConfig.cmake \
    "$arch-linux/include/acl/acl.h" "$arch-linux/lib64/libascendcl.so" \
    "$arch-linux/lib64/libacl_rt.so" "$arch-linux/ascend_toolkit_install.info" ../set_env.sh \
    tikcpp/ascendc_kernel_cmake/ascendc.cmake "$arch-linux/tikcpp/ascendc_kernel_cmake/ascendc.cmake"; do
    [ -e "$prefix/$f" ] || { echo "!!! install lacks $f"; failed=1; }
done
# Installing again over an unchanged tree keeps the timestamps builds depend on.
stamps() {
    stat -c '%n %y' "$prefix/include/acl/acl.h" "$prefix/lib64/libascendcl.so" \
        "$prefix/tikcpp/ascendc_kernel_cmake/ascendc.cmake" "$prefix/lib64/cmake/ascendcl/ascendclConfig.cmake"
}
before="$(stamps)" # %y: to the nanosecond, so any rewrite shows
ACLRT_PROFILE=debug ACLRT_NO_BUILD=1 ACLRT_NO_PYTHON=1 scripts/install.sh "$prefix" >/dev/null
[ "$(stamps)" = "$before" ] ||
    { echo "!!! installing again changed the timestamps of unchanged files:"; stamps; failed=1; }
cmp -s "$prefix/set_env.sh" "$prefix/bin/setenv.bash" ||
    { echo "!!! set_env.sh and bin/setenv.bash differ"; failed=1; }
(
    # Only ASCEND_TOOLKIT_HOME is known, as with the vendor toolkit.
    unset LD_LIBRARY_PATH
    export ASCEND_TOOLKIT_HOME="$prefix"
    app=examples/c/multi_stream_events.c
    gcc -I"$ASCEND_TOOLKIT_HOME/include" "$app" -L"$ASCEND_TOOLKIT_HOME/lib64" -lascendcl -lruntime \
        -lacl_rt_impl -o "$out/app_toolkit"
    LD_LIBRARY_PATH="$ASCEND_TOOLKIT_HOME/lib64" timeout 120 "$out/app_toolkit"
    gcc -I"$ASCEND_TOOLKIT_HOME/runtime/include" "$app" -L"$ASCEND_TOOLKIT_HOME/runtime/lib64" \
        -lascendcl -o "$out/app_runtime_dir"
    LD_LIBRARY_PATH="$ASCEND_TOOLKIT_HOME/runtime/lib64" timeout 120 "$out/app_runtime_dir"
    # The architecture folder, as newer toolkits have it.
    gcc -I"$ASCEND_TOOLKIT_HOME/$arch-linux/include" "$app" -L"$ASCEND_TOOLKIT_HOME/$arch-linux/lib64" \
        -lascendcl -o "$out/app_arch_dir"
    LD_LIBRARY_PATH="$ASCEND_TOOLKIT_HOME/$arch-linux/lib64" timeout 120 "$out/app_arch_dir"
    # pkg-config: the rpath it adds lets the program run without LD_LIBRARY_PATH.
    export PKG_CONFIG_PATH="$ASCEND_TOOLKIT_HOME/lib64/pkgconfig"
    if command -v pkg-config >/dev/null 2>&1; then
        # shellcheck disable=SC2046
        gcc examples/c/callback_thread.c $(pkg-config --cflags --libs ascendcl) -lpthread -o "$out/app_pc"
        timeout 120 "$out/app_pc"
    else
        echo "pkg-config not installed: pkg-config build skipped"
    fi
    # set_env.sh one level above latest, as CANN users source it.
    # shellcheck disable=SC1091
    (. "$prefix/../set_env.sh" && [ "$ASCEND_TOOLKIT_HOME" = "$prefix" ] &&
        gcc -I"$ASCEND_TOOLKIT_HOME/include" examples/c/elapsed_time.c -L"$ASCEND_TOOLKIT_HOME/lib64" \
            -lascendcl -o "$out/app_env" && timeout 120 "$out/app_env")
    # bin/setenv.bash alone: headers, link and run paths, and the aclrt command, with -lacl_rt
    # as binding crates and build scripts spell the library.
    # shellcheck disable=SC1091
    (. "$prefix/bin/setenv.bash" &&
        [ "$ASCEND_HOME_PATH" = "$prefix" ] &&
        [ "$(command -v aclrt)" = "$prefix/bin/aclrt" ] &&
        aclrt --version >/dev/null &&
        gcc examples/c/elapsed_time.c -lacl_rt -o "$out/app_setenv" &&
        timeout 120 "$out/app_setenv")
) || { echo "!!! building against the install tree failed"; failed=1; }

if command -v cmake >/dev/null 2>&1; then
    echo "--- CMake package"
    mkdir -p "$out/cmake_app"
    cp examples/c/elapsed_time.c "$out/cmake_app/app.c"
    cat > "$out/cmake_app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.10)
project(aclrt_cmake_check C)
find_package(ascendcl 1.17 CONFIG REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE ascendcl::ascendcl)
CMAKE
    (
        unset LD_LIBRARY_PATH
        cmake -S "$out/cmake_app" -B "$out/cmake_app/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
            cmake --build "$out/cmake_app/build" >/dev/null &&
            timeout 120 "$out/cmake_app/build/app"
    ) || { echo "!!! the CMake package did not build or run a program"; failed=1; }

    echo "--- examples/c/kernel_launch: a kernel library built with CMake, launched through the vendor API"
    (
        unset LD_LIBRARY_PATH
        cmake -S examples/c/kernel_launch -B "$out/kernel_launch" -DCMAKE_PREFIX_PATH="$prefix" \
            -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null &&
            cmake --build "$out/kernel_launch" >/dev/null &&
            timeout 120 "$out/kernel_launch/kernel_launch" "$out/kernel_launch/libadd_kernels.so"
    ) || { echo "!!! examples/c/kernel_launch did not build or run"; failed=1; }

    echo "--- ascendc_library: a kernel library written as host code, as CANN samples build one"
    mkdir -p "$out/ascendc_app"
    cat > "$out/ascendc_app/kernel.cpp" <<'CPP'
#include "acl/acl.h"
static void Twice(void *p) { int *v = static_cast<int *>(p); *v *= 2; }
void TwiceDo(aclrtStream stream, int *v) { aclrtLaunchHostFunc(stream, Twice, v); }
CPP
    cat > "$out/ascendc_app/main.cpp" <<'CPP'
#include "acl/acl.h"
#include <cstdio>
void TwiceDo(aclrtStream stream, int *v);
int main()
{
    int v = 21;
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
    TwiceDo(nullptr, &v);
    if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS || v != 42) return 1;
    if (aclrtResetDeviceForce(0) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS) return 1;
    std::puts("ascendc_library: ok");
    return 0;
}
CPP
    cat > "$out/ascendc_app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(aclrt_ascendc_check CXX)
include($ENV{ASCENDC_CMAKE_DIR}/ascendc.cmake)
ascendc_library(kernels STATIC kernel.cpp)
add_executable(main main.cpp)
target_link_libraries(main PRIVATE kernels)
CMAKE
    (
        unset LD_LIBRARY_PATH
        export ASCENDC_CMAKE_DIR="$prefix/$arch-linux/tikcpp/ascendc_kernel_cmake"
        cmake -S "$out/ascendc_app" -B "$out/ascendc_app/build" >/dev/null &&
            cmake --build "$out/ascendc_app/build" >/dev/null &&
            LD_LIBRARY_PATH="$prefix/lib64" timeout 120 "$out/ascendc_app/build/main"
    ) || { echo "!!! ascendc_library did not build or run a program"; failed=1; }

    echo "--- ascendc_fatbin_library: a kernel binary loaded with aclrtBinaryLoadFromFile"
    mkdir -p "$out/fatbin_app"
    cat > "$out/fatbin_app/kernel.cpp" <<'CPP'
#include <cstring>
#include "acl/acl_host_kernel.h"
ACL_HOST_KERNEL(twice)(uint32_t numBlocks, void *args, size_t argsSize)
{
    int *v;
    if (argsSize != sizeof v) return 507001;
    std::memcpy(&v, args, sizeof v);
    *v *= 2 * static_cast<int>(numBlocks);
    return ACL_SUCCESS;
}
CPP
    cat > "$out/fatbin_app/main.cpp" <<'CPP'
#include "acl/acl.h"
#include <cstdio>
int main(int argc, char **argv)
{
    int *v = nullptr, host = 21;
    aclrtBinHandle bin = nullptr;
    aclrtFuncHandle f = nullptr;
    aclrtArgsHandle args = nullptr;
    aclrtParamHandle p = nullptr;
    if (argc != 2 || aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
    if (aclrtMalloc(reinterpret_cast<void **>(&v), sizeof host, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMemcpy(v, sizeof host, &host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) return 1;
    if (aclrtBinaryLoadFromFile(argv[1], nullptr, &bin) != ACL_SUCCESS ||
        aclrtBinaryGetFunction(bin, "twice", &f) != ACL_SUCCESS || aclrtKernelArgsInit(f, &args) != ACL_SUCCESS ||
        aclrtKernelArgsAppend(args, &v, sizeof v, &p) != ACL_SUCCESS || aclrtKernelArgsFinalize(args) != ACL_SUCCESS ||
        aclrtLaunchKernelWithConfig(f, 1, nullptr, nullptr, args, nullptr) != ACL_SUCCESS) return 1;
    if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS || aclrtBinaryUnLoad(bin) != ACL_SUCCESS) return 1;
    if (aclrtMemcpy(&host, sizeof host, v, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS || host != 42) return 1;
    if (aclrtFree(v) != ACL_SUCCESS || aclrtResetDeviceForce(0) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS) return 1;
    std::puts("ascendc_fatbin_library: ok");
    return 0;
}
CPP
    cat > "$out/fatbin_app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(aclrt_fatbin_check CXX)
set(CMAKE_INSTALL_PREFIX "${CMAKE_CURRENT_LIST_DIR}/out" CACHE STRING "" FORCE)
include($ENV{ASCENDC_CMAKE_DIR}/ascendc.cmake)
ascendc_fatbin_library(ascendc_kernels kernel.cpp)
add_executable(main main.cpp)
target_include_directories(main PRIVATE $ENV{ASCEND_TOOLKIT_HOME}/include)
target_link_libraries(main PRIVATE $ENV{ASCEND_TOOLKIT_HOME}/lib64/libacl_rt.so)
CMAKE
    (
        unset LD_LIBRARY_PATH
        export ASCENDC_CMAKE_DIR="$prefix/$arch-linux/tikcpp/ascendc_kernel_cmake"
        export ASCEND_TOOLKIT_HOME="$prefix"
        cmake -S "$out/fatbin_app" -B "$out/fatbin_app/build" >/dev/null &&
            cmake --build "$out/fatbin_app/build" >/dev/null &&
            LD_LIBRARY_PATH="$prefix/lib64" timeout 120 "$out/fatbin_app/build/main" \
                "$out/fatbin_app/out/fatbin/ascendc_kernels/ascendc_kernels.o"
    ) || { echo "!!! ascendc_fatbin_library did not build or run a program"; failed=1; }
else
    echo "--- CMake package: cmake not installed, skipped"
fi

exit $failed
