"""Drives the vendor's acllite helpers (their files' folder is argv[1]) the way its samples
do, checking every copy byte for byte. Run by scripts/test.d/31-acllite.sh."""

import sys

import numpy as np

sys.path.insert(0, sys.argv[1])

import acl  # noqa: E402
import acllite_logger as logger  # noqa: E402
import acllite_utils as utils  # noqa: E402
import constants as const  # noqa: E402
from acllite_resource import AclLiteResource  # noqa: E402

SIZE = 4096

resource = AclLiteResource(0)
resource.init()
print(f"run mode {resource.run_mode} ({'ACL_HOST' if resource.run_mode == const.ACL_HOST else 'ACL_DEVICE'})")
logger.log_error("acllite error: code ", 7)

data = (np.arange(SIZE) * 7 % 251).astype(np.uint8)
raw = data.tobytes()
host = acl.util.bytes_to_ptr(raw)

device = utils.copy_data_host_to_device(host, SIZE)
device2 = utils.copy_data_device_to_device(device, SIZE)
back = utils.copy_data_as_numpy(device2, SIZE, const.MEMORY_DEVICE, resource.run_mode)
print(f"host -> device -> device -> numpy: {SIZE} bytes {'equal' if back.tobytes() == raw else 'DIFFER'}")

host_copy = utils.copy_data_device_to_host(device, SIZE)
same = acl.util.ptr_to_bytes(host_copy, SIZE) == raw
print(f"device -> host: {SIZE} bytes {'equal' if same else 'DIFFER'}")

dvpp = utils.copy_data_to_dvpp(host, SIZE, resource.run_mode)
back = utils.copy_data_as_numpy(dvpp, SIZE, const.MEMORY_DVPP, resource.run_mode)
print(f"host -> dvpp -> numpy: {SIZE} bytes {'equal' if back.tobytes() == raw else 'DIFFER'}")

for ptr in (device, device2):
    assert acl.rt.free(ptr) == 0
assert acl.media.dvpp_free(dvpp) == 0
assert acl.rt.free_host(host_copy) == 0

# The resource releases everything, the runtime included, when it goes.
del resource
_, ret = acl.rt.get_run_mode()
print(f"after release: acl.rt.get_run_mode returns {ret}")
