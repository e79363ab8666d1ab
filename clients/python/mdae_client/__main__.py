# mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
"""``python -m mdae_client``: the same as the ``mdae-client`` command."""

import sys

from .cli import main

sys.exit(main())
