// The qchess web board, part 1: its state, the API, and drawing the board and the panels.
// Part 2 (play.js) handles the player's input and the game's flow. Plain JavaScript, no build
// step; both files share the page's global scope.
"use strict";

const FILES = "abcdefgh";
const GLYPHS = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const NAMES = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
const RING = 2 * Math.PI * 44;

const ui = {
  game: null, // the game's state, as the API answers it
  legal: [], // legal moves of the side to move
  flipped: false,
  quantum: false, // split/merge mode without holding Shift
  paused: false,
  selected: null, // square name
  pending: null, // {kind: "split", first} or {kind: "merge", partner}
  hovered: null,
  analysis: null, // analysis of the hovered square
  busy: 0, // requests in flight
  playing: false, // a move is on its way: clicks wait
  token: 0, // bumped by every new game, so a late computer move of an old game is dropped
  options: null,
  games: [], // the visitor's games, newest first
};
window.qchess = ui;

const $ = (id) => document.getElementById(id);
const glyph = (letter) => GLYPHS[letter.toLowerCase()] + "\uFE0E";
const colorOf = (letter) => (letter === letter.toUpperCase() ? "white" : "black");
const squareName = (file, rank) => FILES[file] + (rank + 1);

function percent(p) {
  const value = p * 100;
  return Math.abs(value - Math.round(value)) < 0.05 ? `${Math.round(value)}%` : `${value.toFixed(1)}%`;
}

function status(text, ok = false) {
  $("status").textContent = text;
  $("status").className = ok ? "ok" : "";
}

function setBusy(delta) {
  ui.busy += delta;
  document.body.dataset.busy = ui.busy > 0 ? "true" : "false";
}

// ---- the API ----

/// Calls the API; a request about a game carries this browser's seat token for it (acting as
/// `side` when given: see seats.js).
async function api(method, path, body, side) {
  const headers = { Accept: "application/json" };
  const key = localStorage.getItem("qchess-api-key");
  if (key) headers.Authorization = `apiKey ${key}`;
  withSeat(path, headers, side);
  if (body !== undefined) headers["Content-Type"] = "application/json";
  setBusy(1);
  try {
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const answer = await response.json().catch(() => ({ message: `${response.status} ${response.statusText}` }));
    if (response.status === 401 && /apiKey/.test(answer.message || "")) $("key-box").hidden = false;
    if (!response.ok) throw new Error(answer.message || `${response.status}`);
    return answer;
  } finally {
    setBusy(-1);
  }
}

// ---- drawing ----

function buildBoard() {
  const board = $("board");
  board.textContent = "";
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const file = ui.flipped ? 7 - col : col;
      const rank = ui.flipped ? row : 7 - row;
      const name = squareName(file, rank);
      const cell = document.createElement("div");
      cell.className = `sq ${(file + rank) % 2 === 0 ? "dark" : "light"}`;
      cell.dataset.square = name;
      cell.dataset.probability = "0";
      cell.setAttribute("role", "gridcell");
      cell.innerHTML =
        `<svg class="ring" viewBox="0 0 100 100"><circle class="bg" cx="50" cy="50" r="44"/>` +
        `<circle class="arc" cx="50" cy="50" r="44" transform="rotate(-90 50 50)"/></svg>` +
        `<span class="piece"></span><span class="pct"></span><div class="marks"></div>`;
      if (row === 7) cell.insertAdjacentHTML("beforeend", `<span class="coord coord-file">${FILES[file]}</span>`);
      if (col === 0) cell.insertAdjacentHTML("beforeend", `<span class="coord coord-rank">${rank + 1}</span>`);
      cell.tabIndex = 0;
      cell.addEventListener("click", (event) => onSquareClick(name, event));
      cell.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          onSquareClick(name, event);
        }
      });
      cell.addEventListener("focus", () => onHover(name));
      cell.addEventListener("mouseenter", () => onHover(name));
      cell.addEventListener("mouseleave", () => onHover(null));
      board.appendChild(cell);
    }
  }
  $("links").setAttribute("viewBox", "0 0 800 800");
  render();
}

