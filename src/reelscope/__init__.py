"""Reelscope: a self-hostable Short-Form Social Video Intelligence API v1."""

__version__ = "0.1.0"
