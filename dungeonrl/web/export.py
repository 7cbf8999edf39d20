"""A replay as one self-contained HTML file that plays offline: every
decision's view (table text, events, the seat's hidden information, the
choices offered) and the pictures, embedded; a timeline to scrub, step and
play. No request leaves the file."""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

from ..agents.words import count
from .session import ALL, parse_view, picture_data_url

__all__ = ["export_html", "MAX_PICTURES"]

#: pictures embedded at most (longer games get one every few decisions)
MAX_PICTURES = 400
#: picture scale and WebP quality in an export
SCALE, QUALITY = 0.75, 55

#: the page around the data (``__TITLE__``, ``__FACTS__``, ``__FRAMES__``)
PAGE = Path(__file__).resolve().with_name("static") / "export.html"

_KEEP = ("decision", "to_play", "table", "events", "private", "legal", "over", "result")


def export_html(tv, view=None) -> str:
    """The replay of ``tv`` (a :class:`~.session.trace_view`) seen from
    ``view`` (a seat, ``"public"`` or ``"all"``) as one HTML page."""
    from PIL import Image

    seat = parse_view(view, tv.core.num_players)
    n = tv.decisions
    frames = []
    for k in range(n + 1):
        v = tv.view(seat, k, picture=False)
        frames.append({key: v[key] for key in _KEEP})
    stride = max(1, math.ceil((n + 1) / MAX_PICTURES))
    pictures = {}
    import numpy as np

    for k in list(range(0, n + 1, stride)) + ([n] if n % stride else []):
        img = Image.fromarray(tv.core.render_rgb(tv.history[k]))
        img = img.resize(
            (int(img.width * SCALE), int(img.height * SCALE)), Image.Resampling.BILINEAR
        )
        pictures[k] = picture_data_url(np.asarray(img), "webp", QUALITY)
    data = json.dumps({"frames": frames, "pictures": pictures}, separators=(",", ":"))
    # no "<" in the script element: neither "</script>" nor "<!--" ... "<script"
    # (which would keep the element open) can then appear in the data
    data = data.replace("<", "\\u003c")
    who = "public view" if seat is None else ("every seat" if seat == ALL else f"player_{seat}")
    facts = (
        f"seed {tv.seed} \u00b7 {count(n, 'decision')} \u00b7 "
        f"seats {', '.join(tv.seats)} \u00b7 {who}"
        f" \u00b7 layout {tv.replay.layout_version}"
    )
    title = f"{tv.title} replay"
    return (
        PAGE.read_text(encoding="utf-8")
        .replace("__TITLE__", html.escape(title))
        .replace("__FACTS__", html.escape(facts))
        .replace("__FRAMES__", data)
    )
