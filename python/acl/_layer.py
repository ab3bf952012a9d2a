"""Stream and Event objects over ``acl.rt``, raising :class:`AclError` instead of returning codes.

The model is ``torch.cuda``'s: a thread has a *current stream* (the default stream unless a
``with stream:`` block says otherwise); events record on it and streams wait on events. Events
are ACL "Ex" events: each record captures anew, no reset is needed between uses.
"""

import threading
import time
from typing import Any, Callable, Iterable, List, Optional, Tuple

from . import _acl
from ._acl import constants as _c
from ._acl import ext as _ext
from ._acl import rt as _rt

__all__ = [
    "AclError",
    "Event",
    "Stream",
    "check",
    "current_stream",
    "default_stream",
    "stream",
    "synchronize",
]


class AclError(RuntimeError):
    """A failed ACL call: ``code`` (the ``aclError`` number), ``name`` (its constant name) and
    ``message`` (what the runtime said about this failure)."""

    def __init__(self, code: int, message: Optional[str] = None, call: Optional[str] = None):
        self.code = code
        self.name = _ext.error_name(code) or "UNKNOWN_ERROR"
        self.message = message or _ext.error_description(code) or ""
        self.call = call
        where = call + ": " if call else ""
        super().__init__(f"{where}{self.name} ({code}): {self.message}")


def check(ret: int, call: Optional[str] = None) -> None:
    """Raises :class:`AclError` unless ``ret`` is 0 (``ACL_SUCCESS``)."""
    if ret != 0:
        raise AclError(ret, _acl.get_recent_err_msg(), call)


_local = threading.local()


def _stack() -> List["Stream"]:
    s = getattr(_local, "streams", None)
    if s is None:
        s = _local.streams = []
    return s


class Stream:
    """An ACL stream. ``Stream()`` creates one; ``with s:`` makes it the calling thread's current
    stream for the block (streams are not destroyed by leaving the block: call :meth:`destroy`).
    """

    def __init__(self, priority: int = 0, flags: int = 0, *, handle: Optional[int] = None):
        if handle is not None:
            self._handle = int(handle)
            self._owned = False
        else:
            h, ret = _rt.create_stream_with_config(priority, flags)
            check(ret, "create_stream_with_config")
            self._handle = h
            self._owned = True

    @property
    def handle(self) -> int:
        """The raw handle for ``acl.rt`` calls (0 for the default stream)."""
        return self._handle

    def __int__(self) -> int:
        return self._handle

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and other._handle == self._handle

    def __hash__(self) -> int:
        return hash(self._handle)

    def __repr__(self) -> str:
        if self._handle == 0:
            return "<acl.Stream default>"
        return f"<acl.Stream {self._handle:#x}>"

    def query(self) -> bool:
        """True when every task submitted to the stream has finished."""
        status, ret = _rt.stream_query(self._handle)
        check(ret, "stream_query")
        return status == _c.ACL_STREAM_STATUS_COMPLETE

    def synchronize(self, timeout_ms: Optional[int] = None) -> None:
        """Waits for the stream's work; raises the failure of a failed task, or on timeout."""
        if timeout_ms is None:
            check(_rt.synchronize_stream(self._handle), "synchronize_stream")
        else:
            check(
                _rt.synchronize_stream_with_timeout(self._handle, timeout_ms),
                "synchronize_stream_with_timeout",
            )

    def record_event(self, event: Optional["Event"] = None) -> "Event":
        """Records ``event`` (a new one if None) on this stream and returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def wait_event(self, event: "Event") -> None:
        """Later work on this stream waits for the work ``event`` captured."""
        event.wait(self)

    def wait_stream(self, other: "Stream") -> None:
        """Later work on this stream waits for everything submitted to ``other`` so far."""
        self.wait_event(other.record_event())

    def launch(
        self,
        fn: Callable[..., Any],
        *args: Any,
        name: str = "",
        reads: Optional[Iterable[Tuple[int, int]]] = None,
        writes: Optional[Iterable[Tuple[int, int]]] = None,
    ) -> int:
        """Queues ``fn(*args)`` as a host kernel; returns its task id. A raised exception or a
        non-zero int result fails the task (reported by the next synchronize). ``reads`` and
        ``writes`` declare the memory it touches, as ``(ptr, size)`` pairs (for the checker)."""
        label = name or getattr(fn, "__qualname__", "")
        task, ret = _ext.launch_host_kernel(
            lambda a: fn(*a), args, self._handle, label, reads=reads, writes=writes
        )
        check(ret, "launch_host_kernel")
        return task

    def destroy(self) -> None:
        """Waits for pending work and destroys the stream (the default stream is left alone)."""
        if self._owned and self._handle:
            handle, self._handle, self._owned = self._handle, 0, False
            check(_rt.destroy_stream(handle), "destroy_stream")

    def __enter__(self) -> "Stream":
        _stack().append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _stack().pop()


def default_stream() -> Stream:
    """The current context's default stream (handle 0)."""
    return Stream(handle=0)


