"""A model as parts: the components a Config chooses once (components.py), their float64
equations (functions.py) and their multiply-adds (macs.py)."""
from .components import (
    MLP,
    MLP_KINDS,
    NORM_KINDS,
    POSITION_KINDS,
    TAGS,
    Attention,
    Components,
    ExactGeluMLP,
    GeluMLP,
    LayerKind,
    LayerNorm,
    Learned,
    Norm,
    RMSNorm,
    Rotary,
    SwiGLU,
    components_of,
)
from .macs import block_macs, keys_seen, sequence_macs

__all__ = ["MLP", "MLP_KINDS", "NORM_KINDS", "POSITION_KINDS", "TAGS", "Attention", "Components", "ExactGeluMLP",
           "GeluMLP", "LayerKind", "LayerNorm", "Learned", "Norm", "RMSNorm", "Rotary", "SwiGLU", "block_macs",
           "components_of", "keys_seen", "sequence_macs"]
