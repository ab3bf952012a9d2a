"""pyACL's kernel API: binaries (host libraries built here from tests/c/kernels with gcc),
functions, args handles and launches under pyACL's names and argument orders, with exact
values, codes and argument errors, and what a failed kernel tells the exception callback."""

import ctypes
import pathlib
import shutil
import struct
import subprocess

import pytest

import acl
from acl import rt, util

E = acl
ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests" / "c" / "kernels" / "binary_kernels.c"


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """The kernel library's path and the library itself (the same handle the runtime opens,
    so the test reads what a kernel recorded)."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    path = tmp_path_factory.mktemp("kernels") / "libbinary_kernels.so"
    subprocess.run(
        ["gcc", "-std=c11", "-Wall", "-Werror", "-fPIC", "-shared", f"-I{ROOT / 'include'}",
         str(SOURCE), "-o", str(path)],
        check=True,
    )
    lib = ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)
    lib.record_view.restype = ctypes.c_size_t
    lib.record_view.argtypes = [ctypes.POINTER(ctypes.c_uint32), ctypes.c_char_p]
    return path, lib


def view(lib):
    """(numBlocks, argument bytes) of the last launch of `record`."""
    blocks = ctypes.c_uint32()
    buf = ctypes.create_string_buffer(256)
    size = lib.record_view(ctypes.byref(blocks), buf)
    return blocks.value, buf.raw[:size]


@pytest.fixture
def binary(library):
    path, _ = library
    b, ret = rt.binary_load_from_file(str(path), [])
    assert ret == 0 and b != 0
    yield b
    rt.binary_unload(b)


def function(b, name):
    f, ret = rt.binary_get_function(b, name)
    assert ret == 0 and f != 0
    return f


def test_load_functions_and_names(library, tmp_path):
    path, _ = library
    b, ret = rt.binary_load_from_file(str(path), [])
    assert ret == 0
    f = function(b, "record")
    assert rt.binary_get_function(b, "record") == (f, 0)
    # The name and its NUL must fit in max_len bytes; pyACL takes max_len below 1024.
    assert rt.get_function_name(f, 1023) == ("record", 0)
    assert rt.get_function_name(f, 7) == ("record", 0)
    assert rt.get_function_name(f, 6) == ("", E.ACL_ERROR_INVALID_PARAM)
    assert acl.get_recent_err_msg().startswith(
        "aclrtGetFunctionName: the name needs 7 bytes, maxLen is 6")
    assert rt.get_function_name(f, 0) == ("", E.ACL_ERROR_INVALID_PARAM)
    with pytest.raises(ValueError, match=r"^maxLen should be less than 1024$"):
        rt.get_function_name(f, 1024)
    with pytest.raises(TypeError, match=r"^acl\.rt\.get_function_name args parse failed!$"):
        rt.get_function_name(f)
    assert rt.binary_get_function(b, "no_such_kernel") == (0, E.ACL_ERROR_RT_SYMBOL_NOT_FOUND)
    assert "no_such_kernel" in acl.get_recent_err_msg()
    # The kernel's entry address (the library's own symbol), no vector core address.
    _, lib = library
    entry = ctypes.cast(lib.record, ctypes.c_void_p).value
    assert rt.get_function_addr(f) == (entry, 0, 0)
    assert rt.get_function_addr(0) == (0, 0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.get_function_addr(b) == (0, 0, E.ACL_ERROR_RT_INVALID_HANDLE)
    with pytest.raises(TypeError, match=r"^acl\.rt\.get_function_addr args parse failed$"):
        rt.get_function_addr()
    assert rt.binary_get_function(0, "record") == (0, E.ACL_ERROR_INVALID_PARAM)
    args, ret = rt.kernel_args_init(f)
    assert ret == 0
    assert rt.binary_unload(b) == 0
    # Stale, garbage and wrong-kind handles are refused.
    assert rt.binary_unload(b) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.binary_unload(0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.binary_get_function(b, "record") == (0, E.ACL_ERROR_RT_INVALID_HANDLE)
    assert rt.get_function_name(f, 64) == ("", E.ACL_ERROR_RT_INVALID_HANDLE)
    assert rt.kernel_args_finalize(args) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.get_function_name(0x1000, 64) == ("", E.ACL_ERROR_RT_INVALID_HANDLE)
    assert rt.binary_get_function(f, "record") == (0, E.ACL_ERROR_RT_INVALID_HANDLE)
    # Files that are not host libraries.
    assert rt.binary_load_from_file("/nonexistent/kernels.so", []) == (
        0, E.ACL_ERROR_INVALID_FILE)
    text = tmp_path / "kernel.ptx"
    text.write_text(".version 8.0\n")
    assert rt.binary_load_from_file(str(text), []) == (0, E.ACL_ERROR_INVALID_FILE)
    assert "not a host shared library" in acl.get_recent_err_msg()


def test_load_options(library):
    """Options are pyACL's list of {"type", "value"} dicts, parsed as pyACL parses them; the
    runtime, like the C face, takes none of them into account."""
    path, _ = library
    lazy = [{"type": acl.ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, "value": 1}]
    b, ret = rt.binary_load_from_file(str(path), lazy)
    assert ret == 0 and b != 0
    assert rt.binary_unload(b) == 0
    b, ret = rt.binary_load_from_file(str(path), [{}])  # absent fields are 0
    assert ret == 0
    assert rt.binary_unload(b) == 0
    with pytest.raises(ValueError, match=r"^argument 2 only support the format of list$"):
        rt.binary_load_from_file(str(path), None)
    with pytest.raises(ValueError, match=r"^argument 2 only support the format of list$"):
        rt.binary_load_from_file(str(path), {"type": 1, "value": 1})
    with pytest.raises(TypeError, match=r"^the bin_option argument is not dict$"):
        rt.binary_load_from_file(str(path), [1])
    with pytest.raises(TypeError, match=r"^acl\.rt\.binary_load_from_file args parse failed!$"):
        rt.binary_load_from_file(str(path))
    image = bytearray(path.read_bytes())
    ptr = util.bytes_to_ptr(image)
    with pytest.raises(ValueError, match=r"^argument 2 only support the format of list$"):
        rt.binary_load_from_data(ptr, len(image), None)
    with pytest.raises(TypeError, match=r"^the bin_option argument is not dict$"):
        rt.binary_load_from_data(ptr, len(image), [[1, 2]])
    with pytest.raises(TypeError, match=r"^acl\.rt\.binary_load_from_data args parse failed!$"):
        rt.binary_load_from_data(ptr, len(image))
    b, ret = rt.binary_load_from_data(ptr, len(image), lazy)
    assert ret == 0
    assert rt.binary_unload(b) == 0


def test_load_from_data_and_created_binaries(library):
    path, lib = library
    image = bytearray(path.read_bytes())
    ptr = util.bytes_to_ptr(image)
    b, ret = rt.binary_load_from_data(ptr, len(image), [])
    assert ret == 0 and b != 0
    img = rt.create_binary(ptr, len(image))
    assert img != 0
    c, ret = rt.binary_load(img)
    assert ret == 0 and c not in (0, b)
    assert rt.destroy_binary(img) == 0
    assert rt.destroy_binary(img) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.binary_load(img) == (0, E.ACL_ERROR_RT_INVALID_HANDLE)
    assert rt.get_function_name(function(c, "fill"), 5) == ("fill", 0)
    assert rt.binary_unload(b) == 0
    assert rt.binary_unload(c) == 0
    junk = bytearray(b"not a library")
    assert rt.binary_load_from_data(util.bytes_to_ptr(junk), len(junk), []) == (
        0, E.ACL_ERROR_INVALID_FILE)
    assert rt.binary_load_from_data(0, 13, []) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.create_binary(0, 4) == 0
    assert acl.rt.get_last_error(acl.ACL_RT_THREAD_LEVEL) == E.ACL_ERROR_INVALID_PARAM
    # An address the module does not know is refused before any byte is read.
    assert rt.binary_load_from_data(0x1000, 64, []) == (0, E.ACL_ERROR_INVALID_PARAM)


def test_launch_with_raw_arguments(binary, library, stream):
    _, lib = library
    f = function(binary, "record")
    args = bytearray(range(1, 41))
    assert rt.launch_kernel(f, 7, util.bytes_to_ptr(args), len(args), stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert view(lib) == (7, bytes(range(1, 41)))
    # Device memory, read when the kernel runs: a copy queued before it is seen.
    dev, ret = rt.malloc(40, 0)
    assert ret == 0
    later = bytearray(200 - i for i in range(40))
    assert rt.memcpy_async(dev, 40, util.bytes_to_ptr(later), 40, 1, stream) == 0
    assert rt.launch_kernel(f, 2, dev, 40, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert view(lib) == (2, bytes(later))
    assert rt.launch_kernel(f, 3, 0, 0, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert view(lib) == (3, b"")
    assert rt.launch_kernel(0, 1, dev, 4, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.launch_kernel(f, 1, 0, 4, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.launch_kernel(f, 1, dev + 8, 40, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.launch_kernel(f, 1, 0x1000, 4, stream) == E.ACL_ERROR_INVALID_PARAM
    assert rt.free(dev) == 0


def test_block_counts_are_not_truncated(binary, library, stream):
    _, lib = library
    f = function(binary, "record")
    runs = lib.record_runs()
    one = bytearray(4)
    a, _ = rt.kernel_args_init(f)
    assert rt.kernel_args_finalize(a) == 0
    # 2**32 + 1 would run one block as C truncates it; -1 would run 2**32 - 1 blocks.
    for blocks in (2**32 + 1, 2**32, -1, 2**64 + 5):
        assert rt.launch_kernel(f, blocks, util.bytes_to_ptr(one), 4, stream) == (
            E.ACL_ERROR_INVALID_PARAM
        )
        assert "num_blocks" in acl.get_recent_err_msg()
        assert rt.launch_kernel_with_config(f, blocks, stream, [], a, 0) == (
            E.ACL_ERROR_INVALID_PARAM
        )
    assert rt.synchronize_stream(stream) == 0
    assert lib.record_runs() == runs
    assert rt.launch_kernel(f, 2**32 - 1, util.bytes_to_ptr(one), 4, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert view(lib)[0] == 2**32 - 1


def test_args_handles(binary, library, stream):
    _, lib = library
    rec, sum_ = function(binary, "record"), function(binary, "sum_placeholder")
    a, ret = rt.kernel_args_init(rec)
    assert ret == 0 and a != 0
    x = bytearray(struct.pack("<Q", 0x1122334455667788))
    y = bytearray(struct.pack("<Q", 0x0102030405060708))
    three = bytearray(b"\xa1\xa2\xa3")
    p64, ret = rt.kernel_args_append(a, util.bytes_to_ptr(x), 8)
    assert (p64, ret) == (1, 0)
    assert rt.kernel_args_append(a, util.bytes_to_ptr(three), 3) == (2, 0)
    ph, ret = rt.kernel_args_append_place_holder(a)
    assert (ph, ret) == (3, 0)
    buf, ret = rt.kernel_args_get_place_holder_buffer(a, ph, 8)
    assert ret == 0 and buf != 0
    assert ctypes.string_at(buf, 8) == bytes(8)
    assert rt.kernel_args_get_place_holder_buffer(a, 2, 8) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.kernel_args_get_place_holder_buffer(a, 99, 8) == (0, E.ACL_ERROR_INVALID_PARAM)
    # At most the 64 KiB an args handle holds; a negative size wraps to a huge one, as in C.
    for size in (65537, 1 << 45, -1):
        assert rt.kernel_args_get_place_holder_buffer(a, ph, size) == (
            0,
            E.ACL_ERROR_RT_PARAM_INVALID,
        )
    assert rt.kernel_args_para_update(a, p64, util.bytes_to_ptr(y), 8) == 0
    assert rt.kernel_args_para_update(a, p64, util.bytes_to_ptr(y), 4) == E.ACL_ERROR_INVALID_PARAM
    assert rt.kernel_args_para_update(a, ph, util.bytes_to_ptr(y), 8) == E.ACL_ERROR_INVALID_PARAM
    assert rt.kernel_args_append(a, util.bytes_to_ptr(x), 0) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.launch_kernel_with_config(rec, 5, stream, [], a, 0) == 0
    assert rt.synchronize_stream(stream) == 0
    blocks, seen = view(lib)
    assert blocks == 5 and len(seen) == 8 + 3 + 8
    assert seen[:8] == bytes(y) and seen[8:11] == bytes(three)
    slot = struct.unpack("<Q", seen[11:19])[0]
    assert slot not in (0, buf)  # the launch's copy of the buffer
    # An args handle belongs to its function; a finalized one takes no more parameters.
    assert rt.launch_kernel_with_config(sum_, 1, stream, [], a, 0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.kernel_args_finalize(a) == 0
    assert rt.kernel_args_append(a, util.bytes_to_ptr(x), 8) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.kernel_args_append_place_holder(a) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.kernel_args_para_update(a, p64, util.bytes_to_ptr(x), 8) == 0
    # A configuration is pyACL's list of {"id", "value"} dicts; the runtime, like the C face,
    # takes none of its attributes into account.
    cfg = [{"id": acl.ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, "value": 1}]
    assert rt.launch_kernel_with_config(rec, 6, stream, cfg, a, 0) == 0
    assert rt.synchronize_stream(stream) == 0
    assert view(lib)[0] == 6 and view(lib)[1][:8] == bytes(x)
    assert rt.kernel_args_finalize(0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.kernel_args_finalize(0x1000) == E.ACL_ERROR_RT_INVALID_HANDLE


def test_placeholder_data_is_taken_at_launch(binary, stream):
    sum_ = function(binary, "sum_placeholder")
    out, ret = rt.malloc(4, 0)
    assert ret == 0
    a, _ = rt.kernel_args_init(sum_)
    out_bytes = bytearray(struct.pack("<Q", out))
    value = bytearray(struct.pack("<i", 100))
    assert rt.kernel_args_append(a, util.bytes_to_ptr(out_bytes), 8)[1] == 0
    v_p, ret = rt.kernel_args_append(a, util.bytes_to_ptr(value), 4)
    assert ret == 0
    ph, _ = rt.kernel_args_append_place_holder(a)
    buf, ret = rt.kernel_args_get_place_holder_buffer(a, ph, 8)
    assert ret == 0
    ctypes.memmove(buf, struct.pack("<ii", 20, 3), 8)
    assert rt.kernel_args_finalize(a) == 0
    assert rt.launch_kernel_with_config(sum_, 1, stream, [], a, 0) == 0
    # Changes after the launch do not reach it.
    ctypes.memmove(buf, struct.pack("<i", 1000), 4)
    late = bytearray(struct.pack("<i", 5000))
    assert rt.kernel_args_para_update(a, v_p, util.bytes_to_ptr(late), 4) == 0
    assert rt.synchronize_stream(stream) == 0
    result = bytearray(4)
    assert rt.memcpy(util.bytes_to_ptr(result), 4, out, 4, 2) == 0
    assert struct.unpack("<i", result)[0] == 123
    assert rt.free(out) == 0


def test_args_handle_in_the_callers_memory(binary, library, stream):
    _, lib = library
    rec = function(binary, "record")
    assert rt.kernel_args_get_handle_mem_size(rec) == (8, 0)
    assert rt.kernel_args_get_handle_mem_size(0) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.kernel_args_get_mem_size(rec, 4) == (4, 0)
    assert rt.kernel_args_get_mem_size(0, 4) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.kernel_args_get_handle_mem_size(0x1000) == (0, E.ACL_ERROR_RT_INVALID_HANDLE)
    assert rt.kernel_args_get_mem_size(0x1000, 4) == (0, E.ACL_ERROR_RT_INVALID_HANDLE)
    mem = ctypes.create_string_buffer(16)
    addr = ctypes.addressof(mem)
    addr += -addr % 8
    assert rt.kernel_args_init_by_user_mem(rec, addr + 1, 0, 0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.kernel_args_init_by_user_mem(rec, 0, 0, 0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.kernel_args_init_by_user_mem(0, addr, 0, 0) == E.ACL_ERROR_INVALID_PARAM
    assert rt.kernel_args_init_by_user_mem(rec, addr, 0, 0) == 0
    v = bytearray(struct.pack("<i", -7))
    assert rt.kernel_args_append(addr, util.bytes_to_ptr(v), 4) == (1, 0)
    assert rt.kernel_args_finalize(addr) == 0
    assert rt.launch_kernel_with_config(rec, 1, stream, [], addr, 0) == 0
    assert rt.synchronize_stream(stream) == 0
    assert view(lib) == (1, bytes(v))
    # The runtime writes nothing there.
    assert mem.raw == bytes(16)


def test_launch_configuration_errors(binary, stream):
    rec = function(binary, "record")
    a, _ = rt.kernel_args_init(rec)
    assert rt.kernel_args_finalize(a) == 0
    with pytest.raises(ValueError, match=r"^argument 2 only support the format of list$"):
        rt.launch_kernel_with_config(rec, 1, stream, None, a, 0)
    with pytest.raises(TypeError, match=r"^the cfg argument is not dict$"):
        rt.launch_kernel_with_config(rec, 1, stream, [0], a, 0)
    with pytest.raises(TypeError, match=r"^acl\.rt\.launch_kernel_with_config args parse failed$"):
        rt.launch_kernel_with_config(rec, 1, stream, [], a)
    with pytest.raises(TypeError, match=r"^acl\.rt\.launch_kernel args parse failed$"):
        rt.launch_kernel(rec, 1, 0, 0)
    assert rt.synchronize_stream(stream) == 0


def test_calls_pyacl_does_not_bind_have_no_name():
    """pyACL's kernel chapter has no binding for these C calls, so `acl.rt` has none either;
    register_cpu_func is pyACL's, but its C call is not supported here (no AI CPU), so it is
    left out rather than answering with a made-up value."""
    for name in ("launch_kernel_v2", "launch_kernel_with_host_args",
                 "launch_kernel_with_args_array", "function_get_param_count",
                 "get_func_handle_from_exception_info", "get_args_from_exception_info",
                 "binary_get_function_by_entry", "register_cpu_func"):
        assert not hasattr(rt, name), name


def test_failures_reach_the_exception_callback(binary, stream):
    f = function(binary, "fail_with")
    seen = []

    def on_exception(info):
        seen.append((rt.get_error_code_from_exception_info(info),
                     rt.get_stream_id_from_exception_info(info)))

    assert rt.set_exception_info_callback(on_exception) == 0
    stream_id, ret = rt.stream_get_id(stream)
    assert ret == 0
    code = bytearray(struct.pack("<i", 507018))
    assert rt.launch_kernel(f, 1, util.bytes_to_ptr(code), 4, stream) == 0
    assert rt.synchronize_stream(stream) == 507018
    assert seen.pop() == (507018, stream_id)
    # From an args handle.
    a, _ = rt.kernel_args_init(f)
    code2 = bytearray(struct.pack("<i", 507035))
    assert rt.kernel_args_append(a, util.bytes_to_ptr(code2), 4)[1] == 0
    assert rt.launch_kernel_with_config(f, 1, stream, [], a, 0) == 0
    assert rt.synchronize_stream(stream) == 507035
    assert seen.pop() == (507035, stream_id)
    assert seen == []
    assert rt.set_exception_info_callback(None) == 0
