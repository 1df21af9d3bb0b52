// The qchess web board: draws a game of the game API (see /openapi.json) and sends the
// player's moves. Plain JavaScript, no build step.
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
  busy: 0,
  token: 0, // bumped by every new game, so a late computer move of an old game is dropped
  options: null,
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

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const key = localStorage.getItem("qchess-api-key");
  if (key) headers.Authorization = `apiKey ${key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  setBusy(1);
  try {
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const answer = await response.json().catch(() => ({ message: `${response.status} ${response.statusText}` }));
    if (response.status === 401) $("key-box").hidden = false;
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
      if (row === 7) cell.insertAdjacentHTML("beforeend", `<span class="coord file">${FILES[file]}</span>`);
      if (col === 0) cell.insertAdjacentHTML("beforeend", `<span class="coord rank">${rank + 1}</span>`);
      cell.addEventListener("click", (event) => onSquareClick(name, event));
      cell.addEventListener("mouseenter", () => onHover(name));
      cell.addEventListener("mouseleave", () => onHover(null));
      board.appendChild(cell);
    }
  }
  $("links").setAttribute("viewBox", "0 0 800 800");
  render();
}

const cellOf = (name) => document.querySelector(`#board [data-square="${name}"]`);

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
    cell.querySelector(".marks").innerHTML = marksFor(name);
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
  $("turn").textContent = game.over ? "Game over" : `${side} to move (${game.to_move_player}) · ply ${game.ply} · rules ${game.rules} · ${game.backend}`;
  const last = game.last_move;
  $("last").textContent = last ? `Last move: ${last.move} — ${outcomeText(last)}` : "";
  const list = $("move-list");
  list.innerHTML = "";
  for (const mv of game.moves) {
    const item = document.createElement("li");
    item.className = mv.outcome === null ? "" : `outcome-${mv.outcome}`;
    item.innerHTML = `<span class="mv"></span> <span class="out"></span>`;
    item.querySelector(".mv").textContent = mv.move;
    item.querySelector(".out").textContent = mv.outcome === null ? "" : mv.proceeded ? "✓" : "✗";
    item.title = outcomeText(mv);
    list.appendChild(item);
  }
  list.scrollTop = list.scrollHeight;
  const captured = ["white", "black"]
    .map((color) => {
      const lost = game.captured[color]
        .map((c) => `<span class="lost ${color}" data-captured="${c.piece}">${glyph(c.piece)}${Math.abs(c.amount - 1) > 1e-9 ? `<small>×${Number(c.amount.toFixed(2))}</small>` : ""}</span>`)
        .join("");
      return `<div>${color === "white" ? "White" : "Black"} lost: ${lost || "—"}</div>`;
    })
    .join("");
  $("captured").innerHTML = captured;
  $("undo").disabled = game.moves.length === 0;
  renderHover();
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
    .map(([sq, value]) => `${sq} (log negativity ${value.toFixed(2)}, Psi+ ${analysis.bell[sq]["Psi+"].toFixed(2)})`)
    .join(", ");
  info.textContent = `${analysis.square}: ${piece}, occupied ${percent(analysis.probability)}` + (links ? ` · entangled with ${links}` : " · not entangled");
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
          cell.style.background = `rgba(47, 111, 223, ${p.toFixed(3)})`;
          cell.style.outline = (file + rank) % 2 === 0 ? "1px solid rgba(0,0,0,0.08)" : "";
          if (p > 1e-9 && p < 1 - 1e-9) cell.textContent = percent(p);
          mini.appendChild(cell);
        }
      }
      box.appendChild(mini);
    }
    preview.appendChild(box);
  }
}

// ---- playing ----

const splitMoves = (from) => ui.legal.filter((m) => m.kind === "split" && m.squares.from[0] === from);
const mergeMoves = (a, b) => ui.legal.filter((m) => m.kind === "merge" && m.squares.from.includes(a) && m.squares.from.includes(b));
const humanToMove = () => ui.game && !ui.game.over && ui.game.to_move_player === "human";
const ownPiece = (name) => {
  const piece = ui.game.squares[name].piece;
  return piece && colorOf(piece) === ui.game.to_move;
};

