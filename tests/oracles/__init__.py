"""Independent implementations the tests compare the lab with (never imported by the lab)."""