def current_stream() -> Stream:
    """The calling thread's current stream: the innermost ``with stream`` block's, else the
    default stream."""
    s = _stack()
    return s[-1] if s else default_stream()


def stream(s: Optional[Stream]) -> Stream:
    """``with acl.stream(s):`` makes ``s`` current for the block (None: the default stream)."""
    return s if s is not None else default_stream()


def synchronize() -> None:
    """Waits for every stream of the current context."""
    check(_rt.synchronize_device(), "synchronize_device")


class Event:
    """An event: marks a point in a stream's work.

    ``enable_timing`` lets :meth:`elapsed_time` measure between two events; ``blocking`` makes
    :meth:`synchronize` sleep in the runtime instead of polling.
    """

    def __init__(self, enable_timing: bool = False, blocking: bool = False):
        flags = _c.ACL_EVENT_SYNC | (_c.ACL_EVENT_TIME_LINE if enable_timing else 0)
        h, ret = _rt.create_event_ex_with_flag(flags)
        check(ret, "create_event_ex_with_flag")
        self._handle = h
        self.enable_timing = enable_timing
        self.blocking = blocking

    @property
    def handle(self) -> int:
        """The raw handle for ``acl.rt`` calls."""
        return self._handle

    def __int__(self) -> int:
        return self._handle

    def __repr__(self) -> str:
        return f"<acl.Event {self._handle:#x} timing={self.enable_timing}>"

    def record(self, stream: Optional[Stream] = None) -> None:
        """Captures the work submitted so far to ``stream`` (default: the current stream)."""
        s = stream if stream is not None else current_stream()
        check(_rt.record_event(self._handle, s.handle), "record_event")

    def wait(self, stream: Optional[Stream] = None) -> None:
        """Makes later work on ``stream`` (default: the current stream) wait for this event."""
        s = stream if stream is not None else current_stream()
        check(_rt.stream_wait_event(s.handle, self._handle), "stream_wait_event")

    def query(self) -> bool:
        """True when the captured work has finished (also before any record)."""
        status, ret = _rt.query_event_status(self._handle)
        check(ret, "query_event_status")
        return status == _c.ACL_EVENT_RECORDED_STATUS_COMPLETE

    def synchronize(self) -> None:
        """Waits for the captured work; raises the failure of a failed captured task."""
        if not self.blocking:
            while not self.query():
                time.sleep(0)
        check(_rt.synchronize_event(self._handle), "synchronize_event")

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds between this event's and ``end``'s completion (both need timing)."""
        ms, ret = _rt.event_elapsed_time(self._handle, end._handle)
        check(ret, "event_elapsed_time")
        return ms

    def destroy(self) -> None:
        """Destroys the event (never blocks; pending uses finish first)."""
        if self._handle:
            handle, self._handle = self._handle, 0
            check(_rt.destroy_event(handle), "destroy_event")
