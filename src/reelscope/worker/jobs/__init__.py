"""Jobs: the rows behind every async job the API exposes, and the §2.6 async envelope."""