function center(name) {
  const file = FILES.indexOf(name[0]);
  const rank = Number(name[1]) - 1;
  const col = ui.flipped ? 7 - file : file;
  const row = ui.flipped ? rank : 7 - rank;
  return [col * 100 + 50, row * 100 + 50];
}

function render() {
  const game = ui.game;
  if (!game) return;
  const last = game.last_move;
  const lastSquares = last ? [...last.squares.from, ...last.squares.to] : [];
  const correlated = ui.analysis ? Object.keys(ui.analysis.entanglement) : [];
  for (const cell of document.querySelectorAll("#board .sq")) {
    const name = cell.dataset.square;
    const { piece, probability } = game.squares[name];
    const p = piece ? probability : 0;
    cell.dataset.probability = String(Number(p.toFixed(6)));
    cell.dataset.piece = piece || "";
    const quantum = piece && p > 1e-9 && p < 1 - 1e-9;
    cell.classList.toggle("quantum", Boolean(quantum));
    cell.classList.toggle("last", lastSquares.includes(name));
    cell.classList.toggle("selected", ui.selected === name);
    cell.classList.toggle("partner", ui.pending?.kind === "merge" && ui.pending.partner === name);
    cell.classList.toggle("hovered", ui.hovered === name);
    cell.classList.toggle("correlated", correlated.includes(name));
    const pieceSpan = cell.querySelector(".piece");
    pieceSpan.textContent = piece ? glyph(piece) : "";
    pieceSpan.className = `piece ${piece ? colorOf(piece) : ""}`;
    pieceSpan.style.opacity = piece ? String(0.35 + 0.65 * p) : "1";
    cell.querySelector(".pct").textContent = piece ? percent(p) : "";
    const ring = cell.querySelector(".ring");
    ring.style.display = quantum ? "block" : "none";
    const arc = ring.querySelector(".arc");
    arc.setAttribute("stroke-dasharray", `${p * RING} ${RING}`);
    arc.classList.toggle("black-piece", Boolean(piece) && colorOf(piece) === "black");
    cell.title = piece ? `${name}: ${colorOf(piece)} ${NAMES[piece.toLowerCase()]}, ${percent(p)}` : `${name}: empty`;
    const badge = last && last.outcome !== null && last.squares.to.includes(name)
      ? `<span class="outcome-badge m${last.outcome}" data-outcome="${last.outcome}">m${last.outcome}</span>`
      : "";
    cell.querySelector(".marks").innerHTML = marksFor(name) + badge;
  }
  renderLinks();
  renderPanels();
}

/// The target marks of a square for the current selection.
function marksFor(name) {
  if (!ui.selected) return "";
  const from = ui.selected;
  const marks = [];
  if (ui.pending?.kind === "split") {
    if (name === ui.pending.first) marks.push("split chosen");
    else if (splitMoves(from).some((m) => m.squares.to.includes(ui.pending.first) && m.squares.to.includes(name))) marks.push("split");
  } else if (ui.pending?.kind === "merge") {
    if (mergeMoves(from, ui.pending.partner).some((m) => m.squares.to[0] === name)) marks.push("merge");
  } else {
    const standard = ui.legal.find((m) => m.kind === "standard" && m.squares.from[0] === from && m.squares.to[0] === name);
    if (standard) marks.push(standard.variant === "CAPTURE" ? "capture" : standard.variant === "EXCLUDED" ? "excluded" : "standard");
    if (splitMoves(from).some((m) => m.squares.to.includes(name))) marks.push("split");
    if (ui.legal.some((m) => m.kind === "merge" && m.squares.from.includes(from) && m.squares.from.includes(name))) marks.push("partner");
  }
  return marks.map((kind) => `<div class="target ${kind}" data-target="${kind.split(" ")[0]}"></div>`).join("");
}

function renderLinks() {
  const svg = $("links");
  const hovered = ui.hovered;
  svg.innerHTML = ui.game.links
    .map((link) => {
      const [x1, y1] = center(link.a);
      const [x2, y2] = center(link.b);
      const strong = hovered && (link.a === hovered || link.b === hovered);
      const label = strong ? `<text x="${(x1 + x2) / 2}" y="${(y1 + y2) / 2}" text-anchor="middle">${link.negativity.toFixed(2)}</text>` : "";
      return `<line data-link="${link.a}-${link.b}" class="${strong ? "strong" : ""}" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"/>${label}`;
    })
    .join("");
}

