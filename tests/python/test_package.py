"""The package as shipped: every documented function exists, stubs match the runtime, examples
run, and the type stubs satisfy mypy."""

import ast
import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

import acl

ROOT = pathlib.Path(__file__).resolve().parents[2]
PKG = pathlib.Path(acl.__file__).parent

PYACL_RT = """set_device reset_device get_device get_device_count create_context destroy_context
set_context get_context create_stream create_stream_with_config destroy_stream
destroy_stream_force synchronize_stream synchronize_stream_with_timeout stream_query
synchronize_device synchronize_device_with_timeout create_event create_event_with_flag
create_event_ex_with_flag destroy_event record_event reset_event query_event query_event_status
query_event_wait_status synchronize_event synchronize_event_with_timeout event_elapsed_time
event_get_timestamp stream_wait_event subscribe_report unsubscribe_report process_report
launch_callback set_exception_info_callback get_task_id_from_exception_info
get_stream_id_from_exception_info get_thread_id_from_exception_info
get_device_id_from_exception_info get_error_code_from_exception_info malloc malloc_host free
free_host memcpy memcpy_async memset memset_async peek_at_last_error get_last_error
reset_device_force get_run_mode query_device_status get_device_utilization_rate memcpy2d
memcpy2d_async malloc_with_cfg mem_get_allocation_granularity get_device_res_limit
set_device_res_limit reset_device_res_limit get_stream_res_limit set_stream_res_limit
reset_stream_res_limit use_stream_res_in_current_thread unuse_stream_res_in_current_thread
get_res_in_current_thread set_sys_param_opt get_sys_param_opt ctx_set_sys_param_opt
ctx_get_sys_param_opt set_op_wait_timeout set_op_execute_time_out set_op_execute_timeout_v2
get_op_execute_timeout get_op_timeout_interval device_set_limit device_get_limit
malloc_host_with_cfg host_register host_register_v2 host_get_device_pointer
host_unregister get_user_dev_id_by_logic_dev_id get_logic_dev_id_by_user_dev_id
get_primary_ctx_state device_get_bare_tgid get_thread_last_task_id set_device_sat_mode
get_device_sat_mode set_stream_overflow_switch get_stream_overflow_switch get_overflow_status
reset_overflow_status reduce_async binary_load_from_file binary_load_from_data create_binary
destroy_binary binary_load binary_unload binary_get_function get_function_name get_function_addr
kernel_args_get_handle_mem_size kernel_args_get_mem_size kernel_args_init
kernel_args_init_by_user_mem kernel_args_append kernel_args_append_place_holder
kernel_args_get_place_holder_buffer kernel_args_para_update kernel_args_finalize
launch_kernel_with_config launch_kernel allocator_create_desc allocator_destroy_desc
allocator_set_obj_to_desc allocator_set_alloc_func_to_desc allocator_set_free_func_to_desc
allocator_set_alloc_advise_func_to_desc allocator_set_get_addr_from_block_func_to_desc
allocator_register allocator_unregister malloc_for_task_scheduler memcpy_async_with_condition
get_memcpy_desc_size set_memcpy_desc memcpy_async_with_desc""".split()

PYACL_TOP = """init finalize finalize_reference get_recent_err_msg app_log data_type_size float16_to_float float_to_float16
create_data_buffer destroy_data_buffer get_data_buffer_addr get_data_buffer_size
get_data_buffer_size_v2 update_data_buffer get_version get_version_str get_cann_version
get_cann_attribute get_cann_attribute_list""".split()


def test_every_pyacl_function_exists():
    for name in PYACL_RT:
        assert callable(getattr(acl.rt, name)), name
    for name in PYACL_TOP:
        assert callable(getattr(acl, name)), name
    for name in ("start_thread", "stop_thread", "bytes_to_ptr", "ptr_to_bytes", "numpy_to_ptr",
                 "numpy_contiguous_to_ptr", "ptr_to_numpy"):
        assert callable(getattr(acl.util, name))
    for name in ("dvpp_malloc", "dvpp_free"):
        assert callable(getattr(acl.media, name))


