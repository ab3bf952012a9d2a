"""pyACL-compatible AscendCL runtime on aclrt's emulated device.

Programs written for pyACL run unchanged::

    import acl
    ret = acl.init()
    ret = acl.rt.set_device(0)
    stream, ret = acl.rt.create_stream()

Conventions are pyACL's: calls that produce a value return ``(value, ret)``, actions return
``ret`` (0 on success, else the ``aclError`` code, with the message in
``acl.get_recent_err_msg()``); handles and pointers are ints, 0 meaning the default stream.

Submodules: ``acl.rt`` (runtime calls), ``acl.util`` (threads, bytes <-> pointers),
``acl.media`` (DVPP memory), ``acl.ext`` (aclrt extensions: host kernels written in Python,
error names, raw pointers) and ``acl.constants`` (every error code, flag and enumerator with its
official name, also available here). pyACL's top-level calls are here too: ``acl.app_log``,
the data buffer calls, ``acl.data_type_size``, the float16 conversions and the version and CANN
attribute queries.

Pointers are checked: copies, sets and ``acl.util.ptr_to_bytes`` touch only runtime memory and
the buffers whose addresses ``acl.util.bytes_to_ptr`` / ``numpy_to_ptr`` gave out, unless
``acl.ext.set_raw_pointers(True)`` (or ``ACLRT_PYTHON_RAW_POINTERS=1``) trusts any address as
pyACL does.

On top, a Pythonic layer in the style of ``torch.cuda``: :class:`Stream`, :class:`Event`,
:class:`AclError`, :func:`current_stream`, :func:`stream`, :func:`synchronize`.
"""

import atexit as _atexit
import sys as _sys

from . import _acl
from ._acl import (
    app_log,
    create_data_buffer,
    data_type_size,
    destroy_data_buffer,
    finalize,
    finalize_reference,
    float16_to_float,
    float_to_float16,
    get_data_buffer_addr,
    get_data_buffer_size,
    get_device_capability,
    get_cann_attribute,
    get_cann_attribute_list,
    get_cann_version,
    get_data_buffer_size_v2,
    get_recent_err_msg,
    get_soc_name,
    get_version,
    get_version_str,
    init,
    update_data_buffer,
)

for _name in ("rt", "util", "media", "ext", "constants"):
    _sys.modules[__name__ + "." + _name] = getattr(_acl, _name)
del _name

from . import constants, ext, media, rt, util  # noqa: E402
from .constants import *  # noqa: E402,F401,F403
from ._layer import (  # noqa: E402
    AclError,
    Event,
    Stream,
    check,
    current_stream,
    default_stream,
    stream,
    synchronize,
)

# The runtime's threads call into Python; stop them while the interpreter can still serve
# them (a program that calls acl.finalize() itself is unaffected).
_atexit.register(_acl._shutdown)
