"""pyACL's allocator calls, all in ``acl.rt``: descriptors, their Python callbacks and their
registration on streams, with exact codes. The runtime never calls the callbacks (it has no
operator or model executor to allocate with), so what is checked is what pyACL's calls answer
and which objects they keep."""

import ctypes
import gc
import sys
import weakref

import acl
from acl import rt

E = acl


def alloc_fn(allocator, size):
    return None


def free_fn(allocator, block):
    return None


def advise_fn(allocator, size, addr):
    return None


def addr_fn(block):
    return None


def complete(d, obj):
    assert rt.allocator_set_obj_to_desc(d, ctypes.addressof(obj)) == 0
    assert rt.allocator_set_alloc_func_to_desc(d, alloc_fn) == 0
    assert rt.allocator_set_free_func_to_desc(d, free_fn) == 0
    assert rt.allocator_set_get_addr_from_block_func_to_desc(d, addr_fn) == 0


def test_the_calls_are_in_acl_rt_only():
    for name in ("allocator_create_desc", "allocator_destroy_desc", "allocator_set_obj_to_desc",
                 "allocator_set_alloc_func_to_desc", "allocator_set_free_func_to_desc",
                 "allocator_set_alloc_advise_func_to_desc",
                 "allocator_set_get_addr_from_block_func_to_desc"):
        assert callable(getattr(rt, name)), name
        assert not hasattr(acl, name), name


def test_descriptors():
    d = rt.allocator_create_desc()
    assert d >> 56 == 0x41
    assert rt.allocator_create_desc() != d
    assert rt.allocator_create_desc(1, 2) not in (0, d)  # arguments are ignored, as in pyACL
    obj = ctypes.create_string_buffer(8)
    assert rt.allocator_set_obj_to_desc(d, ctypes.addressof(obj)) == 0
    assert rt.allocator_set_alloc_func_to_desc(d, alloc_fn) == 0
    assert rt.allocator_set_free_func_to_desc(d, free_fn) == 0
    assert rt.allocator_set_alloc_advise_func_to_desc(d, advise_fn) == 0
    assert rt.allocator_set_get_addr_from_block_func_to_desc(d, addr_fn) == 0
    # The object is an address: NULL is refused as the C call refuses it.
    assert rt.allocator_set_obj_to_desc(d, 0) == E.ACL_ERROR_INVALID_PARAM
    assert "allocator" in acl.get_recent_err_msg()
    # Made-up descriptors are refused, whatever the callback.
    assert rt.allocator_set_alloc_func_to_desc(0, alloc_fn) == E.ACL_ERROR_INVALID_PARAM
    assert rt.allocator_set_free_func_to_desc(0x1234, free_fn) == E.ACL_ERROR_INVALID_PARAM
    assert rt.allocator_destroy_desc(d) == 0
    # Destroyed or made-up descriptors are refused.
    assert rt.allocator_destroy_desc(d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.allocator_set_obj_to_desc(d, ctypes.addressof(obj)) == E.ACL_ERROR_INVALID_PARAM
    assert rt.allocator_set_get_addr_from_block_func_to_desc(d, addr_fn) == E.ACL_ERROR_INVALID_PARAM
    assert rt.allocator_destroy_desc(0x1234) == E.ACL_ERROR_INVALID_PARAM
    assert rt.allocator_destroy_desc(0) == E.ACL_ERROR_INVALID_PARAM


def test_argument_errors():
    d = rt.allocator_create_desc()
    for call, args in ((rt.allocator_set_alloc_func_to_desc, (d,)),
                       (rt.allocator_set_obj_to_desc, (d, "obj")),
                       (rt.allocator_destroy_desc, (None,)),
                       (rt.allocator_register, (1,)),
                       (rt.allocator_unregister, ())):
        try:
            call(*args)
        except TypeError as e:
            assert str(e) == f"acl.rt.{call.__name__} args parse failed"
        else:
            raise AssertionError(call.__name__)
    assert rt.allocator_destroy_desc(d) == 0


def test_callbacks_are_kept_per_kind():
    """The object set last for each kind is kept, as pyACL keeps it; any object is taken, as
    pyACL takes it, since nothing calls it."""

    class Callback:
        def __call__(self, *args):
            return None

    d = rt.allocator_create_desc()
    first, second = Callback(), Callback()
    watch_first, watch_second = weakref.ref(first), weakref.ref(second)
    assert rt.allocator_set_alloc_func_to_desc(d, first) == 0
    del first
    gc.collect()
    assert watch_first() is not None  # kept: the alloc callback now
    assert rt.allocator_set_alloc_func_to_desc(d, second) == 0
    gc.collect()
    assert watch_first() is None  # replaced, released
    # A refused call keeps the object it replaced.
    third = Callback()
    refs = sys.getrefcount(third)
    assert rt.allocator_set_alloc_func_to_desc(0, third) == E.ACL_ERROR_INVALID_PARAM
    assert sys.getrefcount(third) == refs
    del second
    gc.collect()
    assert watch_second() is not None
    # Each kind has its own: setting the free callback leaves the alloc one.
    assert rt.allocator_set_free_func_to_desc(d, third) == 0
    gc.collect()
    assert watch_second() is not None
    assert rt.allocator_set_alloc_advise_func_to_desc(d, None) == 0
    assert rt.allocator_set_alloc_func_to_desc(d, alloc_fn) == 0
    gc.collect()
    assert watch_second() is None
    assert rt.allocator_destroy_desc(d) == 0


def test_registration(stream):
    d = rt.allocator_create_desc()
    obj = ctypes.create_string_buffer(8)
    assert rt.allocator_set_obj_to_desc(d, ctypes.addressof(obj)) == 0
    assert rt.allocator_set_alloc_func_to_desc(d, alloc_fn) == 0
    assert rt.allocator_set_free_func_to_desc(d, free_fn) == 0
    # Incomplete: no block-address function.
    assert rt.allocator_register(stream, d) == E.ACL_ERROR_INVALID_PARAM
    assert "getAddrFromBlockFunc" in acl.get_recent_err_msg()
    assert rt.allocator_set_get_addr_from_block_func_to_desc(d, addr_fn) == 0
    assert rt.allocator_register(stream, d) == 0
    assert rt.allocator_register(stream, d) == 0  # the last registration wins
    assert rt.allocator_register(0, d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.allocator_register(stream, 0) == E.ACL_ERROR_INVALID_PARAM
    # The registration is a copy: destroying the descriptor leaves it.
    assert rt.allocator_destroy_desc(d) == 0
    assert rt.allocator_register(stream, d) == E.ACL_ERROR_INVALID_PARAM
    assert rt.allocator_unregister(stream) == 0
    assert rt.allocator_unregister(stream) == 0  # none registered: still a success
    assert rt.allocator_unregister(0) == E.ACL_ERROR_INVALID_PARAM
    # A second descriptor, complete, registers as well.
    d2 = rt.allocator_create_desc()
    complete(d2, obj)
    assert rt.allocator_register(stream, d2) == 0
    assert rt.allocator_unregister(stream) == 0
    assert rt.allocator_destroy_desc(d2) == 0
