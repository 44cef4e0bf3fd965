"""The optional LLM provider (ARCHITECTURE §8, ADR 0031): an OpenAI-compatible chat API behind one small
client (``client.py``). Like ``collectors/``, it is the I/O boundary: what the provider's errors look
like stays here; callers see a ``Completion`` or an ``LlmFailure``. Nothing in ``analysis/`` imports it."""
