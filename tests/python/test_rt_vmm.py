"""pyACL's virtual memory and IPC memory calls: reserve, physical memory, map and unmap with
bytes checked through the mapping; a shareable handle and an IPC key imported by a child
interpreter, bytes compared both ways; exact codes and pyACL's argument errors."""

import subprocess
import sys
import textwrap

import pytest

import acl
from acl import rt

E = acl
G = 2 << 20
PROP = {
    "handleType": 0,
    "allocationType": 0,
    "memAttr": acl.ACL_HBM_MEM_NORMAL,
    "location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE},
    "reserve": 0,
}


def pattern(seed: int, n: int) -> bytes:
    return bytes((i * 31 + seed) & 0xFF for i in range(n))


def write(dev: int, data: bytes) -> None:
    src = acl.util.bytes_to_ptr(data)
    assert rt.memcpy(dev, len(data), src, len(data), acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0


class Child:
    """A child interpreter running ``code``; it reads lines from its stdin."""

    def __init__(self, code: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(code)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def finish(self, timeout: float = 60) -> str:
        out, err = self.proc.communicate(timeout=timeout)
        assert self.proc.returncode == 0, err
        return out


def test_map_physical_memory_and_copy_through_it():
    handle, ret = rt.malloc_physical(4096, PROP, 0)
    assert ret == 0 and handle != 0
    va, ret = rt.reserve_mem_address(2 * G, 0, 0, 0)
    assert ret == 0 and va % G == 0
    assert rt.map_mem(va, G, 0, handle, 0) == 0
    write(va + 100, pattern(1, 1000))
    assert acl.util.ptr_to_bytes(va + 100, 1000) == pattern(1, 1000)
    # Refusals with the vendor's codes.
    assert rt.map_mem(va, G, 0, handle, 0) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.map_mem(va + G, G, 0, handle, 1) == E.ACL_ERROR_INVALID_PARAM
    assert rt.release_mem_address(va) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.malloc_physical(0, PROP, 0) == (0, E.ACL_ERROR_INVALID_PARAM)
    assert rt.reserve_mem_address(G, 0, 1 << 44, 0) == (0, E.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    assert rt.free_physical(handle) == 0
    # Freed but mapped: the bytes stay until the unmap.
    assert acl.util.ptr_to_bytes(va + 100, 4) == pattern(1, 4)
    assert rt.free_physical(handle) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.unmap_mem(va) == 0
    assert rt.unmap_mem(va) == E.ACL_ERROR_RT_PARAM_INVALID
    assert rt.release_mem_address(va) == 0


def test_shareable_handle_imported_by_another_process():
    handle, ret = rt.malloc_physical(G, PROP, 0)
    assert ret == 0
    va, _ = rt.reserve_mem_address(G, 0, 0, 0)
    assert rt.map_mem(va, G, 0, handle, 0) == 0
    write(va, pattern(2, 4096))
    shareable, ret = rt.mem_export_to_shareable_handle(handle, 0, 0)
    assert ret == 0
    assert rt.mem_import_from_shareable_handle(shareable, 0) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    child = Child(
        """
        import sys
        import acl
        from acl import rt
        acl.init(); rt.set_device(0)
        shareable = int(sys.stdin.readline())
        h, ret = rt.mem_import_from_shareable_handle(shareable, 0)
        assert ret == 0, ret
        va, _ = rt.reserve_mem_address(2 << 20, 0, 0, 0)
        assert rt.map_mem(va, 2 << 20, 0, h, 0) == 0
        print(acl.util.ptr_to_bytes(va, 4096).hex())
        data = bytes(range(256)) * 4
        src = acl.util.bytes_to_ptr(data)
        assert rt.memcpy(va + 8192, 1024, src, 1024, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
        assert rt.unmap_mem(va) == 0 and rt.free_physical(h) == 0
        assert rt.release_mem_address(va) == 0
        acl.finalize()
        """
    )
    pid = child.proc.pid
    assert rt.mem_set_pid_to_shareable_handle(shareable, [pid]) == 0
    child.send(str(shareable))
    out = child.finish()
    assert bytes.fromhex(out.strip()) == pattern(2, 4096)
    assert acl.util.ptr_to_bytes(va + 8192, 1024) == bytes(range(256)) * 4
    assert rt.unmap_mem(va) == 0 and rt.free_physical(handle) == 0
    assert rt.release_mem_address(va) == 0


def test_ipc_key_imported_by_another_process():
    size = 1 << 20
    dev, ret = rt.malloc(size, 0)
    assert ret == 0
    write(dev, pattern(3, size))
    key, ret = rt.ipc_mem_get_export_key(dev, size, 0)
    assert ret == 0 and key
    assert rt.ipc_mem_get_export_key(dev, size, 0) == ("", E.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.ipc_mem_get_export_key(0, size, 0) == ("", E.ACL_ERROR_INVALID_PARAM)
    child = Child(
        """
        import sys
        import acl
        from acl import rt
        acl.init(); rt.set_device(0)
        key = sys.stdin.readline().strip()
        size = 1 << 20
        p, ret = rt.ipc_mem_import_by_key(key, 0)
        assert ret == 0, ret
        data = acl.util.ptr_to_bytes(p, size)
        print(sum(data), data[:64].hex())
        assert rt.memset(p, 100, 0x5A, 100) == 0
        assert rt.ipc_mem_close(key) == 0
        assert rt.ipc_mem_close(key) == acl.ACL_ERROR_RT_INVALID_HANDLE
        acl.finalize()
        """
    )
    assert rt.ipc_mem_set_import_pid(key, [child.proc.pid]) == 0
    child.send(key)
    total, head = child.finish().split()
    want = pattern(3, size)
    assert int(total) == sum(want) and bytes.fromhex(head) == want[:64]
    assert acl.util.ptr_to_bytes(dev, 200) == b"\x5a" * 100 + want[100:200]
    assert rt.ipc_mem_close(key) == 0
    assert rt.ipc_mem_import_by_key(key, 0) == (0, E.ACL_ERROR_RT_PARAM_INVALID)
    assert rt.free(dev) == 0


def test_an_export_lets_the_gil_go_while_it_waits_for_a_running_host_function(stream):
    """The export's move waits for running tasks that may write memory; a Python host
    function among them needs the GIL to finish, so the exporting thread must not hold it."""
    import threading

    size = 1 << 20
    dev, ret = rt.malloc(size, 0)
    assert ret == 0
    started, calling = threading.Event(), threading.Event()

    def body(_):
        started.set()
        # Python code running while the other thread starts the export.
        while not calling.is_set():
            pass
        write(dev, pattern(7, 4096))

    assert rt.launch_host_func(stream, body, None) == 0
    assert started.wait(60)
    out = []

    def export():
        calling.set()
        out.append(rt.ipc_mem_get_export_key(dev, size, 1))

    t = threading.Thread(target=export)
    t.start()
    t.join(60)
    assert not t.is_alive(), "the export waits for a host function that waits for the GIL"
    key, ret = out[0]
    assert ret == 0 and key
    assert rt.synchronize_stream(stream) == 0
    assert acl.util.ptr_to_bytes(dev, 4096) == pattern(7, 4096)
    assert rt.ipc_mem_close(key) == 0
    assert rt.free(dev) == 0


def test_argument_errors():
    with pytest.raises(ValueError):
        rt.mem_set_pid_to_shareable_handle(1, 5)
    with pytest.raises(ValueError):
        rt.ipc_mem_set_import_pid("k", ["x"])
    with pytest.raises(TypeError):
        rt.ipc_mem_close(5)
    with pytest.raises(TypeError):
        rt.malloc_physical(G, [], 0)
    assert rt.ipc_mem_close("no such key") == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.ipc_mem_set_import_pid("no such key", [1]) == E.ACL_ERROR_RT_INVALID_HANDLE
    assert rt.ipc_mem_import_by_key("no such key", 0) == (0, E.ACL_ERROR_RT_INVALID_HANDLE)
    assert rt.mem_set_pid_to_shareable_handle(12345, []) == E.ACL_ERROR_INVALID_PARAM
