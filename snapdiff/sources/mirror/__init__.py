"""snapdiff.sources.mirror.layouts."""
