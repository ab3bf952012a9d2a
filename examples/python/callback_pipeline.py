"""A pyACL-style sample: a copy-in / compute / copy-out pipeline on two streams, ordered by an
event, with a host callback thread reporting each finished batch and timing events measuring
the whole run. Runs unchanged on Ascend hardware with pyACL, given a device kernel in place of
the host kernel (the one aclrt extension used here, acl.ext.launch_host_kernel)."""

import sys
import time

import acl

DEVICE_ID = 0
BATCHES = 4
BATCH_BYTES = 1024

ACL_SUCCESS = 0
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_CALLBACK_BLOCK = 1
ACL_EVENT_SYNC = 0x1
ACL_EVENT_TIME_LINE = 0x8


def check_ret(message, ret):
    if ret != ACL_SUCCESS:
        raise Exception(f"{message} failed ret={ret}: {acl.get_recent_err_msg()}")


class Sample:
    def __init__(self):
        self.context = None
        self.copy_stream = None
        self.compute_stream = None
        self.callback_run_flag = True
        self.callback_thread = None
        self.reported = []

    def init_resource(self):
        check_ret("acl.init", acl.init())
        check_ret("acl.rt.set_device", acl.rt.set_device(DEVICE_ID))
        self.context, ret = acl.rt.create_context(DEVICE_ID)
        check_ret("acl.rt.create_context", ret)
        self.copy_stream, ret = acl.rt.create_stream()
        check_ret("acl.rt.create_stream", ret)
        self.compute_stream, ret = acl.rt.create_stream()
        check_ret("acl.rt.create_stream", ret)
        self.callback_thread, ret = acl.util.start_thread(self._process_callback, [self.context, 50])
        check_ret("acl.util.start_thread", ret)
        ret = acl.rt.subscribe_report(self.callback_thread, self.compute_stream)
        check_ret("acl.rt.subscribe_report", ret)

    def _process_callback(self, args_list):
        context, timeout = args_list
        acl.rt.set_context(context)
        while self.callback_run_flag:
            acl.rt.process_report(timeout)

    def _batch_done(self, user_data):
        batch, host_out = user_data
        checksum = sum(acl.util.ptr_to_bytes(host_out, BATCH_BYTES))
        self.reported.append(batch)
        print(f"callback: batch {batch} done, checksum {checksum}")

    @staticmethod
    def _double(args):
        ptr, size = args
        data = acl.util.ptr_to_bytes(ptr, size)
        doubled = bytes((b * 2) & 0xFF for b in data)
        ret = acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(doubled), size, 0)
        return ret

    def run(self):
        start, ret = acl.rt.create_event_with_flag(ACL_EVENT_TIME_LINE)
        check_ret("acl.rt.create_event_with_flag", ret)
        end, ret = acl.rt.create_event_with_flag(ACL_EVENT_TIME_LINE)
        check_ret("acl.rt.create_event_with_flag", ret)
        loaded, ret = acl.rt.create_event_ex_with_flag(ACL_EVENT_SYNC)
        check_ret("acl.rt.create_event_ex_with_flag", ret)

        host_in = [bytes([i + 1]) * BATCH_BYTES for i in range(BATCHES)]
        host_out = []
        dev = []
        for _ in range(BATCHES):
            ptr, ret = acl.rt.malloc(BATCH_BYTES, ACL_MEM_MALLOC_NORMAL_ONLY)
            check_ret("acl.rt.malloc", ret)
            dev.append(ptr)
            ptr, ret = acl.rt.malloc_host(BATCH_BYTES)
            check_ret("acl.rt.malloc_host", ret)
            host_out.append(ptr)

        check_ret("acl.rt.record_event", acl.rt.record_event(start, self.copy_stream))
        for i in range(BATCHES):
            ret = acl.rt.memcpy_async(dev[i], BATCH_BYTES, acl.util.bytes_to_ptr(host_in[i]),
                                      BATCH_BYTES, ACL_MEMCPY_HOST_TO_DEVICE, self.copy_stream)
            check_ret("acl.rt.memcpy_async", ret)
            check_ret("acl.rt.record_event", acl.rt.record_event(loaded, self.copy_stream))
            check_ret("acl.rt.stream_wait_event", acl.rt.stream_wait_event(self.compute_stream, loaded))
            _, ret = acl.ext.launch_host_kernel(self._double, (dev[i], BATCH_BYTES), self.compute_stream, name="double")
            check_ret("acl.ext.launch_host_kernel", ret)
            ret = acl.rt.memcpy_async(host_out[i], BATCH_BYTES, dev[i], BATCH_BYTES,
                                      ACL_MEMCPY_DEVICE_TO_HOST, self.compute_stream)
            check_ret("acl.rt.memcpy_async", ret)
            ret = acl.rt.launch_callback(self._batch_done, (i, host_out[i]), ACL_CALLBACK_BLOCK, self.compute_stream)
            check_ret("acl.rt.launch_callback", ret)
        check_ret("acl.rt.stream_wait_event", acl.rt.stream_wait_event(self.copy_stream, loaded))
        check_ret("acl.rt.record_event", acl.rt.record_event(end, self.compute_stream))

        check_ret("acl.rt.synchronize_stream", acl.rt.synchronize_stream(self.compute_stream))
        check_ret("acl.rt.synchronize_stream", acl.rt.synchronize_stream(self.copy_stream))
        elapsed, ret = acl.rt.event_elapsed_time(start, end)
        check_ret("acl.rt.event_elapsed_time", ret)
        print(f"{BATCHES} batches in {elapsed:.3f} ms (device time)")

        for i in range(BATCHES):
            data = acl.util.ptr_to_bytes(host_out[i], BATCH_BYTES)
            assert data == bytes([2 * (i + 1)]) * BATCH_BYTES, f"batch {i} is wrong"
            check_ret("acl.rt.free", acl.rt.free(dev[i]))
            check_ret("acl.rt.free_host", acl.rt.free_host(host_out[i]))
        for event in (start, end, loaded):
            check_ret("acl.rt.destroy_event", acl.rt.destroy_event(event))
        assert self.reported == list(range(BATCHES)), self.reported

    def release_resource(self):
        check_ret("acl.rt.unsubscribe_report", acl.rt.unsubscribe_report(self.callback_thread, self.compute_stream))
        self.callback_run_flag = False
        check_ret("acl.util.stop_thread", acl.util.stop_thread(self.callback_thread))
        check_ret("acl.rt.destroy_stream", acl.rt.destroy_stream(self.compute_stream))
        check_ret("acl.rt.destroy_stream", acl.rt.destroy_stream(self.copy_stream))
        check_ret("acl.rt.destroy_context", acl.rt.destroy_context(self.context))
        check_ret("acl.rt.reset_device", acl.rt.reset_device(DEVICE_ID))
        check_ret("acl.finalize", acl.finalize())


def main():
    t0 = time.monotonic()
    sample = Sample()
    sample.init_resource()
    try:
        sample.run()
    finally:
        sample.release_resource()
    print(f"sample finished in {time.monotonic() - t0:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
