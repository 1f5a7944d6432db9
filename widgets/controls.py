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

from .i18n import Retranslate, tr

SLIDER_MAX_D_HEAD = 256


def layer_tip() -> str:
    return tr("which block the stations show")


def layer_note(inputs) -> str:
    """What a layer number means when the lab computes fewer blocks than the preset's model has
    (gpt3-175b: one block of 96), else ""."""
    full = PRESETS.get(inputs.preset)
    n = inputs.config.n_layers
    if full is None or full.n_layers == n:
        return ""
    window = inputs.config.window(0) if len(set(full.windows or ())) > 1 else None
    shown = "0" if n == 1 else f"0..{n - 1}"
    if window is not None:
        return tr("{preset} has {blocks} blocks; the lab computes {n} (a banded one: window {window}) with its "
                  "shapes and random weights, shown as layer {shown}: it stands for any of its banded ones.").format(
            preset=inputs.preset, blocks=full.n_layers, n=n, window=window, shown=shown)
    return tr("{preset} has {blocks} blocks; the lab computes {n} with its shapes and random weights, shown as "
              "layer {shown}: it stands for any of them.").format(preset=inputs.preset, blocks=full.n_layers, n=n,
                                                                  shown=shown)


def _spin(lo: int, hi: int) -> QSpinBox:
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setKeyboardTracking(False)       # one edit per Enter/arrow, not one per keystroke
    box.setAccelerated(True)
    return box



def narrow_combo() -> QComboBox:
    """A combo box as wide as the dock gives it, not as its longest entry ("SmolLM2-135M (real
    weights)", a translated note): the list it opens is as wide as its entries need."""
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(12)
    combo.view().setTextElideMode(Qt.TextElideMode.ElideNone)
    combo.model().rowsInserted.connect(lambda *_: combo.view().setMinimumWidth(combo.view().sizeHintForColumn(0) + 24))
    combo.model().dataChanged.connect(lambda *_: combo.view().setMinimumWidth(combo.view().sizeHintForColumn(0) + 24))
    return combo

