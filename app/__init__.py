"""Qt application layer: LabState (single source of truth), runner, undo, settings, main window."""
