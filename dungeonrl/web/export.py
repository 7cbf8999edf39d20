"""A replay as one self-contained HTML file that plays offline: every
decision's view (table text, events, the seat's hidden information, the
choices offered) and the pictures, embedded; a timeline to scrub, step and
play. No request leaves the file."""

from __future__ import annotations

import html
import json
import math

from .session import ALL, picture_data_url

__all__ = ["export_html", "MAX_PICTURES"]

#: pictures embedded at most (longer games get one every few decisions)
MAX_PICTURES = 400
#: picture scale and WebP quality in an export
SCALE, QUALITY = 0.75, 55

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>__TITLE__</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#1d1b22;color:#eee}
header{padding:8px 14px;background:#2b2733}
main{display:flex;gap:12px;padding:10px;flex-wrap:wrap}
#pic{max-width:100%;border:1px solid #444;background:#000}
pre{background:#111;padding:8px;font-size:12px;overflow:auto;max-height:40vh;margin:0}
.col{flex:1;min-width:320px}
h3{margin:8px 0 4px;font-size:14px;color:#e5c07b}
ul{margin:0;padding-left:18px;font-size:13px}
#bar{display:flex;gap:6px;align-items:center;padding:6px 14px;background:#26232d}
#t{flex:1}
button{background:#3b3645;color:#eee;border:1px solid #555;padding:4px 10px;border-radius:4px;cursor:pointer}
.note{color:#999;font-size:12px}
</style></head><body>
<header><b>__TITLE__</b> <span class="note">__FACTS__</span></header>
<div id="bar"><button id="first">|&lt;</button><button id="prev">&lt;</button>
<button id="play">play</button><button id="next">&gt;</button><button id="last">&gt;|</button>
<input id="t" type="range" min="0" value="0"><span id="pos"></span></div>
<main><div><img id="pic" alt="the table"><div id="picnote" class="note"></div></div>
<div class="col"><h3>Events</h3><ul id="events"></ul><h3 id="privh">Hidden information</h3>
<div id="priv"></div><h3>Choices offered</h3><ul id="legal"></ul><h3>Result</h3><div id="result"></div></div>
<div class="col"><h3>Table</h3><pre id="table"></pre></div></main>
<script id="frames" type="application/json">__FRAMES__</script>
<script>
const D=JSON.parse(document.getElementById('frames').textContent);
const F=D.frames,P=D.pictures,t=document.getElementById('t');t.max=F.length-1;
let k=0,timer=null;
function li(ul,items){ul.textContent='';for(const x of items){const e=document.createElement('li');e.textContent=x;ul.appendChild(e);}}
function show(i){k=Math.max(0,Math.min(F.length-1,i));const f=F[k];t.value=k;
document.getElementById('pos').textContent='decision '+k+' of '+(F.length-1)+(f.to_play>=0?' \u00b7 to act: player_'+f.to_play:' \u00b7 over');
let j=k;while(j>0&&!(j in P))j--;document.getElementById('pic').src=P[j];
document.getElementById('picnote').textContent=j===k?'':'picture of decision '+j;
document.getElementById('table').textContent=f.table;li(document.getElementById('events'),f.events);
const pv=document.getElementById('priv');pv.textContent='';for(const s in f.private){const h=document.createElement('b');h.textContent='player_'+s;pv.appendChild(h);const u=document.createElement('ul');li(u,f.private[s]);pv.appendChild(u);}
li(document.getElementById('legal'),f.legal.map(a=>a.label));
document.getElementById('result').textContent=f.over?JSON.stringify(f.result):'';}
t.oninput=()=>show(+t.value);
document.getElementById('first').onclick=()=>show(0);document.getElementById('last').onclick=()=>show(F.length-1);
document.getElementById('prev').onclick=()=>show(k-1);document.getElementById('next').onclick=()=>show(k+1);
document.getElementById('play').onclick=(e)=>{if(timer){clearInterval(timer);timer=null;e.target.textContent='play';}
else{timer=setInterval(()=>{if(k>=F.length-1){clearInterval(timer);timer=null;return;}show(k+1);},400);e.target.textContent='pause';}};
document.addEventListener('keydown',e=>{if(e.key==='ArrowRight')show(k+1);if(e.key==='ArrowLeft')show(k-1);});
show(0);
</script></body></html>
"""

_KEEP = ("decision", "to_play", "table", "events", "private", "legal", "over", "result")


def _view_arg(view, players: int):
    if view in (None, "", "public"):
        return None
    if view == ALL:
        return ALL
    try:
        seat = int(view)
    except (TypeError, ValueError):
        raise ValueError(f"view must be a seat number, public or all, not {view!r}")
    if not 0 <= seat < players:
        raise ValueError(f"seat {seat} is not at this table (seats 0..{players - 1})")
    return seat


def export_html(tv, view=None) -> str:
    """The replay of ``tv`` (a :class:`~.session.trace_view`) seen from
    ``view`` (a seat, ``"public"`` or ``"all"``) as one HTML page."""
    from PIL import Image

    seat = _view_arg(view, tv.core.num_players)
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
        img = img.resize((int(img.width * SCALE), int(img.height * SCALE)), Image.BILINEAR)
        pictures[k] = picture_data_url(np.asarray(img), "webp", QUALITY)
    data = json.dumps({"frames": frames, "pictures": pictures}, separators=(",", ":"))
    # no "<" in the script element: neither "</script>" nor "<!--" ... "<script"
    # (which would keep the element open) can then appear in the data
    data = data.replace("<", "\\u003c")
    who = "public view" if seat is None else ("every seat" if seat == ALL else f"player_{seat}")
    facts = (
        f"seed {tv.seed} \u00b7 {n} decisions \u00b7 seats {', '.join(tv.seats)} \u00b7 {who}"
        f" \u00b7 layout {tv.replay.layout_version}"
    )
    title = f"{tv.title} replay"
    return (
        _PAGE.replace("__TITLE__", html.escape(title))
        .replace("__FACTS__", html.escape(facts))
        .replace("__FRAMES__", data)
    )