class Controls(Retranslate, QWidget):
    presetChosen = Signal(str)
    realModelChosen = Signal(str)               # a compute.loaders.real_models key (installed or not)
    configChanged = Signal(str, object, bool)   # field, value, part of a drag (merge undo)
    layerChosen = Signal(int)
    headChosen = Signal(int)
    seedChanged = Signal(int)
    weightsChosen = Signal(str)                 # "trained" | "random"
    backendChosen = Signal(str)
    lockScalesChanged = Signal(bool)
    fullRangeChanged = Signal(bool)
    showValuesChanged = Signal(bool)

    def __init__(self, presets: list[str], backends: list[str], parent: QWidget | None = None):
        super().__init__(parent)
        self._updating = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)

        self.model_box = QGroupBox()
        form = QFormLayout(self.model_box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.row_labels: dict[str, QLabel] = {}

        def row(layout: QFormLayout, key: str, field) -> None:
            label = self.row_labels[key] = QLabel()
            layout.addRow(label, field)

        self.preset = narrow_combo()
        for name in presets:
            self.preset.addItem(name, name)              # preset names are the API: never translated
        self.preset.addItem("", "custom")
        self._real_paths: dict[str, int] = {}       # a real model's file -> its index in the list
        self.preset.activated.connect(lambda i: self._emit_preset())
        row(form, "preset", self.preset)
        self.preset_note = QLabel()
        self.preset_note.setWordWrap(True)
        self.preset_note.setObjectName("note")
        form.addRow(self.preset_note)
        self.d_model = _spin(1, 65536)
        self.n_heads = _spin(1, 4096)
        self.d_head = _spin(1, 65536)
        self.d_head_slider = QSlider(Qt.Orientation.Horizontal)
        self.d_head_slider.setRange(1, SLIDER_MAX_D_HEAD)
        self.n_ctx = _spin(1, 1 << 20)
        self.n_layers = _spin(1, 1024)
        d_head_row = QHBoxLayout()
        d_head_row.addWidget(self.d_head_slider, 1)
        d_head_row.addWidget(self.d_head)
        for name in ("d_model", "n_heads"):
            row(form, name, getattr(self, name))
        row(form, "d_head", d_head_row)
        for name in ("n_ctx", "n_layers"):
            row(form, name, getattr(self, name))
        for name in ("d_model", "n_heads", "d_head", "n_ctx", "n_layers"):
            getattr(self, name).valueChanged.connect(lambda v, n=name: self._emit_config(n, v, False))
        self.d_head_slider.valueChanged.connect(self._slider_moved)
        self.causal = QCheckBox()
        self.scale = QCheckBox()
        self._scale_root = "√d_head"                     # what the checkbox divides by: the model's Attention says
        self.causal.toggled.connect(lambda on: self._emit_config("causal", on, False))
        self.scale.toggled.connect(lambda on: self._emit_config("scale_scores", on, False))
        form.addRow(self.causal)
        form.addRow(self.scale)
        self.weights = narrow_combo()
        self.weights.activated.connect(lambda i: self.weightsChosen.emit(self.weights.currentData() or ""))
        row(form, "weights", self.weights)
        self.seed = _spin(0, 2**31 - 1)
        self.seed.valueChanged.connect(lambda v: None if self._updating else self.seedChanged.emit(v))
        row(form, "seed", self.seed)
        self.shapes_note = QLabel()
        self.shapes_note.setWordWrap(True)
        self.shapes_note.setObjectName("note")
        form.addRow(self.shapes_note)
        outer.addWidget(self.model_box)

        self.view_box = QGroupBox()
        vform = QFormLayout(self.view_box)
        self.layer = _spin(0, 0)
        self.head = _spin(0, 0)
        self.layer.valueChanged.connect(lambda v: None if self._updating else self.layerChosen.emit(v))
        self.head.valueChanged.connect(lambda v: None if self._updating else self.headChosen.emit(v))
        row(vform, "layer", self.layer)
        self.layer_note = QLabel()
        self.layer_note.setWordWrap(True)
        self.layer_note.setObjectName("note")
        self.layer_note.hide()
        vform.addRow(self.layer_note)
        row(vform, "head", self.head)
        self.lock = QCheckBox()
        self.lock.toggled.connect(lambda on: None if self._updating else self.lockScalesChanged.emit(on))
        vform.addRow(self.lock)
        self.full_range = QCheckBox()
        self.full_range.toggled.connect(lambda on: None if self._updating else self.fullRangeChanged.emit(on))
        vform.addRow(self.full_range)
        self.values = QCheckBox()
        self.values.setChecked(True)
        self.values.toggled.connect(lambda on: None if self._updating else self.showValuesChanged.emit(on))
        vform.addRow(self.values)
        outer.addWidget(self.view_box)

        self.run_box = QGroupBox()
        rform = QFormLayout(self.run_box)
        self.backend = narrow_combo()
        self.backend.addItems(backends)                 # backend names are the API: never translated
        self.backend.activated.connect(lambda i: self.backendChosen.emit(self.backend.currentText()))
        row(rform, "backend", self.backend)
        self.backend_in_use = QLabel("—")
        self.backend_in_use.setObjectName("note")
        self.backend_in_use.setWordWrap(True)
        row(rform, "in_use", self.backend_in_use)
        outer.addWidget(self.run_box)
        outer.addStretch(1)
        self._inputs = None
        self._shown: tuple = ("", "", True)
        self.retranslate()

    def retranslate(self) -> None:
        """Every text of the panel in the window's language (again after a language change)."""
        self.model_box.setTitle(tr("Model"))
        self.view_box.setTitle(tr("View"))
        self.run_box.setTitle(tr("Compute"))
        words = {"preset": tr("preset"), "weights": tr("weights"), "seed": tr("weight seed"), "layer": tr("layer"),
                 "head": tr("head"), "backend": tr("backend"), "in_use": tr("in use")}
        for key, label in self.row_labels.items():
            label.setText(words.get(key, key))         # d_model, n_heads, d_head, n_ctx, n_layers: the API
        self.preset.setToolTip(tr("load a preset: its sizes and its default tokens"))
        self.preset.setItemText(self.preset.findData("custom"), tr("custom"))
        self.d_model.setToolTip(tr("width of the residual stream"))
        self.n_heads.setToolTip(tr("attention heads per block"))
        self.d_head.setToolTip(tr("width of each head's q, k and v (d_k); any value ≥ 1"))
        self.d_head_slider.setToolTip(tr("drag to change d_head live"))
        self.n_ctx.setToolTip(tr("the longest sequence the model accepts"))
        self.n_layers.setToolTip(tr("number of blocks"))
        self.causal.setText(tr("causal mask (j > i is −∞)"))
        self.scale.setText(tr("divide scores by {root}").format(root=self._scale_root))
        self.weights.setToolTip(tr("trained: the toy model trained on repeating sequences (patterns with a story); "
                                   "random: drawn from the seed below"))
        self.seed.setToolTip(tr("random weights are drawn from this seed"))
        self.shapes_note.setText(tr("New d_model, n_heads or d_head draws new weights of that shape from the seed."))
        self.head.setToolTip(tr("which head the stations show"))
        self.lock.setText(tr("one colour scale per station"))
        self.lock.setToolTip(tr("the panels a lesson compares always share a scale (raw, scaled and masked scores; "
                                "v → p·v → z; the residual adds); this puts the rest of a station's activations on "
                                "it too"))
        self.full_range.setText(tr("full colour range (outliers set it)"))
        self.full_range.setToolTip(tr("off: a few massive values (a real model's outlier dimensions) are clipped, "
                                      "marked ▲ and named under their panel, so the rest keep their colours"))
        self.values.setText(tr("numbers in cells (where they fit)"))
        self.backend.setToolTip(tr("auto: the GPU when one is present, else the CPU"))
        if self._inputs is not None:
            self.set_inputs(self._inputs, *self._shown)
        else:
            self.layer.setToolTip(layer_tip())

    # -- intents -------------------------------------------------------------------------------
    def set_real_models(self, entries) -> None:
        """List real trained models beside the presets: (key, text, tooltip, path or "") each; an
        entry that is not installed says in its text the one command that installs it."""
        for key, text, tip, path in entries:
            index = self.preset.findData(f"real:{key}")
            if index < 0:                                   # new: before "custom"; again (a new language): in place
                index = self.preset.findData("custom")
                self.preset.insertItem(index, text, f"real:{key}")
            self.preset.setItemText(index, text)
            self.preset.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
            if path:
                self._real_paths[path] = index

    def _emit_preset(self) -> None:
        data = self.preset.currentData()
        if isinstance(data, str) and data.startswith("real:"):
            self.realModelChosen.emit(data[5:])
            return
        if isinstance(data, str) and data != "custom":
            self.presetChosen.emit(data)

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
        self._inputs, self._shown = inputs, (preset_note, weights_label, trained_fits)
        self._updating = True
        try:
            items = [(tr("trained (toy task)"), "trained")] if trained_fits else []
            items += [(tr("random (seed {seed})").format(seed=inputs.seed), "random")]
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
            index = self._real_paths.get(inputs.weights, self.preset.findData(inputs.preset))
            self.preset.setCurrentIndex(index if index >= 0 else self.preset.count() - 1)
            self.preset_note.setText(preset_note)
            self.preset_note.setVisible(bool(preset_note))
            for name in ("d_model", "n_heads", "d_head", "n_ctx", "n_layers"):
                _set_value(getattr(self, name), getattr(cfg, name))
            _set_value(self.d_head_slider, min(cfg.d_head, SLIDER_MAX_D_HEAD))
            self.causal.setChecked(cfg.causal)
            self.scale.setChecked(cfg.scale_scores)
            if self._scale_root != cfg.components.attention.scale_root:     # Gemma: √query_pre_attn_scalar
                self._scale_root = cfg.components.attention.scale_root
                self.scale.setText(tr("divide scores by {root}").format(root=self._scale_root))
                self.scale.setToolTip("" if cfg.components.attention.query_pre_attn_scalar is None else
                                      tr("this model scales its scores by 1/√query_pre_attn_scalar, not 1/√d_head"))
            _set_value(self.seed, inputs.seed)
            if self.layer.maximum() != cfg.n_layers - 1:
                self.layer.setMaximum(cfg.n_layers - 1)
            note = layer_note(inputs)
            self.layer_note.setText(note)
            self.layer_note.setVisible(bool(note))
            self.layer.setToolTip(f"{layer_tip()}. {note}" if note else layer_tip())
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
            self.full_range.setChecked(selection.full_range)
            self.values.setChecked(selection.show_values)
        finally:
            self._updating = False


def _set_value(box, value: int) -> None:
    """setValue only when it changes: a spin box repaints on every setValue, even an unchanged one."""
    if box.value() != value:
        box.setValue(value)
