"""Run the ``wordpieces`` command: ``python -m wordpieces --help``."""

from .cli import main

raise SystemExit(main())
