"""The logit lens: the residual stream at one query read out through the final norm and the
unembedding after every layer (compute.circuits.lens_logits), and the prediction's probability
layer by layer. The page's whole row is this module: its views, its widget, its line in the table."""
from __future__ import annotations

import html

import numpy as np

from compute import circuits

from ..charts import Chart, Series
from ..i18n import QT_TR_NOOP, tr
from ..matrix import idx_labels
from ..views import Panel
from . import PageKind
from .circuit_pages import CircuitPage
from .circuit_views import _label
from .instrument_views import Item, PageViews, _t

LENS_K = 8                                     # tokens the lens follows (the final top k)


def lens_views(result, sel, extra=None, compute_missing: bool = False) -> PageViews:
    t, cfg = result.trace, result.inputs.config
    i = sel.query
    logits = circuits.lens_logits(t, i, result.weights).astype(np.float64)         # [L+1, d_vocab]
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)                                      # [L+1, d_vocab]
    k = min(LENS_K, cfg.d_vocab)
    final = np.argsort(-probs[-1], kind="stable")[:k]                              # [k] the model's top k
    rows = (tr("embed"),) + tuple(idx_labels(cfg.n_layers))
    cols = tuple(_label(result, tok) for tok in final)
    top1 = probs.argmax(axis=1)                                                    # [L+1]
    settled = len(top1)
    while settled > 0 and top1[settled - 1] == final[0]:
        settled -= 1
    items = [Item(Panel("lens", _t("p after each layer, query i = {i}", i=i), probs[:, final], rows, cols,
                        tr("after layer"), tr("token"), kind="sequential", levels=(0.0, 1.0)), 0, 0)]
    x = np.arange(len(rows), dtype=np.float64)
    last = len(rows) - 1
    ticks = tuple((float(n), r) for n, r in enumerate(rows) if n in (0, last) or (n > 1 and (n - 1) % 5 == 0))
    items.append(Item(Chart("lens_rank", _t("p(“{w}”) by layer", w=cols[0]),
                            (Series("", x, probs[:, final[0]], style="bars", colour="accent", width=0.7),),
                            x_axis=tr("after layer"), y_axis="p", y_range=(0.0, 1.0), legend=False,
                            x_ticks=ticks),
                      0, 1))
    layer_word = tr("the embedding") if settled == 0 else _t("layer {L}", L=settled - 1)
    text = _t("The residual stream at query i = {i}, through the final norm and the unembedding after every layer. "
              "“{w}” (the prediction, p = {p:.3f}) is the top token from {where} on.", i=i,
              w=html.escape(cols[0]), p=float(probs[-1, final[0]]), where=layer_word)
    return PageViews("logit_lens", tuple(items), text=text, col_stretch=(5, 4), panel_size=(480, 560),
                     shapes=f"lens [n_layers + 1, d_vocab] = [{cfg.n_layers + 1}, {cfg.d_vocab}] · top {k}")


class LogitLens(CircuitPage):
    key = "logit_lens"

    @property
    def formula(self) -> str:
        return "logits after layer l = norm_final(resid_post_l) @ W_U"


PAGES = (PageKind("logit_lens", LogitLens, lens_views,
                  QT_TR_NOOP("the logit lens: the prediction's probability after every layer")),)