function renderPanels() {
  const game = ui.game;
  const banner = $("banner");
  if (game.over) {
    const winner = { "1-0": "White wins", "0-1": "Black wins", "1/2-1/2": "Draw" }[game.result];
    banner.textContent = `${game.result} · ${winner} (${game.reason})`;
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
  const side = game.to_move === "white" ? "White" : "Black";
  $("turn").textContent =
    (game.over ? "Game over" : `${side} to move (${game.to_move_player}) · ply ${game.ply}`) +
    ` · rules ${game.rules} · ${game.backend}${game.exact ? "" : " (estimated from shots)"}` +
    (game.links_error ? ` · links not drawn: ${game.links_error}` : "");
  const last = game.last_move;
  $("last").textContent = last ? `Last move: ${last.move} — ${outcomeText(last)}` : "";
  const list = $("move-list");
  const listed = `${game.id} ${game.moves.map((mv) => mv.move).join(" ")}`;
  if (list.dataset.listed !== listed) renderMoveList(list, listed);
  const captured = ["white", "black"]
    .map((color) => {
      const lost = game.captured[color]
        .map((c) => `<span class="lost ${color}" data-captured="${c.piece}">${glyph(c.piece)}${Math.abs(c.amount - 1) > 1e-9 ? `<small>×${Number(c.amount.toFixed(2))}</small>` : ""}</span>`)
        .join("");
      return `<div>${color === "white" ? "White" : "Black"} lost: ${lost || "—"}</div>`;
    })
    .join("");
  $("captured").innerHTML = captured;
  $("undo").disabled = game.moves.length === 0 || game.waiting || !(holds("white") || holds("black") || !game.seated);
  renderWaiting();
  renderSeats();
  renderClocks();
  renderYourGames();
  renderHover();
}

/// A move waiting for its provider job: which job, where it is, since when.
function renderWaiting() {
  const game = ui.game;
  const box = $("waiting");
  if (!game.waiting || !game.pending) {
    box.hidden = true;
    return;
  }
  const pending = game.pending;
  const job = pending.job;
  let text = `${pending.move} waits`;
  if (job) {
    const state = job.status || (job.job_id ? "submitted" : "being submitted");
    text += ` for job ${job.job_id || "(being submitted)"} on ${job.provider}: ${state}`;
    if (job.queue_position !== null && job.queue_position !== undefined) text += `, position ${job.queue_position} in the queue`;
    if (job.predicted_wait_ms) text += `, about ${Math.ceil(job.predicted_wait_ms / 1000)} s left`;
    text += `, since ${new Date(job.submitted_at).toLocaleTimeString()}`;
  }
  if (pending.message) text += ` (last try: ${pending.message})`;
  $("waiting-text").textContent = text;
  box.dataset.jobStatus = job && job.status ? job.status : "";
  box.hidden = false;
}

/// The visitor's games: each opens again with a click.
function renderYourGames() {
  const list = $("your-games");
  const current = ui.game ? ui.game.id : "";
  const listed = JSON.stringify([current, ui.games.map((g) => [g.id, g.status, g.ply])]);
  if (list.dataset.listed === listed) return;
  list.dataset.listed = listed;
  list.innerHTML = "";
  for (const game of ui.games) {
    const item = document.createElement("li");
    item.dataset.gameId = game.id;
    item.className = `${game.id === current ? "current" : ""} ${game.waiting ? "waiting" : ""}`.trim();
    item.textContent = `${game.white} vs ${game.black} · ${game.rules} · ${game.backend} · ply ${game.ply} · ${game.status}`;
    item.addEventListener("click", () => openGame(game.id));
    list.appendChild(item);
  }
}

/// The move list, rebuilt only when the moves change (so hovering keeps its scroll), as chess
/// writes it: one numbered row per move number, White's move then Black's; a game that starts
/// with Black to move opens with `1...`.
function renderMoveList(list, listed) {
  list.dataset.listed = listed;
  list.innerHTML = "";
  let row = null;
  let number = 0;
  for (const mv of ui.game.moves) {
    const white = colorOf(mv.piece) === "white";
    if (white || row === null) {
      number += 1;
      row = document.createElement("li");
      row.dataset.number = String(number);
      row.innerHTML = `<span class="num"></span>`;
      row.querySelector(".num").textContent = white ? `${number}.` : `${number}...`;
      list.appendChild(row);
    }
    const item = document.createElement("span");
    item.className = `mv ${white ? "white" : "black"}${mv.outcome === null ? "" : ` outcome-${mv.outcome}`}`;
    item.dataset.ply = String(mv.ply);
    item.innerHTML = `<span class="san"></span><span class="out"></span>`;
    item.querySelector(".san").textContent = mv.move;
    item.querySelector(".out").textContent = mv.outcome === null ? "" : mv.proceeded ? " ✓" : " ✗";
    item.title = outcomeText(mv);
    row.appendChild(item);
    if (!white) row = null;
  }
  list.scrollTop = list.scrollHeight;
}

function outcomeText(mv) {
  if (mv.outcome === null) return "no measurement";
  const chance = mv.outcome_probability === null ? "certain" : `p = ${percent(mv.outcome_probability)}`;
  return `measured m${mv.outcome} (${chance}): ${mv.proceeded ? "the move went ahead" : "the move did not happen"}`;
}

function renderHover() {
  const info = $("hover");
  const preview = $("preview");
  const analysis = ui.analysis;
  if (!analysis || analysis.square !== ui.hovered) {
    info.textContent = ui.hovered ? "" : "Hover a square to analyse it.";
    preview.innerHTML = "";
    return;
  }
  const piece = analysis.piece ? `${colorOf(analysis.piece)} ${NAMES[analysis.piece.toLowerCase()]}` : "empty";
  const links = Object.entries(analysis.entanglement)
    .map(([sq, value]) => {
      // The Bell state closest to the pair tells its relative phase (Psi+ vs Psi+i, ...).
      const [bell, overlap] = Object.entries(analysis.bell[sq]).reduce((a, b) => (b[1] > a[1] ? b : a));
      return `${sq} (log negativity ${value.toFixed(2)}, closest Bell state ${bell} ${overlap.toFixed(2)})`;
    })
    .join(", ");
  const entangled = analysis.correlations_error ? ` · correlations unavailable: ${analysis.correlations_error}` : links ? ` · entangled with ${links}` : " · not entangled";
  info.textContent = `${analysis.square}: ${piece}, occupied ${percent(analysis.probability)}${entangled}`;
  preview.innerHTML = "";
  for (const [outcome, label] of [["occupied", "occupied"], ["empty", "empty"]]) {
    const branch = analysis.preview[outcome];
    const box = document.createElement("div");
    box.dataset.preview = outcome;
    const title = branch ? `If ${analysis.square} is measured ${label} (${percent(branch.probability)}):` : `${analysis.square} cannot be ${label}`;
    box.innerHTML = `<div class="mini-title">${title}</div>`;
    if (branch) {
      const mini = document.createElement("div");
      mini.className = "mini";
      for (let row = 0; row < 8; row++) {
        for (let col = 0; col < 8; col++) {
          const file = ui.flipped ? 7 - col : col;
          const rank = ui.flipped ? row : 7 - row;
          const name = squareName(file, rank);
          const p = branch.probabilities[name];
          const cell = document.createElement("div");
          cell.dataset.square = name;
          const base = (file + rank) % 2 === 0 ? "var(--dark)" : "var(--light)";
          const tint = `rgba(47, 111, 223, ${(0.9 * p).toFixed(3)})`;
          cell.style.background = `linear-gradient(${tint}, ${tint}), ${base}`;
          if (p > 1e-9 && p < 1 - 1e-9) cell.textContent = percent(p);
          mini.appendChild(cell);
        }
      }
      box.appendChild(mini);
    }
    preview.appendChild(box);
  }
}
