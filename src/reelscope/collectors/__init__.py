"""Data sources behind one protocol (ARCHITECTURE §7): normalized records, typed errors."""
