"""release: the gated Hugging Face dataset (build, upload, download)."""
