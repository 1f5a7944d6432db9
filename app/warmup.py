"""Start-up without waiting for the JIT: the cpu backend's numba kernels compile (or load from
numba's cache) on a background thread while small passes are drawn from the numpy path
(compute.forward.numpy_first); if that takes a while the window says so, and once the kernels
are ready the view on screen is computed again by them."""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from compute.forward import numpy_first, warm_up
from widgets.i18n import tr

from .background import Background

SAY_AFTER_MS = 800              # a warm numba cache loads in well under this: say nothing then


class KernelWarmup(QObject):
    def __init__(self, state, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        self.ready = False
        self.said: str | None = None
        self.background = Background(self)
        self.background.done.connect(self._done)

    def start_after_first_paint(self, window) -> None:
        """Start once `window` has drawn its first view: importing numba and loading its cache
        is Python work that would share the interpreter lock with building and painting that
        view (numpy draws it), so it waits for the first `rendered`."""
        numpy_first(True)

        def first(*_args) -> None:
            window.rendered.disconnect(first)
            self.start()
        window.rendered.connect(first)

    def start(self) -> None:
        numpy_first(True)
        self.background.run(("warmup",), lambda: warm_up("cpu"))
        QTimer.singleShot(SAY_AFTER_MS, self, self._say)

    def _say(self) -> None:
        if not self.ready:
            self.said = tr("Preparing the fast kernels (first start only); the views are drawn with numpy meanwhile.")
            self.state.message.emit("info", self.said)

    def _done(self, _tag, _value, error) -> None:
        self.ready = True
        if self.said:
            self.state.messageWithdrawn.emit(self.said)
        if error is not None:                         # numpy keeps drawing the small passes
            self.state.message.emit("warning", tr("The fast kernels could not be prepared ({why}); numpy computes "
                                                  "small passes.").format(why=f"{type(error).__name__}: {error}"))
            return
        numpy_first(False)
        result = self.state.result
        if result is not None and result.trace.backend == "reference" and result.inputs.backend == "auto":
            self.state.start()                        # the view on screen again, from the fast kernels
