"""Loaders: files on disk (Hugging Face folders, GGUF, the lab's own checkpoints, pip-installed real models)
mapped to one `Config`, one `Weights` and a tokenizer. Nothing here computes a forward pass."""
