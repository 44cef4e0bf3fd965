"""Pure computation over records: no database, no HTTP, no settings, no clock reads (ARCHITECTURE §8)."""