function clearSelection() {
  ui.selected = null;
  ui.pending = null;
  render();
}

function onSquareClick(name, event) {
  if (!humanToMove() || ui.busy) return;
  const quantum = event.shiftKey || ui.quantum;
  const from = ui.selected;
  if (!from) {
    if (ownPiece(name)) {
      ui.selected = name;
      render();
    }
    return;
  }
  if (name === from) return clearSelection();
  if (ui.pending?.kind === "split") {
    const mv = splitMoves(from).find((m) => m.squares.to.includes(ui.pending.first) && m.squares.to.includes(name));
    if (mv) return play(mv.move);
    if (name === ui.pending.first) ui.pending = null;
    return render();
  }
  if (ui.pending?.kind === "merge") {
    const mv = mergeMoves(from, ui.pending.partner).find((m) => m.squares.to[0] === name);
    if (mv) return play(mv.move);
    ui.pending = null;
    return render();
  }
  const standard = ui.legal.filter((m) => m.kind === "standard" && m.squares.from[0] === from && m.squares.to[0] === name);
  const splits = splitMoves(from).filter((m) => m.squares.to.includes(name));
  const merges = mergeMoves(from, name);
  if (quantum || standard.length === 0) {
    if (splits.length) {
      ui.pending = { kind: "split", first: name };
      status(`Split: now ${event.shiftKey ? "Shift-" : ""}click the second target.`, true);
      return render();
    }
    if (merges.length) {
      ui.pending = { kind: "merge", partner: name };
      status("Merge: now click the target.", true);
      return render();
    }
  }
  if (standard.length > 1) return choosePromotion(standard);
  if (standard.length === 1) return play(standard[0].move);
  if (ownPiece(name)) {
    ui.selected = name;
    ui.pending = null;
    return render();
  }
  clearSelection();
}

function choosePromotion(moves) {
  const box = $("promotion");
  box.innerHTML = "";
  for (const mv of moves) {
    const button = document.createElement("button");
    const letter = ui.game.to_move === "white" ? mv.promotion.toUpperCase() : mv.promotion;
    button.textContent = glyph(letter);
    button.title = NAMES[mv.promotion];
    button.dataset.testid = `promote-${mv.promotion}`;
    button.addEventListener("click", () => {
      box.hidden = true;
      play(mv.move);
    });
    box.appendChild(button);
  }
  box.hidden = false;
}

async function play(text) {
  ui.selected = null;
  ui.pending = null;
  try {
    const state = await api("POST", `/api/games/${ui.game.id}/moves`, { move: text });
    status(`Played ${state.last_move.move}.`, true);
    await show(state);
  } catch (error) {
    status(error.message);
    render();
  }
}

async function show(state) {
  ui.game = state;
  ui.analysis = null;
  ui.legal = [];
  if (humanToMove()) ui.legal = (await api("GET", `/api/games/${state.id}/moves`)).moves;
  render();
  if (ui.hovered) onHover(ui.hovered);
  scheduleComputer();
}

function scheduleComputer() {
  const game = ui.game;
  if (!game || game.over || game.to_move_player === "human" || ui.paused) return;
  const token = ui.token;
  setTimeout(async () => {
    if (token !== ui.token || ui.paused || ui.game.to_move_player === "human" || ui.game.over) return;
    try {
      const state = await api("POST", `/api/games/${ui.game.id}/computer`, {});
      if (token === ui.token) await show(state);
    } catch (error) {
      status(`The computer could not move: ${error.message}`);
    }
  }, 250);
}

let hoverTimer = null;
function onHover(name) {
  ui.hovered = name;
  clearTimeout(hoverTimer);
  if (!name || !ui.game) {
    ui.analysis = null;
    return render();
  }
  render();
  const game = ui.game;
  hoverTimer = setTimeout(async () => {
    try {
      const analysis = await api("GET", `/api/games/${game.id}/squares/${name}`);
      if (ui.game === game && ui.hovered === name) {
        ui.analysis = analysis;
        render();
      }
    } catch (error) {
      status(error.message);
    }
  }, 120);
}

