"""The numbers behind the instrument pages (A/B, the KV cache, RoPE, shared K/V, windows, the tiled
softmax, the sqrt(d_k) lab, predictions, training, patching): each a function of a Trace or of a few
forward passes. The core (config, names, trace, forward, backends) never imports from here."""
