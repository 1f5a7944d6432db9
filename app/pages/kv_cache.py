"""The KV cache: prefill the prompt, then decode one token at a time (compute.instruments.kvcache, off
the UI thread); the generation is dropped when the inputs or weights it belongs to change."""
from __future__ import annotations

from PySide6.QtCore import Signal

from compute import memory
from compute.instruments import kvcache
from widgets.i18n import num, tr

from . import PageController

KV_MAX_PARAMS = 150_000_000     # the KV-cache view works in float64: GPT-2-small-sized models at most


class Controller(PageController):
    generationChanged = Signal(object)      # compute.instruments.kvcache.Generation or None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.generation: kvcache.Generation | None = None
        self.generation_weights = None
        self._running = False
        self.generationChanged.connect(self.show)

    def wire(self, page) -> None:
        page.prefillRequested.connect(self.prefill)
        page.stepRequested.connect(self.step)
        page.resetRequested.connect(self.reset)

    def _on_result(self, result) -> None:
        gen = self.generation
        if gen is not None and (gen.prompt != list(result.inputs.tokens[:len(gen.prompt)])
                                or gen.cfg != result.inputs.config or result.weights is not self.generation_weights):
            self.reset()                                  # the cached rows belong to other inputs
        super()._on_result(result)

    def show(self, gen=None) -> None:
        """The generation (or None: the page's empty state) to the page."""
        self.deliver(gen)

    def prefill(self) -> None:
        """Run the prompt once (off the UI thread) and keep every layer's k and v."""
        result = self.state.result
        if result is None or self._running:
            return
        cfg = result.inputs.config
        if memory.weight_count(cfg) > KV_MAX_PARAMS:
            self.state.message.emit("info", tr("The KV-cache view computes in float64 and is for models up to {max} M "
                                               "parameters; this one has {n} M.").format(
                max=num(KV_MAX_PARAMS / 1e6, ".0f"), n=num(memory.weight_count(cfg) / 1e6, ",.0f")))
            return
        weights, tokens = result.weights, result.inputs.tokens
        self._running = True
        self.background.run(("kv", "prefill"), lambda: (kvcache.prefill(cfg, weights, tokens), weights))

    def step(self) -> None:
        if self.generation is None:
            self.prefill()
            return
        if self._running:
            return
        gen, weights = self.generation, self.generation_weights
        self._running = True
        self.background.run(("kv", "step"), lambda: (kvcache.decode_step(gen, weights), weights))

    def reset(self) -> None:
        self.generation = None
        self.generation_weights = None
        self.generationChanged.emit(None)

    def done(self, tag, value, error) -> None:
        self._running = False
        if error is not None:
            self.fail("kv", error)
            return
        if tag[1] == "prefill":
            self.generation, self.generation_weights = value
        self.generationChanged.emit(self.generation)
