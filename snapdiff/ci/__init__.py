"""CI glue of the command line, run by action.yml as `python -m`: the trusted configuration
(`trusted`), and the sticky comment (`sticky`) on GitHub (`github`). Not a stage of the
library."""
