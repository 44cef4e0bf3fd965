"""Domain-free building blocks shared by every family."""