def stub_names(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


@pytest.mark.parametrize("module", ["rt", "util", "media", "ext", "constants"])
def test_stubs_match_the_native_module(module):
    runtime = {n for n in dir(getattr(acl, module)) if not n.startswith("_")}
    assert stub_names(PKG / f"{module}.pyi") == runtime


def test_top_level_stubs_match():
    native = {n for n in dir(acl._acl) if callable(getattr(acl._acl, n))}
    assert stub_names(PKG / "_acl.pyi") == native
    assert set(PYACL_TOP) <= stub_names(PKG / "__init__.pyi")
    for name in PYACL_TOP:
        assert getattr(acl, name) is getattr(acl._acl, name)


def test_package_is_marked_typed():
    assert (PKG / "py.typed").exists()


@pytest.mark.parametrize("script", sorted((ROOT / "examples" / "python").glob("*.py")), ids=lambda p: p.name)
def test_examples_run(script):
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip()


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_mypy_accepts_typed_use_and_rejects_misuse(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(
        "import acl\n"
        "stream, ret = acl.rt.create_stream()\n"
        "total: int = stream + ret\n"
        "ms, ret2 = acl.rt.event_elapsed_time(1, 2)\n"
        "x: float = ms\n"
        "s = acl.Stream(priority=1)\n"
        "e: acl.Event = s.record_event()\n"
        "t: float = e.elapsed_time(acl.Event(enable_timing=True))\n"
        "code: int = acl.ACL_ERROR_RT_INVALID_HANDLE\n"
        "mode, ret3 = acl.rt.get_run_mode()\n"
        "info, ret4 = acl.rt.get_device_utilization_rate(0)\n"
        "cube: int = info['cube_utilization']\n"
        "dvpp, ret5 = acl.media.dvpp_malloc(100)\n"
        "half: int = acl.float_to_float16(1.5)\n"
        "back: float = acl.float16_to_float(half)\n"
        "acl.app_log(acl.ACL_ERROR, 'message')\n"
        "buf: int = acl.create_data_buffer(dvpp, 100)\n"
        "previous: bool = acl.ext.set_raw_pointers(False)\n"
        "tid, ret6 = acl.util.start_thread(lambda: None, None)\n"
        "limit, ret7 = acl.rt.get_res_in_current_thread(acl.ACL_RT_DEV_RES_CUBE_CORE)\n"
        "cores: int = limit\n"
        "ptr, ret8 = acl.rt.malloc_with_cfg(64, 0, {})\n"
        "ret9: int = acl.rt.memcpy2d(ptr, 8, ptr, 8, 8, 1, acl.ACL_MEMCPY_DEVICE_TO_HOST)\n"
        "inner = acl.ACL_MEMCPY_INNER_DEVICE_TO_DEVICE\n"
        "sched, ret10 = acl.rt.malloc_for_task_scheduler(64, 0, {})\n"
        "dsize, ret11 = acl.rt.get_memcpy_desc_size(inner)\n"
        "desc, ret12 = acl.rt.set_memcpy_desc(sched, inner, ptr, ptr, dsize, 0)\n"
        "ret13: int = acl.rt.memcpy_async_with_desc(desc, inner, stream)\n"
        "ret14: int = acl.rt.memcpy_async_with_condition(ptr, 8, ptr, 8, inner, stream)\n"
    )
    bad = tmp_path / "bad.py"
    bad.write_text("import acl\nname: int = acl.get_recent_err_msg()\nacl.rt.synchronize_stream('s')\n"
                   "acl.app_log('3', 'message')\nsize: str = acl.data_type_size(1)\n"
                   "acl.rt.set_memcpy_desc(0, 0, 0, 0, 0)\n")
    cmd = [sys.executable, "-m", "mypy", "--no-incremental", "--strict-optional"]
    env = dict(os.environ)
    if PKG.parent.name != "site-packages":  # running from a source tree, not an install
        env["MYPYPATH"] = str(PKG.parent)
    ok = subprocess.run(cmd + [str(good), str(ROOT / "examples" / "python" / "streams_and_events.py"),
                               str(ROOT / "examples" / "python" / "memcpy_loop.py")],
                        capture_output=True, text=True, cwd=tmp_path, env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    ko = subprocess.run(cmd + [str(bad)], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert ko.returncode == 1, ko.stdout
    for line in (2, 3, 4, 5, 6):
        assert f"bad.py:{line}" in ko.stdout, ko.stdout
