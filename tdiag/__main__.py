import sys

from tdiag.cli import main

sys.exit(main())
