"""CI glue of the command line, run by action.yml and the GitLab recipe as `python -m`: the
trusted configuration (`trusted`), and the sticky comment (`sticky`) on GitHub (`github`) and
GitLab (`gitlab`). Not a stage of the library."""
