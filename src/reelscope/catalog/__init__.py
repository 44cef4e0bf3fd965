"""The shared corpus: idempotent ingest of normalized records and the queries other families use."""
