"""Small Pillow helpers shared by the games' ``rgb_array`` renderers.

A renderer draws one fixed-size frame (``uint8``, ``(H, W, 3)``) from the
public fields of a state record: the same record always gives the same
picture, and nothing here reads a generator or an undrawn pile.

Fonts come with Pillow itself (``ImageFont.load_default(size=...)``, the
bundled Aileron font, Pillow >= 10.1 built with FreeType); no system font
or network access is assumed. Where FreeType is missing, Pillow's fixed
bitmap font is used instead (smaller text, same layout).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

__all__ = ["require_pillow", "font", "Canvas", "Palette", "mix"]


def require_pillow():
    """Import Pillow or raise a clear error naming the package to install."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as e:  # pragma: no cover - pillow is a core dependency
        raise ImportError("render_mode='rgb_array' draws with Pillow: pip install pillow") from e
    return Image, ImageDraw, ImageFont


@cache
def font(size: int):
    """Pillow's bundled font at ``size`` pixels (bitmap fallback without FreeType)."""
    _, _, ImageFont = require_pillow()
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ValueError, OSError, ImportError):  # old Pillow / no FreeType
        return ImageFont.load_default()


def mix(c1, c2, t: float):
    """Colour ``t`` of the way from ``c1`` to ``c2``."""
    return tuple(int(round(a + (b - a) * t)) for a, b in zip(c1, c2))


class Palette(NamedTuple):
    """A renderer's house colours (RGB tuples): the frame's background, a
    panel's fill and edge, ink for text and a dim ink for labels."""

    bg: tuple
    panel: tuple
    edge: tuple
    ink: tuple
    dim: tuple


