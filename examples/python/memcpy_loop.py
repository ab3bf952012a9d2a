"""A pyACL-style sample: a resource class that sets up and releases the runtime in the vendor's
order, synchronous and asynchronous host -> device -> host copy loops checked byte for byte, a
callback thread that processes each round's report, and DVPP memory. Uses only pyACL calls, so
it runs unchanged with pyACL on Ascend hardware. Its output is the same on every run."""

import sys

import acl

DEVICE_ID = 0
ROUNDS = 3
SIZE = 4096
DVPP_SIZE = 1000

ACL_SUCCESS = 0
ACL_HOST = 1
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_CALLBACK_BLOCK = 1
ACL_INFO = 1


def check_ret(message, ret):
    if ret != ACL_SUCCESS:
        raise Exception(f"{message} failed ret={ret}: {acl.get_recent_err_msg()}")


def log_info(message):
    print(message)
    acl.app_log(ACL_INFO, message)  # written to stderr when ASCEND_GLOBAL_LOG_LEVEL <= 1


def pattern(round_no):
    return bytes((i * 7 + round_no * 13) & 0xFF for i in range(SIZE))


class AclResource:
    """Device, context, stream and callback thread, released in the reverse order."""

    def __init__(self, device_id):
        self.device_id = device_id
        self.context = None
        self.stream = None
        self.run_mode = None
        self.callback_thread = None
        self.callback_run = True
        self.reports = []

    def init(self):
        check_ret("acl.init", acl.init())
        check_ret("acl.rt.set_device", acl.rt.set_device(self.device_id))
        self.context, ret = acl.rt.create_context(self.device_id)
        check_ret("acl.rt.create_context", ret)
        self.stream, ret = acl.rt.create_stream()
        check_ret("acl.rt.create_stream", ret)
        self.run_mode, ret = acl.rt.get_run_mode()
        check_ret("acl.rt.get_run_mode", ret)
        status, ret = acl.rt.query_device_status(self.device_id)
        check_ret("acl.rt.query_device_status", ret)
        self.callback_thread, ret = acl.util.start_thread(self._process_reports, [self.context, 100])
        check_ret("acl.util.start_thread", ret)
        check_ret("acl.rt.subscribe_report", acl.rt.subscribe_report(self.callback_thread, self.stream))
        mode = "ACL_HOST" if self.run_mode == ACL_HOST else "ACL_DEVICE"
        log_info(f"init resource: device {self.device_id}, run mode {mode}, status {status}")

    def _process_reports(self, args):
        context, timeout_ms = args
        check_ret("acl.rt.set_context", acl.rt.set_context(context))
        while self.callback_run:
            acl.rt.process_report(timeout_ms)

    def release(self):
        check_ret("acl.rt.unsubscribe_report", acl.rt.unsubscribe_report(self.callback_thread, self.stream))
        self.callback_run = False
        check_ret("acl.util.stop_thread", acl.util.stop_thread(self.callback_thread))
        check_ret("acl.rt.destroy_stream", acl.rt.destroy_stream(self.stream))
        check_ret("acl.rt.destroy_context", acl.rt.destroy_context(self.context))
        check_ret("acl.rt.reset_device", acl.rt.reset_device(self.device_id))
        check_ret("acl.finalize", acl.finalize())
        log_info("release resource: stream, context, device, acl")


def copy_round_sync(round_no):
    """host (pinned) -> device -> device -> host (pinned), compared byte for byte."""
    data = pattern(round_no)
    host_in, ret = acl.rt.malloc_host(SIZE)
    check_ret("acl.rt.malloc_host", ret)
    host_out, ret = acl.rt.malloc_host(SIZE)
    check_ret("acl.rt.malloc_host", ret)
    dev_a, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check_ret("acl.rt.malloc", ret)
    dev_b, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check_ret("acl.rt.malloc", ret)

    check_ret("acl.rt.memcpy", acl.rt.memcpy(host_in, SIZE, acl.util.bytes_to_ptr(data), SIZE, 0))
    check_ret("acl.rt.memcpy", acl.rt.memcpy(dev_a, SIZE, host_in, SIZE, ACL_MEMCPY_HOST_TO_DEVICE))
    check_ret("acl.rt.memcpy", acl.rt.memcpy(dev_b, SIZE, dev_a, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE))
    check_ret("acl.rt.memcpy", acl.rt.memcpy(host_out, SIZE, dev_b, SIZE, ACL_MEMCPY_DEVICE_TO_HOST))
    back = acl.util.ptr_to_bytes(host_out, SIZE)
    mismatches = sum(1 for a, b in zip(back, data) if a != b)

    for ptr in (dev_a, dev_b):
        check_ret("acl.rt.free", acl.rt.free(ptr))
    for ptr in (host_in, host_out):
        check_ret("acl.rt.free_host", acl.rt.free_host(ptr))
    log_info(f"sync round {round_no}: {SIZE} bytes host->device->device->host, {mismatches} bytes differ")
    return mismatches


def copy_round_async(resource, round_no):
    """The same trip as stream tasks, with a callback reporting the round once it is done."""
    data = pattern(round_no)
    out = bytearray(SIZE)
    dev, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check_ret("acl.rt.malloc", ret)
    check_ret("acl.rt.memset_async", acl.rt.memset_async(dev, SIZE, 0, SIZE, resource.stream))
    ret = acl.rt.memcpy_async(dev, SIZE, acl.util.bytes_to_ptr(data), SIZE, ACL_MEMCPY_HOST_TO_DEVICE,
                              resource.stream)
    check_ret("acl.rt.memcpy_async", ret)
    ret = acl.rt.memcpy_async(acl.util.bytes_to_ptr(out), SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST,
                              resource.stream)
    check_ret("acl.rt.memcpy_async", ret)
    ret = acl.rt.launch_callback(resource.reports.append, round_no, ACL_CALLBACK_BLOCK, resource.stream)
    check_ret("acl.rt.launch_callback", ret)
    check_ret("acl.rt.synchronize_stream", acl.rt.synchronize_stream(resource.stream))
    mismatches = sum(1 for a, b in zip(out, data) if a != b)
    check_ret("acl.rt.free", acl.rt.free(dev))
    log_info(f"async round {round_no}: {SIZE} bytes host->device->host, {mismatches} bytes differ, "
             f"reported rounds {resource.reports}")
    return mismatches


def dvpp_round():
    ptr, ret = acl.media.dvpp_malloc(DVPP_SIZE)
    check_ret("acl.media.dvpp_malloc", ret)
    data = bytes(range(256)) * 3 + bytes(DVPP_SIZE - 768)
    check_ret("acl.rt.memcpy", acl.rt.memcpy(ptr, DVPP_SIZE, acl.util.bytes_to_ptr(data), DVPP_SIZE,
                                             ACL_MEMCPY_HOST_TO_DEVICE))
    back = acl.util.ptr_to_bytes(ptr, DVPP_SIZE)
    check_ret("acl.media.dvpp_free", acl.media.dvpp_free(ptr))
    log_info(f"dvpp: {DVPP_SIZE} bytes, address {ptr % 128} mod 128, copied back equal: {back == data}")
    return back == data


def main():
    resource = AclResource(DEVICE_ID)
    resource.init()
    try:
        bad = sum(copy_round_sync(r) for r in range(ROUNDS))
        bad += sum(copy_round_async(resource, r) for r in range(ROUNDS))
        ok = dvpp_round()
    finally:
        resource.release()
    return 0 if bad == 0 and ok else 1


if __name__ == "__main__":
    sys.exit(main())
