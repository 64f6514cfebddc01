"""``python -m harness.cli``: the ``battlebench`` command."""

import sys

from harness.cli import main

sys.exit(main())
