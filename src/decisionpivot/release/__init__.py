"""release: the gated Hugging Face dataset (build, upload, download) and the training-overlap filter."""
