// The qchess web board, part 2: the player's clicks and keys, moves, the computer's turns,
// new games, undo, downloads, and starting the page. Part 1 (board.js) draws.
"use strict";

// ---- playing ----

const splitMoves = (from) => ui.legal.filter((m) => m.kind === "split" && m.squares.from[0] === from);
const mergeMoves = (a, b) => ui.legal.filter((m) => m.kind === "merge" && m.squares.from.includes(a) && m.squares.from.includes(b));
const humanToMove = () => ui.game && !ui.game.over && !ui.game.waiting && ui.game.to_move_player === "human" && mayMove();
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
  if (!humanToMove() || ui.playing) return;
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
  ui.playing = true;
  try {
    const state = await api("POST", `/api/games/${ui.game.id}/moves`, { move: text, ply: ui.game.ply });
    status(state.waiting ? `${text} waits for its job.` : `Played ${state.last_move.move}.`, true);
    await show(state);
  } catch (error) {
    status(error.message);
    render();
  } finally {
    ui.playing = false;
  }
}

async function show(state) {
  // The event stream may have shown this state (or a newer one) already.
  if (ui.game && ui.game.id === state.id && state.revision <= ui.game.revision) return;
  noteServerTime(state);
  ui.game = state;
  ui.analysis = null;
  ui.legal = [];
  if (humanToMove()) ui.legal = (await api("GET", `/api/games/${state.id}/moves`)).moves;
  render();
  document.dispatchEvent(new CustomEvent("qchess:state", { detail: state })); // the coach (analysis.js)
  if (ui.hovered && !state.waiting) onHover(ui.hovered);
  if (state.waiting) scheduleWaitCheck();
  else scheduleComputer();
  refreshYourGames();
}

/// While a move waits for its job, the game is asked about again every second; closing the
/// page leaves the move waiting in the server's store, to be opened again from "Your games".
function scheduleWaitCheck() {
  const token = ui.token;
  const id = ui.game.id;
  setTimeout(async () => {
    if (token !== ui.token || !ui.game || ui.game.id !== id || !ui.game.waiting) return;
    try {
      const state = await api("GET", `/api/games/${id}`);
      if (token !== ui.token) return;
      if (state.waiting) {
        ui.game = state;
        render();
        scheduleWaitCheck();
      } else {
        status(`${state.last_move ? state.last_move.move : "The move"} is done.`, true);
        await show(state);
      }
    } catch (error) {
      status(error.message);
      scheduleWaitCheck();
    }
  }, 1000);
}

/// The visitor's games, newest first.
async function refreshYourGames() {
  try {
    const listed = await api("GET", `/api/games?owner=${visitor()}&limit=20`);
    ui.games = listed.games;
    renderYourGames();
  } catch (error) {
    status(error.message);
  }
}

/// Opens a stored game again.
async function openGame(id) {
  ui.token += 1;
  try {
    const state = await api("GET", `/api/games/${id}`);
    ui.selected = null;
    ui.pending = null;
    if (!$("status").className) status(`Game ${id} opened.`, true);
    await show(state);
    follow(id);
  } catch (error) {
    status(error.message);
  }
}

/// This browser's own token: its games are listed under it.
function visitor() {
  let token = localStorage.getItem("qchess-visitor");
  if (!token) {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem("qchess-visitor", token);
  }
  return token;
}

async function cancelWaiting() {
  const game = ui.game;
  if (!game || !game.waiting) return;
  ui.token += 1;
  try {
    const state = await api("POST", `/api/games/${game.id}/cancel`);
    status(`Canceled the waiting ${game.pending.move}; its job is canceled at the provider.`, true);
    await show(state);
  } catch (error) {
    status(error.message);
  }
}

function scheduleComputer() {
  const game = ui.game;
  if (!game || game.over || game.waiting || game.to_move_player === "human" || ui.paused || !mayAskComputer()) return;
  const token = ui.token;
  // One computer move asked at a time, however often the state is shown.
  clearTimeout(ui.computerTimer);
  ui.computerTimer = setTimeout(async () => {
    if (token !== ui.token || ui.paused || ui.game.to_move_player === "human" || ui.game.over || ui.game.waiting) return;
    try {
      const state = await api("POST", `/api/games/${ui.game.id}/computer`, {});
      if (token === ui.token) await show(state);
    } catch (error) {
      status(`The computer could not move: ${error.message}`);
    }
  }, 250);
}

