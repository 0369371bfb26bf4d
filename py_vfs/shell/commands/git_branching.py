"""stub."""
