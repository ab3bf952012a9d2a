"""aclrt extensions beyond pyACL."""

from typing import Any, Callable, Dict, Iterable, Optional, Tuple

def launch_host_kernel(
    fn: Callable[[Any], object],
    args: Any,
    stream: int,
    /,
    name: str = "",
    *,
    reads: Optional[Iterable[Tuple[int, int]]] = None,
    writes: Optional[Iterable[Tuple[int, int]]] = None,
) -> Tuple[int, int]:
    """Queues ``fn(args)`` as a kernel on ``stream``; returns ``(task_id, ret)``. ``reads`` and
    ``writes`` declare the memory it touches as ``(ptr, size)`` pairs, for traces and the
    checker (``ACLRT_CHECK``)."""
def set_stream_name(stream: int, name: str, /) -> int: ...
def error_name(code: int, /) -> Optional[str]: ...
def error_description(code: int, /) -> Optional[str]: ...
def live_objects() -> Dict[str, int]: ...
def pthread_self() -> int: ...
def set_raw_pointers(enabled: bool, /) -> bool:
    """Whether copies, sets and ``acl.util.ptr_to_bytes`` trust addresses that are neither
    runtime memory nor inside a live buffer from ``bytes_to_ptr`` / ``numpy_to_ptr``, as pyACL
    does (a wrong address is then a crash). Off by default; ``ACLRT_PYTHON_RAW_POINTERS=1`` in
    the environment turns it on at import. Returns the previous setting."""
