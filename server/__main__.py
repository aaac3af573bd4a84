"""``python -m server [--host H] [--port P] [--db PATH]``: the same as ``bigsur serve``."""

import sys

from .app import main

sys.exit(main())
