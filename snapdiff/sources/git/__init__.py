"""snapdiff.sources.git.repo."""
