"""The controls' scaling checkbox says what this model divides its scores by (the Attention component)."""
from __future__ import annotations

from app.values import Inputs, preset_config, preset_tokens
from widgets.controls import Controls


def test_the_scale_checkbox_names_gemmas_scalar_and_goes_back(qtbot):
    controls = Controls(["toy", "gemma3-270m"], ["auto", "cpu"])
    qtbot.addWidget(controls)
    toy = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"))
    controls.set_inputs(toy)
    assert controls.scale.text().endswith("√d_head") and not controls.scale.toolTip()
    gemma = Inputs(config=preset_config("gemma3-270m"), tokens=preset_tokens("toy"), preset="gemma3-270m")
    controls.set_inputs(gemma)
    assert controls.scale.text().endswith("√256") and "query_pre_attn_scalar" in controls.scale.toolTip()
    controls.retranslate()
    assert controls.scale.text().endswith("√256")
    controls.set_inputs(toy)
    assert controls.scale.text().endswith("√d_head") and not controls.scale.toolTip()
