"""Helpers for a game's own non-kernel modules: the content compiler's field
readers, the renderers' drawing canvas, play-loop narration and the
generated layout tables of a game's doc."""
