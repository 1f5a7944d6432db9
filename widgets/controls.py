"""Controls: preset, sizes, layer/head, mask and scaling switches, seed and backend. Emits intents;
`set_inputs` shows the state's values without echoing them back."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from compute import PRESETS

from .i18n import tr

SLIDER_MAX_D_HEAD = 256
LAYER_TIP = "which block the stations show"


def layer_note(inputs) -> str:
    """What a layer number means when the lab computes fewer blocks than the preset's model has
    (gpt3-175b: one block of 96), else ""."""
    full = PRESETS.get(inputs.preset)
    n = inputs.config.n_layers
    if full is None or full.n_layers == n:
        return ""
    window = inputs.config.window(0) if len(set(full.windows or ())) > 1 else None
    which = f" (a banded one: window {window})" if window is not None else ""
    return (f"{inputs.preset} has {full.n_layers} blocks; the lab computes {n}{which} with its shapes and random "
            f"weights, shown as layer 0{f'..{n - 1}' if n > 1 else ''}: it stands for any of "
            f"{'its banded ones' if which else 'them'}.")


def _spin(lo: int, hi: int, tip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setKeyboardTracking(False)       # one edit per Enter/arrow, not one per keystroke
    box.setToolTip(tip)
    box.setAccelerated(True)
    return box


class Controls(QWidget):
    presetChosen = Signal(str)
    realModelChosen = Signal(str)               # a compute.real_models key (installed or not)
    configChanged = Signal(str, object, bool)   # field, value, part of a drag (merge undo)
    layerChosen = Signal(int)
    headChosen = Signal(int)
    seedChanged = Signal(int)
    weightsChosen = Signal(str)                 # "trained" | "random"
    backendChosen = Signal(str)
    lockScalesChanged = Signal(bool)
    showValuesChanged = Signal(bool)

    def __init__(self, presets: list[str], backends: list[str], parent: QWidget | None = None):
        super().__init__(parent)
        self._updating = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)

        model = QGroupBox(tr("Model"))
        form = QFormLayout(model)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.preset = QComboBox()
        self.preset.addItems(presets + ["custom"])
        self._real_paths: dict[str, int] = {}       # a real model's file -> its index in the list
        self.preset.setToolTip(tr("load a preset: its sizes and its default tokens"))
        self.preset.activated.connect(lambda i: self._emit_preset())
        form.addRow(tr("preset"), self.preset)
        self.preset_note = QLabel()
        self.preset_note.setWordWrap(True)
        self.preset_note.setObjectName("note")
        form.addRow(self.preset_note)
        self.d_model = _spin(1, 65536, "width of the residual stream")
        self.n_heads = _spin(1, 4096, "attention heads per block")
        self.d_head = _spin(1, 65536, "width of each head's q, k and v (d_k); any value ≥ 1")
        self.d_head_slider = QSlider(Qt.Orientation.Horizontal)
        self.d_head_slider.setRange(1, SLIDER_MAX_D_HEAD)
        self.d_head_slider.setToolTip(tr("drag to change d_head live"))
        self.n_ctx = _spin(1, 1 << 20, "the longest sequence the model accepts")
        self.n_layers = _spin(1, 1024, "number of blocks")
        d_head_row = QHBoxLayout()
        d_head_row.addWidget(self.d_head_slider, 1)
        d_head_row.addWidget(self.d_head)
        form.addRow(tr("d_model"), self.d_model)
        form.addRow(tr("n_heads"), self.n_heads)
        form.addRow(tr("d_head"), d_head_row)
        form.addRow(tr("n_ctx"), self.n_ctx)
        form.addRow(tr("n_layers"), self.n_layers)
        for name in ("d_model", "n_heads", "d_head", "n_ctx", "n_layers"):
            getattr(self, name).valueChanged.connect(lambda v, n=name: self._emit_config(n, v, False))
        self.d_head_slider.valueChanged.connect(self._slider_moved)
        self.causal = QCheckBox(tr("causal mask (j > i is −∞)"))
        self.scale = QCheckBox(tr("divide scores by √d_head"))
        self.causal.toggled.connect(lambda on: self._emit_config("causal", on, False))
        self.scale.toggled.connect(lambda on: self._emit_config("scale_scores", on, False))
        form.addRow(self.causal)
        form.addRow(self.scale)
        self.weights = QComboBox()
        self.weights.setToolTip("trained: the toy model trained on repeating sequences (patterns with a "
                                "story); random: drawn from the seed below")
        self.weights.activated.connect(lambda i: self.weightsChosen.emit(self.weights.currentData() or ""))
        form.addRow(tr("weights"), self.weights)
        self.seed = _spin(0, 2**31 - 1, "random weights are drawn from this seed")
        self.seed.valueChanged.connect(lambda v: None if self._updating else self.seedChanged.emit(v))
        form.addRow(tr("weight seed"), self.seed)
        note = QLabel(tr("New d_model, n_heads or d_head draws new weights of that shape from the seed."))
        note.setWordWrap(True)
        note.setObjectName("note")
        form.addRow(note)
        outer.addWidget(model)

        view = QGroupBox(tr("View"))
        vform = QFormLayout(view)
        self.layer = _spin(0, 0, LAYER_TIP)
        self.head = _spin(0, 0, "which head the stations show")
        self.layer.valueChanged.connect(lambda v: None if self._updating else self.layerChosen.emit(v))
        self.head.valueChanged.connect(lambda v: None if self._updating else self.headChosen.emit(v))
        vform.addRow(tr("layer"), self.layer)
        self.layer_note = QLabel()
        self.layer_note.setWordWrap(True)
        self.layer_note.setObjectName("note")
        self.layer_note.hide()
        vform.addRow(self.layer_note)
        vform.addRow(tr("head"), self.head)
        self.lock = QCheckBox(tr("one colour scale per station"))
        self.lock.setToolTip(tr("the panels a lesson compares always share a scale (raw, scaled and masked "
                                "scores; v → p·v → z; the residual adds); this puts the rest of a "
                                "station's activations on it too"))
        self.lock.toggled.connect(lambda on: None if self._updating else self.lockScalesChanged.emit(on))
        vform.addRow(self.lock)
        self.values = QCheckBox(tr("numbers in cells (where they fit)"))
        self.values.setChecked(True)
        self.values.toggled.connect(lambda on: None if self._updating else self.showValuesChanged.emit(on))
        vform.addRow(self.values)
        outer.addWidget(view)

        run = QGroupBox(tr("Compute"))
        rform = QFormLayout(run)
        self.backend = QComboBox()
        self.backend.addItems(backends)
        self.backend.setToolTip(tr("auto: the GPU when one is present, else the CPU"))
        self.backend.activated.connect(lambda i: self.backendChosen.emit(self.backend.currentText()))
        rform.addRow(tr("backend"), self.backend)
        self.backend_in_use = QLabel(tr("—"))
        self.backend_in_use.setObjectName("note")
        self.backend_in_use.setWordWrap(True)
        rform.addRow(tr("in use"), self.backend_in_use)
        outer.addWidget(run)
        outer.addStretch(1)

    # -- intents -------------------------------------------------------------------------------
    def set_real_models(self, entries) -> None:
        """List real trained models beside the presets: (key, text, tooltip, path or "") each; an
        entry that is not installed says in its text the one command that installs it."""
        custom = self.preset.findText("custom")
        for i, (key, text, tip, path) in enumerate(entries):
            self.preset.insertItem(custom + i, text, f"real:{key}")
            self.preset.setItemData(custom + i, tip, Qt.ItemDataRole.ToolTipRole)
            if path:
                self._real_paths[path] = custom + i

    def _emit_preset(self) -> None:
        data = self.preset.currentData()
        if isinstance(data, str) and data.startswith("real:"):
            self.realModelChosen.emit(data[5:])
            return
        name = self.preset.currentText()
        if name != "custom":
            self.presetChosen.emit(name)

    def _emit_config(self, field: str, value, dragging: bool) -> None:
        if not self._updating:
            self.configChanged.emit(field, value, dragging)

    def _slider_moved(self, value: int) -> None:
        if self._updating:
            return
        self._updating = True
        self.d_head.setValue(value)
        self._updating = False
        self.configChanged.emit("d_head", value, self.d_head_slider.isSliderDown())

    # -- state -> view ---------------------------------------------------------------------------
    def set_inputs(self, inputs, preset_note: str = "", weights_label: str = "", trained_fits: bool = True) -> None:
        self._updating = True
        try:
            items = [("trained (toy task)", "trained")] if trained_fits else []
            items += [(f"random (seed {inputs.seed})", "random")]
            if inputs.weights not in ("trained", "random"):
                items.append((weights_label or inputs.weights, ""))
            # Rebuilt only when the choices change (a rebuild relayouts and repaints the panel).
            if items != [(self.weights.itemText(i), self.weights.itemData(i)) for i in range(self.weights.count())]:
                self.weights.clear()
                for text, data in items:
                    self.weights.addItem(text, data)
            self.weights.setCurrentIndex(max(0, self.weights.findData(inputs.weights if inputs.weights in
                                                                      ("trained", "random") else "")))
            cfg = inputs.config
            index = self._real_paths.get(inputs.weights, self.preset.findText(inputs.preset))
            self.preset.setCurrentIndex(index if index >= 0 else self.preset.count() - 1)
            self.preset_note.setText(preset_note)
            self.preset_note.setVisible(bool(preset_note))
            for name in ("d_model", "n_heads", "d_head", "n_ctx", "n_layers"):
                _set_value(getattr(self, name), getattr(cfg, name))
            _set_value(self.d_head_slider, min(cfg.d_head, SLIDER_MAX_D_HEAD))
            self.causal.setChecked(cfg.causal)
            self.scale.setChecked(cfg.scale_scores)
            _set_value(self.seed, inputs.seed)
            if self.layer.maximum() != cfg.n_layers - 1:
                self.layer.setMaximum(cfg.n_layers - 1)
            note = layer_note(inputs)
            self.layer_note.setText(note)
            self.layer_note.setVisible(bool(note))
            self.layer.setToolTip(f"{LAYER_TIP}. {note}" if note else LAYER_TIP)
            if self.head.maximum() != cfg.n_heads - 1:
                self.head.setMaximum(cfg.n_heads - 1)
            self.backend.setCurrentText(inputs.backend)
        finally:
            self._updating = False

    def set_selection(self, selection) -> None:
        self._updating = True
        try:
            _set_value(self.layer, selection.layer)
            _set_value(self.head, selection.head)
            self.lock.setChecked(selection.lock_scales)
            self.values.setChecked(selection.show_values)
        finally:
            self._updating = False


def _set_value(box, value: int) -> None:
    """setValue only when it changes: a spin box repaints on every setValue, even an unchanged one."""
    if box.value() != value:
        box.setValue(value)