class Canvas:
    """A fixed-size RGB picture with a few drawing helpers (text that never
    overflows its box, bars, pips, rounded panels)."""

    def __init__(self, width: int, height: int, background=(24, 24, 30)):
        Image, ImageDraw, _ = require_pillow()
        self.w, self.h = int(width), int(height)
        self.img = Image.new("RGB", (self.w, self.h), tuple(background))
        self.d = ImageDraw.Draw(self.img)

    # --- text ----------------------------------------------------------------
    def text_width(self, text: str, size: int) -> int:
        return int(self.d.textlength(text, font=font(size)))

    def fit(self, text: str, size: int, width: int) -> str:
        """``text`` cut (with an ellipsis) to fit ``width`` pixels."""
        if width <= 0:
            return ""
        if self.text_width(text, size) <= width:
            return text
        lo, hi = 0, len(text)
        while lo < hi:  # longest prefix that fits with "..."
            mid = (lo + hi + 1) // 2
            if self.text_width(text[:mid] + "...", size) <= width:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo].rstrip() + "..." if lo else ""

    def text(self, xy, text: str, size: int = 14, fill=(235, 235, 235), width=None, anchor="la"):
        """Draw ``text`` at ``xy`` (cut to ``width`` pixels when given);
        returns the drawn width."""
        if width is not None:
            text = self.fit(text, size, width)
        if not text:
            return 0
        self.d.text(
            tuple(int(v) for v in xy), text, font=font(size), fill=tuple(fill), anchor=anchor
        )
        return self.text_width(text, size)

    def wrap(
        self,
        xy,
        text: str,
        size: int,
        width: int,
        max_lines: int,
        fill=(235, 235, 235),
        line_h=None,
    ) -> int:
        """Word-wrapped text in a box; returns the number of lines drawn."""
        line_h = line_h or size + 3
        words = text.split()
        lines, cur = [], ""
        for w in words:
            cand = (cur + " " + w).strip()
            if self.text_width(cand, size) <= width or not cur:
                cur = cand
            else:
                lines.append(cur)
                cur = w
        if cur:
            lines.append(cur)
        if len(lines) > max_lines:
            lines = lines[:max_lines]
            lines[-1] = self.fit(lines[-1] + " ...", size, width)
        x, y = xy
        for i, ln in enumerate(lines):
            self.text((x, y + i * line_h), ln, size, fill, width)
        return len(lines)

    # --- shapes ----------------------------------------------------------------
    def box(self, x0, y0, x1, y1, fill=None, outline=None, radius=0, width=1):
        xy = (int(x0), int(y0), int(x1), int(y1))
        fill = tuple(fill) if fill is not None else None
        outline = tuple(outline) if outline is not None else None
        if radius:
            self.d.rounded_rectangle(xy, radius=radius, fill=fill, outline=outline, width=width)
        else:
            self.d.rectangle(xy, fill=fill, outline=outline, width=width)

    def circle(self, cx, cy, r, fill, outline=None, width=1):
        self.d.ellipse(
            (int(cx - r), int(cy - r), int(cx + r), int(cy + r)),
            fill=tuple(fill),
            outline=tuple(outline) if outline is not None else None,
            width=width,
        )

    def bar(self, x, y, w, h, value, maximum, color, back=(55, 55, 62), label=None, size=12):
        """A horizontal gauge ``value / maximum`` with an optional centred label."""
        self.box(x, y, x + w, y + h, fill=back, radius=3)
        if maximum > 0 and value > 0:
            fw = max(2, int(round(w * min(value, maximum) / maximum)))
            self.box(x, y, x + fw, y + h, fill=color, radius=3)
        if label:
            self.text((x + w / 2, y + h / 2), label, size, (250, 250, 250), w - 4, anchor="mm")

    def pips(self, x, y, value, maximum, color, pip=11, gap=3, empty=(60, 60, 68)):
        """One square per point of a bar: ``value`` filled out of ``maximum``."""
        for i in range(int(maximum)):
            c = color if i < value else empty
            xx = x + i * (pip + gap)
            self.box(xx, y, xx + pip, y + pip, fill=c, radius=2)
        return int(maximum) * (pip + gap)

    def chip(self, x, y, text, size, fill, fg=(20, 20, 20), max_w=None, pad=5):
        """A rounded label; returns its width."""
        t = self.fit(text, size, (max_w - 2 * pad) if max_w else 10**6)
        w = self.text_width(t, size) + 2 * pad
        self.box(x, y, x + w, y + size + 6, fill=fill, radius=5)
        self.text((x + pad, y + 3), t, size, fg)
        return w

    def panel(self, x0, y0, x1, y1, palette: Palette, title=None, size=13, title_dy=6):
        """A rounded panel in ``palette``'s fill and edge, with ``title`` in
        its dim ink ``title_dy`` pixels below the top, 10 in from the left."""
        self.box(x0, y0, x1, y1, fill=palette.panel, outline=palette.edge, radius=8)
        if title:
            self.text((x0 + 10, y0 + title_dy), title, size, palette.dim)

    def chip_rows(self, labels, xy, corner, palette: Palette, size, fill, max_w, row_h, gap):
        """``labels`` as chips (``fill``, ink text, each at most ``max_w``
        wide, ``gap`` apart) in rows ``row_h`` apart from ``xy``, within
        ``corner`` (the right edge and the last row's top): where they run
        out of room, "+N more" (dim, right-aligned) names what was left."""
        x, y = xy
        right, bottom = corner
        for i, lab in enumerate(labels):
            w = min(self.text_width(lab, size) + 12, max_w)
            if x + w > right:
                x, y = xy[0], y + row_h
                if y > bottom:
                    more = f"+{len(labels) - i} more"
                    self.text((right, y - row_h), more, size, palette.dim, anchor="ra")
                    break
            self.chip(x, y, lab, size, fill, fg=palette.ink, max_w=max_w)
            x += w + gap

    def array(self) -> np.ndarray:
        """The picture as a fresh C-contiguous ``uint8`` array ``(H, W, 3)``."""
        return np.array(self.img, dtype=np.uint8, order="C")  # writable, owned
