"""News: GDELT DOC 2.0 and Google News RSS (connectors reference §7)."""
