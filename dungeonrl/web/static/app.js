// dungeonrl web app: lobby, table (play or watch) and replay viewer.
// Pages: "#" lobby, "#game=ID&view=V&key=K&token=T" a table, "#replay=ID&view=V" the viewer.
// Seeds travel as strings (JavaScript numbers lose digits above 2**53). Every action names the
// game and decision of the view it was chosen on; the server refuses any other.
"use strict";

const $ = (id) => document.getElementById(id);
let catalog = null;
let socket = null;
let replay = null; // {id, decisions, seats, k, view, timer}
const SPEEDS = [0.5, 1, 4, 10, 25, 60, 200];

function showError(msg) {
  const e = $("error");
  e.textContent = msg;
  e.hidden = !msg;
}

async function api(path, opts = {}) {
  const r = await fetch(path, opts);
  const body = await r.json().catch(() => ({ error: "bad reply from the server" }));
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function params() {
  return new URLSearchParams(location.hash.replace(/^#/, ""));
}

function page(which) {
  for (const id of ["lobby", "table-page", "viewer"]) $(id).hidden = id !== which;
}

// fill the list ul with one item per x of items (fill(li, x); default: its text)
function list(ul, items, fill = (li, x) => { li.textContent = x; }) {
  ul.textContent = "";
  for (const x of items) {
    const li = document.createElement("li");
    fill(li, x);
    ul.appendChild(li);
  }
}

function privateLines(div, priv) {
  div.textContent = "";
  for (const seat of Object.keys(priv)) {
    const h = document.createElement("b");
    h.textContent = "player_" + seat;
    div.appendChild(h);
    const ul = document.createElement("ul");
    list(ul, priv[seat]);
    div.appendChild(ul);
  }
}

function seatLabel(s) {
  return s === "human" ? "you" : s;
}

function resultValue(key, x, seats) {
  if (typeof x === "boolean") return x ? "yes" : "no";
  if (key === "winner" && Number.isInteger(x) && x >= 0 && x < seats.length) return "player_" + x;
  if (Array.isArray(x)) return x.join(", ");
  return String(x);
}

// The result of a finished game as a table: one row per fact; facts with a value per seat
// (and the returns) get one column per seat. data-key / data-value carry the raw values.
function resultTable(div, v) {
  div.textContent = "";
  const seats = v.seats;
  const table = document.createElement("table");
  table.className = "result";
  const head = table.createTHead().insertRow();
  head.appendChild(document.createElement("th"));
  seats.forEach((s, i) => {
    const th = document.createElement("th");
    th.textContent = "player_" + i + (s ? " (" + seatLabel(s) + ")" : "");
    head.appendChild(th);
  });
  const body = table.createTBody();
  const perSeat = (x) => Array.isArray(x) && x.length === seats.length && seats.length > 1;
  const row = (key, label, cells) => {
    const tr = body.insertRow();
    if (key !== null) tr.dataset.key = key;
    const th = document.createElement("th");
    th.textContent = label;
    tr.appendChild(th);
    for (const [raw, text, span] of cells) {
      const td = tr.insertCell();
      td.textContent = text;
      td.dataset.value = JSON.stringify(raw);
      if (span > 1) td.colSpan = span;
    }
    return tr;
  };
  const keys = Object.keys(v.result);
  for (const k of keys.filter((k) => !perSeat(v.result[k]))) {
    const x = v.result[k];
    row(k, k.replace(/_/g, " "), [[x, resultValue(k, x, seats), seats.length]]);
  }
  for (const k of keys.filter((k) => perSeat(v.result[k]))) {
    row(k, k.replace(/_/g, " "), v.result[k].map((x) => [x, resultValue(k, x, seats), 1]));
  }
  if (v.returns) row(null, "return", v.returns.map((x) => [x, String(x), 1])).className = "returns";
  div.appendChild(table);
}

// The views of a game in the select vs: public, every seat, then one per seat (refilled only
// when the number of seats changed, so the chosen option stays).
function viewOptions(vs, seats) {
  if (vs.options.length !== seats.length + 2) {
    vs.textContent = "";
    vs.add(new Option("public", "public"));
    vs.add(new Option("every seat", "all"));
    seats.forEach((s, i) => vs.add(new Option("player_" + i, String(i))));
  }
}

// A wide picture (Dungeon Kart's track) takes the whole width of the page, above the columns.
function fitPicture(img) {
  img.onload = () => {
    const wide = img.naturalWidth >= 2 * img.naturalHeight;
    img.closest(".cols").classList.toggle("wide", wide);
  };
}

// --- lobby --------------------------------------------------------------------------
async function lobby() {
  page("lobby");
  $("crumb").textContent = "";
  if (!catalog) catalog = await api("/api/catalog");
  const gs = $("game-select");
  if (!gs.options.length) {
    for (const g of catalog.games) gs.add(new Option(g.title, g.name));
    gs.onchange = fillPlayers;
    $("players-select").onchange = fillSeats;
    fillPlayers();
  }
  refreshGames();
  refreshReplayFiles();
}

function currentGame() {
  return catalog.games.find((g) => g.name === $("game-select").value);
}

function fillPlayers() {
  const ps = $("players-select");
  ps.textContent = "";
  for (const n of currentGame().players) ps.add(new Option(String(n), String(n)));
  fillSeats();
}

function fillSeats() {
  const g = currentGame();
  const n = +$("players-select").value;
  const box = $("seats");
  box.textContent = "";
  for (let i = 0; i < n; i++) {
    const label = document.createElement("label");
    label.textContent = "player_" + i + " ";
    const sel = document.createElement("select");
    sel.id = "seat-" + i;
    sel.add(new Option("you", "human"));
    for (const a of g.agents[String(n)]) sel.add(new Option(a, a));
    sel.value = i === 0 ? "human" : "heuristic";
    label.appendChild(sel);
    box.appendChild(label);
  }
}

async function startGame() {
  showError("");
  clearTable();
  const n = +$("players-select").value;
  const seats = [];
  for (let i = 0; i < n; i++) seats.push($("seat-" + i).value);
  try {
    const req = { game: $("game-select").value, players: n, seats };
    const seed = $("seed").value.trim();
    if (seed !== "") req.seed = seed; // a string: the server reads its digits exactly
    const g = await api("/api/games", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(req),
    });
    const mine = Object.keys(g.keys);
    const h = new URLSearchParams({ game: g.id });
    if (mine.length) {
      h.set("view", mine[0]);
      h.set("key", g.keys[mine[0]]);
    } else h.set("view", "public");
    h.set("token", g.token); // this page created the game: it may end it and set its pace
    location.hash = h.toString();
  } catch (e) {
    showError(e.message);
  }
}

async function refreshGames() {
  const ul = $("live-games");
  ul.textContent = "";
  const { games } = await api("/api/games");
  if (!games.length) return list(ul, ["none yet"]);
  list(ul, games, (li, g) => {
    const a = document.createElement("a");
    a.href = "#" + new URLSearchParams({ game: g.id, view: "public" });
    a.textContent = `${g.title}${g.seed === null ? "" : ", seed " + g.seed}: ${g.seats.map(seatLabel).join(" vs ")}`;
    li.append(a, ` (${g.decisions} decision${g.decisions === 1 ? "" : "s"}${g.over ? ", over" : ""})`);
  });
}

async function refreshReplayFiles() {
  const ul = $("replay-files");
  ul.textContent = "";
  const { files } = await api("/api/replays/files");
  list(ul, files, (li, name) => {
    const b = document.createElement("button");
    b.textContent = name;
    b.onclick = async () => {
      try {
        const r = await api("/api/replays/files/" + encodeURIComponent(name), { method: "POST" });
        location.hash = new URLSearchParams({ replay: r.id, view: "public" }).toString();
      } catch (e) {
        showError(e.message);
      }
    };
    li.appendChild(b);
  });
}

async function uploadReplay(ev) {
  const file = ev.target.files[0];
  if (!file) return;
  showError("");
  try {
    const text = await file.text();
    const r = await api("/api/replays", { method: "POST", body: text });
    location.hash = new URLSearchParams({ replay: r.id, view: "public" }).toString();
  } catch (e) {
    showError(e.message);
  }
  ev.target.value = "";
}

// --- a table ------------------------------------------------------------------------
let lastView = null;
let tableGame = null; // {id, token}: the game this table shows, and its token if this page made it

// Nothing of the previous game stays on the table, and nothing is clickable, until the
// new game's first view arrives.
function clearTable() {
  lastView = null;
  $("actions").textContent = "";
  $("status").textContent = "connecting…";
  $("status").className = "";
  $("facts").textContent = "";
  $("title").textContent = "";
  $("picture").removeAttribute("src");
  $("table-text").textContent = "";
  $("events").textContent = "";
  $("private").textContent = "";
  $("private-head").hidden = true;
  $("result").hidden = true;
  $("result-text").textContent = "";
  $("watch-controls").hidden = true;
  $("end-game").hidden = true;
}

function openTable(p) {
  if (socket) {
    socket.onmessage = null;
    socket.close();
    socket = null;
  }
  clearTable();
  page("table-page");
  showError("");
  tableGame = { id: p.get("game"), token: p.get("token") || "" };
  const q = new URLSearchParams({ view: p.get("view") || "public" });
  if (p.get("key")) q.set("key", p.get("key"));
  if (tableGame.token) q.set("token", tableGame.token);
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/games/${encodeURIComponent(p.get("game"))}?${q}`;
  const ws = new WebSocket(url);
  socket = ws;
  ws.onmessage = (ev) => {
    if (socket !== ws) return; // a table that is no longer shown
    const m = JSON.parse(ev.data);
    if (m.type === "view") {
      showError(""); // a good view: any earlier refusal is past
      drawTable(m);
    } else if (m.type === "error") {
      showError(m.message);
      if (lastView) enableActions(lastView); // a refused click: the choices stand again
    } else if (m.type === "control") drawControls(m);
    else if (m.type === "closed") {
      showError(m.message);
      $("actions").textContent = "";
      $("end-game").hidden = true;
    }
  };
  ws.onclose = () => {
    if (socket === ws) $("status").textContent += " (disconnected)";
  };
}

function send(msg) {
  if (socket && socket.readyState === 1) socket.send(JSON.stringify(msg));
}

// An action, with the game and decision of the view it was chosen on (the server refuses
// one that is not for the game's current decision, and plays nothing).
function act(v, action) {
  if (v !== lastView || !tableGame || v.game_id !== tableGame.id) return;
  $("actions").querySelectorAll("button").forEach((x) => (x.disabled = true));
  send({ type: "act", game: v.game_id, decision: v.decision, action });
}

function enableActions(v) {
  const mine = v.you !== null && v.to_play === v.you && !v.over;
  $("actions").querySelectorAll("button").forEach((x) => (x.disabled = !mine));
}

async function endGame() {
  if (!tableGame || !tableGame.token) return;
  try {
    await api("/api/games/" + encodeURIComponent(tableGame.id), {
      method: "DELETE",
      headers: { Authorization: "Bearer " + tableGame.token },
    });
    location.hash = "";
  } catch (e) {
    showError(e.message);
  }
}

function drawControls(m) {
  const mine = !!(lastView && lastView.owner); // only the page that started the game sets its pace
  $("play").disabled = !mine || m.playing || m.over;
  $("pause").disabled = !mine || !m.playing;
  $("step").disabled = !mine || m.over;
  $("speed").disabled = !mine;
  const i = SPEEDS.indexOf(m.speed);
  if (i >= 0) $("speed").value = String(i);
  $("speed-text").textContent = m.speed + " per second";
}

function drawTable(v) {
  lastView = v;
  $("crumb").textContent = "/ " + v.title;
  $("title").textContent = v.title;
  $("facts").textContent = `seed ${v.seed === null ? "hidden until the end" : v.seed} · ${v.seats.map((s, i) => "player_" + i + ": " + seatLabel(s)).join(", ")} · decision ${v.decision}`;
  $("end-game").hidden = !v.owner;
  $("end-game").textContent = v.over ? "Close game" : "End game";
  const st = $("status");
  st.className = "";
  if (v.over) st.textContent = "Game over";
  else if (v.you !== null && v.to_play === v.you) {
    st.textContent = "Your turn (player_" + v.you + ")";
    st.className = "yourturn";
  } else st.textContent = "player_" + v.to_play + " to act · " + v.phase;
  if (v.picture && $("picture").getAttribute("src") !== v.picture) $("picture").src = v.picture;
  $("table-text").textContent = v.table;
  if (v.events.length) list($("events"), v.events);
  privateLines($("private"), v.private);
  $("private-head").hidden = !Object.keys(v.private).length;
  const box = $("actions");
  box.textContent = "";
  $("actions-head").hidden = v.you === null && v.view !== "all";
  $("actions-head").textContent = v.you === null ? "Choices offered" : "Your actions";
  const seen = {};
  for (const a of v.legal) seen[a.label] = (seen[a.label] || 0) + 1;
  for (const a of v.legal) {
    const b = document.createElement("button");
    b.textContent = seen[a.label] > 1 ? `${a.label} (${a.name})` : a.label;
    b.title = a.name;
    b.dataset.action = a.action;
    b.disabled = v.you === null;
    b.onclick = () => act(v, a.action);
    box.appendChild(b);
  }
  $("result").hidden = !v.over;
  if (v.over) {
    resultTable($("result-text"), v);
    $("save-replay").href = `/api/games/${v.game_id}/replay`;
  }
  const w = $("watch-controls");
  w.hidden = !v.watched;
  if (v.watched) {
    drawControls(v);
    const vs = $("view-select");
    viewOptions(vs, v.seats);
    vs.value = String(v.view);
  }
}

async function openViewerFromGame() {
  try {
    const r = await api(`/api/games/${lastView.game_id}/replay`, { method: "POST" });
    location.hash = new URLSearchParams({ replay: r.id, view: "public" }).toString();
  } catch (e) {
    showError(e.message);
  }
}

// --- the replay viewer -----------------------------------------------------------------
async function openViewer(p) {
  page("viewer");
  showError("");
  if (socket) {
    socket.close();
    socket = null;
  }
  stopReplay();
  replay = { id: p.get("replay"), view: p.get("view") || "public", k: +(p.get("k") || 0), timer: null };
  await showFrame(replay.k);
}

async function showFrame(k) {
  if (!replay) return;
  try {
    const v = await api(`/api/replays/${replay.id}/frame?k=${k}&view=${encodeURIComponent(replay.view)}`);
    replay.k = v.decision;
    replay.decisions = v.decisions;
    $("crumb").textContent = "/ replay";
    $("v-title").textContent = v.title + " replay";
    $("v-facts").textContent = `seed ${v.seed} · ${v.seats.map((s, i) => "player_" + i + ": " + s).join(", ")}`;
    const t = $("timeline");
    t.max = String(v.decisions);
    t.value = String(v.decision);
    $("frame-pos").textContent = `decision ${v.decision} of ${v.decisions}` + (v.over ? " · over" : ` · player_${v.to_play} to act`);
    if ($("v-picture").getAttribute("src") !== v.picture) $("v-picture").src = v.picture;
    $("v-table").textContent = v.table;
    list($("v-events"), v.events);
    privateLines($("v-private"), v.private);
    list($("v-legal"), v.legal.map((a) => a.label));
    $("v-result-head").hidden = !v.over;
    if (v.over) resultTable($("v-result"), v);
    else $("v-result").textContent = "";
    const vs = $("v-view");
    viewOptions(vs, v.seats);
    vs.value = replay.view;
    $("export").href = `/api/replays/${replay.id}/export?view=${encodeURIComponent(replay.view)}`;
  } catch (e) {
    showError(e.message);
    stopReplay();
  }
}

function stopReplay() {
  if (replay && replay.timer) clearInterval(replay.timer);
  if (replay) replay.timer = null;
  $("v-play").textContent = "Play";
}

function playReplay() {
  if (replay.timer) return stopReplay();
  $("v-play").textContent = "Pause";
  replay.timer = setInterval(() => {
    if (replay.k >= replay.decisions) return stopReplay();
    showFrame(replay.k + 1);
  }, 350);
}

// --- wiring ---------------------------------------------------------------------------
function route() {
  const p = params();
  if (p.get("game")) openTable(p);
  else if (p.get("replay")) openViewer(p);
  else {
    if (socket) {
      socket.close();
      socket = null;
    }
    lobby().catch((e) => showError(e.message));
  }
}

window.addEventListener("hashchange", route);
window.addEventListener("DOMContentLoaded", () => {
  $("start").onclick = startGame;
  $("end-game").onclick = endGame;
  fitPicture($("picture"));
  fitPicture($("v-picture"));
  $("refresh").onclick = refreshGames;
  $("replay-file").onchange = uploadReplay;
  $("open-viewer").onclick = openViewerFromGame;
  $("play").onclick = () => send({ type: "control", cmd: "play" });
  $("pause").onclick = () => send({ type: "control", cmd: "pause" });
  $("step").onclick = () => send({ type: "control", cmd: "step" });
  $("speed").oninput = () => send({ type: "control", cmd: "speed", speed: SPEEDS[+$("speed").value] });
  $("view-select").onchange = () => {
    const v = $("view-select").value;
    send({ type: "look", view: v === "public" || v === "all" ? v : +v });
  };
  $("timeline").oninput = () => showFrame(+$("timeline").value);
  $("v-first").onclick = () => showFrame(0);
  $("v-prev").onclick = () => showFrame(Math.max(0, replay.k - 1));
  $("v-next").onclick = () => showFrame(replay.k + 1);
  $("v-last").onclick = () => showFrame(replay.decisions);
  $("v-play").onclick = playReplay;
  $("v-view").onchange = () => {
    replay.view = $("v-view").value;
    showFrame(replay.k);
  };
  document.addEventListener("keydown", (e) => {
    if ($("viewer").hidden || !replay || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") showFrame(replay.k + 1);
    if (e.key === "ArrowLeft") showFrame(Math.max(0, replay.k - 1));
  });
  route();
});
