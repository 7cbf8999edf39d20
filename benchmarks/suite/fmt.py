"""Short text forms of figures, shared by the log, the table and the
README section."""

from __future__ import annotations

from .measure import median_of, ok


def fmt_rate(x) -> str:
    return "-" if x is None else f"{x:,.0f}"


def shorten(text, n: int = 60) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 3] + "..."


def fmt_fig(fig, short: bool = False) -> str:
    if ok(fig):
        return f"{fig['median']:,.0f} {fig.get('unit', 'steps/s')}"
    reason = shorten(fig.get("reason")) if short else fig.get("reason")
    return f"{fig.get('status')}: {reason}"


def cell(fig) -> str:
    """A figure in the table: the median, or the status with a short reason."""
    return fmt_rate(median_of(fig)) if ok(fig) else fmt_fig(fig, short=True)


def fmt_memory(mem) -> str:
    if mem.get("status") != "ok":
        return f"{mem.get('status')}: {shorten(mem.get('reason') or mem.get('note'))}"
    peak = mem.get("peak_rss_mb")
    delta = mem.get("peak_delta_mb")
    grew = "" if delta is None else f" (+{delta:,.0f} MB for the envs)"
    return (
        f"{mem['state_bytes']:,} B/state, {mem['buffer_bytes_per_env']:,} B/env buffers, "
        f"peak RSS {'-' if peak is None else f'{peak:,.0f} MB'}{grew} at "
        f"{mem['num_envs']:,} envs"
    )


def fmt_start(st) -> str:
    if not ok(st):
        return f"{st.get('status')}: {shorten(st.get('reason'))}"
    cold = "-" if st.get("cold_s") is None else f"{st['cold_s']:.1f} s"
    return f"cold {cold}, warm {st['warm_s']:.2f} s"


def fmt_x(r) -> str:
    return "" if r is None else (f"{r:.2f}x" if r < 10 else f"{r:.1f}x")