let hoverTimer = null;
/// Clears a scheduled analysis; a scheduled one counts as a request in flight, so the page is
/// not idle while an analysis is about to be asked for.
function clearHoverTimer() {
  if (hoverTimer === null) return;
  clearTimeout(hoverTimer);
  hoverTimer = null;
  setBusy(-1);
}

function onHover(name) {
  ui.hovered = name;
  clearHoverTimer();
  if (!name || !ui.game) {
    ui.analysis = null;
    return render();
  }
  render();
  const game = ui.game;
  // While a move waits for its job, the game's thread is busy with it: no analysis then.
  if (game.waiting) return;
  setBusy(1);
  hoverTimer = setTimeout(async () => {
    hoverTimer = null;
    try {
      if (ui.playing || ui.game.waiting) return;
      const analysis = await api("GET", `/api/games/${game.id}/squares/${name}`);
      if (ui.game === game && ui.hovered === name) {
        ui.analysis = analysis;
        render();
      }
    } catch (error) {
      status(error.message);
    } finally {
      setBusy(-1);
    }
  }, 120);
}

async function newGame(extra = {}) {
  const body = {
    white: $("white").value,
    black: $("black").value,
    rules: $("rules").value,
    backend: $("backend").value,
    owner: visitor(),
    public: $("public").checked,
    // One person at one screen plays both sides: no one to be fair to, so the coach stays.
    casual: $("casual").checked || $("seats").value === "here",
    ...extra,
  };
  const clock = $("clock").value.trim();
  if (clock !== "") body.clock = clock;
  const seed = $("seed").value.trim();
  if (seed !== "" && body.seed === undefined) body.seed = Number(seed);
  const fen = $("fen").value.trim();
  if (fen !== "" && body.record === undefined) body.fen = fen;
  ui.token += 1;
  try {
    const state = await api("POST", "/api/games", body);
    const mode = $("seats").value;
    rememberNewSeats(state, mode);
    ui.selected = null;
    ui.pending = null;
    status(extra.record ? "Record loaded." : mode === "here" ? "New game." : `New game: you play ${mode}; send your friend the link.`, true);
    await show(state);
    follow(state.id);
  } catch (error) {
    status(error.message);
  }
}

async function undo() {
  const game = ui.game;
  if (!game || game.moves.length === 0 || game.waiting) return;
  const lastMover = colorOf(game.last_move.piece);
  const player = (color) => game[color];
  // Take back the computer's reply too, so that a person is to move again.
  let plies = 1;
  const other = lastMover === "white" ? "black" : "white";
  if (player(lastMover) !== "human" && player(other) === "human" && game.moves.length >= 2) plies = 2;
  // Asked as the side whose move goes back (the person's, against the computer).
  await requestTakeback(plies, player(lastMover) === "human" ? lastMover : other);
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
  $("offer-draw").addEventListener("click", offerDraw);
  $("resign").addEventListener("click", resign);
  $("claim-time").addEventListener("click", claimTime);
  $("cancel-waiting").addEventListener("click", cancelWaiting);
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
  $("download-sidecar").addEventListener("click", async () => {
    try {
      const circuit = await api("GET", `/api/games/${ui.game.id}/circuit?format=${$("circuit-format").value}`);
      download("qchess-game.json", JSON.stringify(circuit.sidecar, null, 2), "application/json");
    } catch (error) {
      status(error.message);
    }
  });
  $("save-key").addEventListener("click", () => {
    localStorage.setItem("qchess-api-key", $("api-key").value.trim());
    $("key-box").hidden = true;
    load();
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "Escape") clearSelection();
    else if (event.key === "f") $("flip").click();
    else if (event.key === "u") undo();
    else if (event.key === "s") setQuantum(!ui.quantum);
  });
  await load();
}

/// Reads the server's choices and starts a game with them (again after an API key is given).
async function load() {
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
  for (const id of ["white", "black", "rules", "backend", "seed", "fen", "clock", "seats"]) {
    if (params.has(id)) $(id).value = params.get(id);
  }
  if (params.has("casual")) $("casual").checked = params.get("casual") === "true";
  if (params.has("game")) {
    await takeLink(params.get("game"));
    return openGame(params.get("game"));
  }
  await newGame();
}

document.addEventListener("DOMContentLoaded", start);
