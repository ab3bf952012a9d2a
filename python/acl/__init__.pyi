from typing import Optional

from . import constants as constants
from . import ext as ext
from . import rt as rt
from . import util as util
from ._layer import AclError as AclError
from ._layer import Event as Event
from ._layer import Stream as Stream
from ._layer import check as check
from ._layer import current_stream as current_stream
from ._layer import default_stream as default_stream
from ._layer import stream as stream
from ._layer import synchronize as synchronize
from .constants import *

def init(config_path: Optional[str] = None, /) -> int: ...
def finalize() -> int: ...
def get_recent_err_msg() -> Optional[str]: ...
