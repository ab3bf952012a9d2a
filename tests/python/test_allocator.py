"""pyACL's allocator calls: descriptors in ``acl`` and their registration on streams in
``acl.rt``, with exact codes. The runtime stores the object and function addresses and never
calls them, so plain ``ctypes`` functions stand in."""

import ctypes

import acl
from acl import rt

E = acl
ALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
ADDR = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)

alloc_fn = ALLOC(lambda obj, size: None)
free_fn = FREE(lambda obj, block: None)
addr_fn = ADDR(lambda block: None)


def address(fn):
    return ctypes.cast(fn, ctypes.c_void_p).value


def test_descriptors():
    d = acl.allocator_create_desc()
    assert d >> 56 == 0x41
    assert acl.allocator_create_desc() != d
    obj = ctypes.create_string_buffer(8)
    assert acl.allocator_set_obj_to_desc(d, ctypes.addressof(obj)) == 0
    assert acl.allocator_set_alloc_func_to_desc(d, address(alloc_fn)) == 0
    assert acl.allocator_set_free_func_to_desc(d, address(free_fn)) == 0
    assert acl.allocator_set_alloc_advise_func_to_desc(d, address(alloc_fn)) == 0
    assert acl.allocator_set_get_addr_from_block_func_to_desc(d, address(addr_fn)) == 0
    # NULL values and descriptors.
    assert acl.allocator_set_obj_to_desc(d, 0) == E.ACL_ERROR_INVALID_PARAM
    assert "allocator" in acl.get_recent_err_msg()
    assert acl.allocator_set_free_func_to_desc(d, 0) == E.ACL_ERROR_INVALID_PARAM
    assert acl.allocator_set_alloc_func_to_desc(0, address(alloc_fn)) == E.ACL_ERROR_INVALID_PARAM
    assert acl.allocator_destroy_desc(d) == 0
    # Destroyed or made-up descriptors are refused.
    assert acl.allocator_destroy_desc(d) == E.ACL_ERROR_INVALID_PARAM
    assert acl.allocator_set_obj_to_desc(d, ctypes.addressof(obj)) == E.ACL_ERROR_INVALID_PARAM
    assert acl.allocator_destroy_desc(0x1234) == E.ACL_ERROR_INVALID_PARAM
    assert acl.allocator_destroy_desc(0) == E.ACL_ERROR_INVALID_PARAM


def test_registration(stream):
    d = acl.allocator_create_desc()
    obj = ctypes.create_string_buffer(8)
    assert acl.allocator_set_obj_to_desc(d, ctypes.addressof(obj)) == 0
    assert acl.allocator_set_alloc_func_to_desc(d, address(alloc_fn)) == 0
    assert acl.allocator_set_free_func_to_desc(d, address(free_fn)) == 0
    # Incomplete: no block-address function.
    assert rt.allocator_register(stream, d) == E.ACL_ERROR_INVALID_PARAM
    assert "getAddrFromBlockFunc" in acl.get_recent_err_msg()
    assert acl.allocator_set_get_addr_from_block_func_to_desc(d, address(addr_fn)) == 0
    assert rt.allocator_register(stream, d) == 0
    assert rt.allocator_register(stream, d) == 0  # the last registration wins
    assert rt.allocator_register(0, d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.allocator_register(stream, 0) == E.ACL_ERROR_INVALID_PARAM
    # The registration is a copy: destroying the descriptor leaves it.
    assert acl.allocator_destroy_desc(d) == 0
    assert rt.allocator_register(stream, d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.allocator_unregister(stream) == 0
    assert rt.allocator_unregister(stream) == 0  # none registered: still a success
    assert rt.allocator_unregister(0) == E.ACL_ERROR_INVALID_PARAM