async function newGame(extra = {}) {
  const body = {
    white: $("white").value,
    black: $("black").value,
    rules: $("rules").value,
    backend: $("backend").value,
    ...extra,
  };
  const seed = $("seed").value.trim();
  if (seed !== "" && body.seed === undefined) body.seed = Number(seed);
  ui.token += 1;
  try {
    const state = await api("POST", "/api/games", body);
    ui.selected = null;
    ui.pending = null;
    status(extra.record ? "Record loaded." : "New game.", true);
    await show(state);
  } catch (error) {
    status(error.message);
  }
}

async function undo() {
  const game = ui.game;
  if (!game || game.moves.length === 0) return;
  const lastMover = colorOf(game.last_move.piece);
  const player = (color) => game[color];
  // Take back the computer's reply too, so that a person is to move again.
  let plies = 1;
  const other = lastMover === "white" ? "black" : "white";
  if (player(lastMover) !== "human" && player(other) === "human" && game.moves.length >= 2) plies = 2;
  ui.token += 1;
  try {
    const state = await api("POST", `/api/games/${game.id}/undo`, { plies });
    status(`Took back ${plies} move${plies > 1 ? "s" : ""}.`, true);
    await show(state);
  } catch (error) {
    status(error.message);
  }
}

function download(name, text, type) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

function setQuantum(on) {
  ui.quantum = on;
  $("quantum").setAttribute("aria-pressed", String(on));
}

async function start() {
  buildBoard();
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("move-input").value.trim();
    if (!text || !ui.game) return;
    $("move-input").value = "";
    play(text);
  });
  $("new-game").addEventListener("click", () => newGame());
  $("undo").addEventListener("click", undo);
  $("flip").addEventListener("click", () => {
    ui.flipped = !ui.flipped;
    buildBoard();
  });
  $("quantum").addEventListener("click", () => setQuantum(!ui.quantum));
  $("pause").addEventListener("click", () => {
    ui.paused = !ui.paused;
    $("pause").setAttribute("aria-pressed", String(ui.paused));
    scheduleComputer();
  });
  $("download-record").addEventListener("click", async () => {
    try {
      const { record } = await api("GET", `/api/games/${ui.game.id}/record`);
      download("qchess-game.pgn", record, "text/plain");
    } catch (error) {
      status(error.message);
    }
  });
  $("load-record").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    await newGame({ record: await file.text() });
    event.target.value = "";
  });
  $("download-circuit").addEventListener("click", async () => {
    const format = $("circuit-format").value;
    try {
      const circuit = await api("GET", `/api/games/${ui.game.id}/circuit?format=${format}`);
      download(format === "qasm3" ? "qchess-game.qasm3" : "qchess-game.qasm", circuit.qasm, "text/plain");
    } catch (error) {
      status(error.message);
    }
  });
  $("save-key").addEventListener("click", () => {
    localStorage.setItem("qchess-api-key", $("api-key").value.trim());
    $("key-box").hidden = true;
    start();
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "Escape") clearSelection();
    else if (event.key === "f") $("flip").click();
    else if (event.key === "u") undo();
    else if (event.key === "s") setQuantum(!ui.quantum);
  });
  try {
    ui.options = await api("GET", "/api/options");
  } catch (error) {
    status(`${error.message} — enter the server's API key.`);
    return;
  }
  const fill = (id, items, label) => {
    $(id).innerHTML = items.map((item) => `<option value="${item.id}" title="${item.description || ""}">${label(item)}</option>`).join("");
  };
  fill("white", ui.options.players, (p) => p.id);
  fill("black", ui.options.players, (p) => p.id);
  fill("rules", ui.options.rules, (r) => r.id);
  fill("backend", ui.options.backends, (b) => b.label);
  const params = new URLSearchParams(location.search);
  for (const id of ["white", "black", "rules", "backend", "seed"]) {
    if (params.has(id)) $(id).value = params.get(id);
  }
  await newGame();
}

document.addEventListener("DOMContentLoaded", start);
