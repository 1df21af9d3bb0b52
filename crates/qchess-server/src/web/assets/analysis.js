// The qchess web board, part 3: the coach. The evaluation bar under the board, the Hint
// button (the best move, marked on the board), the best line on request, and the review of
// the game's moves, stepping through the inaccuracies, mistakes and blunders with the board
// before each. It builds its own panels; play.js tells it of every new game state with the
// "qchess:state" event. Its requests are not counted as the board's own (ui.busy): the
// coach's elements say what they show in data attributes instead.
"use strict";

const coach = {
  evaluated: null, // the game state the evaluation bar shows
  hint: null, // the hint of the current state, once asked for
  line: false, // whether the best line is shown
  review: null, // the review of the game, once asked for
  step: -1, // index into review.marked
  token: 0, // bumped by every new state, so late answers are dropped
};
window.qchessCoach = coach;

/// The coach's thinking limit: `?coach-depth=N` in the page's address, else 300 ms.
function coachLimit() {
  const depth = new URLSearchParams(location.search).get("coach-depth");
  return depth ? `depth=${encodeURIComponent(depth)}` : "movetime=300";
}

async function coachApi(path) {
  const headers = { Accept: "application/json" };
  const key = localStorage.getItem("qchess-api-key");
  if (key) headers.Authorization = `apiKey ${key}`;
  // The seat or spectator token this browser holds for the game (seats.js): a private game
  // is analysed only for those who may watch it.
  const response = await fetch(path, { headers: withSeat(path, headers) });
  const answer = await response.json().catch(() => ({ message: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(answer.message || `${response.status}`);
  return answer;
}

/// A value for the side to move as text: pawns, or `#N` for a certain king capture.
function valueText(score) {
  if (Math.abs(score) >= 99000) {
    const plies = Math.round(100000 - Math.abs(score));
    return `${score > 0 ? "+" : "-"}#${plies}`;
  }
  return `${score >= 0 ? "+" : ""}${(score / 100).toFixed(2)}`;
}

/// Builds the coach's panels once (the first game state may come before this script's own
/// DOMContentLoaded handler runs).
function coachElements() {
  if ($("coach")) return;
  const style = document.createElement("style");
  style.textContent = `
    #eval-bar { position: relative; height: 18px; margin: 6px 0; background: #333; border-radius: 3px; overflow: hidden; }
    #eval-bar .fill { position: absolute; left: 0; top: 0; bottom: 0; background: #f4f1ea; transition: width 0.3s; }
    #eval-bar .label { position: absolute; top: 0; left: 50%; transform: translateX(-50%); max-width: 100%; padding: 0 6px;
      overflow: hidden; white-space: nowrap; text-overflow: ellipsis; font-size: 12px; line-height: 18px;
      color: #fff; background: #222; /* its own ground: readable over either side's part of the bar */ }
    #board .sq.hint-from, #board .sq.hint-to { box-shadow: inset 0 0 0 4px #2f9e44; }
    #coach .judgement-blunder { color: #c92a2a; font-weight: bold; }
    #coach .judgement-mistake { color: #e8590c; font-weight: bold; }
    #coach .judgement-inaccuracy { color: #e0a800; font-weight: bold; }
    #move-list .mv.reviewed { outline: 2px solid #e8590c; }
    #review-board .played { box-shadow: inset 0 0 0 3px #c92a2a; }
    #review-board .best { box-shadow: inset 0 0 0 3px #2f9e44; }
    #review-board div { font-size: 18px; text-align: center; line-height: 1; }
    #review-board .white-piece { color: #fff; text-shadow: 0 0 1px #000, 0 0 1px #000, 0 0 1px #000; }
    #review-board .black-piece { color: #000; }
  `;
  document.head.appendChild(style);
  const bar = document.createElement("div");
  bar.id = "eval-bar";
  bar.dataset.testid = "eval-bar";
  bar.innerHTML = `<div class="fill" style="width: 50%"></div><span class="label" id="eval-label" data-testid="eval-label">…</span>`;
  $("board-wrap").insertAdjacentElement("afterend", bar);
  const panel = document.createElement("section");
  panel.id = "coach";
  panel.dataset.testid = "coach";
  panel.innerHTML = `
    <h2>Coach</h2>
    <div id="coach-rule" data-testid="coach-rule"></div>
    <div class="buttons">
      <button id="hint" data-testid="hint" data-title="The best move here, marked on the board">Hint</button>
      <button id="best-line" data-testid="best-line" data-title="The expected line and the best moves' values">Best line</button>
      <button id="review" data-testid="review" data-title="Judge every move played so far">Review</button>
    </div>
    <div id="hint-text" data-testid="hint-text"></div>
    <div id="review-box" data-testid="review-box" hidden>
      <div id="review-summary" data-testid="review-summary"></div>
      <div class="buttons">
        <button id="review-prev" data-testid="review-prev">◀ Previous</button>
        <span id="review-position" data-testid="review-position"></span>
        <button id="review-next" data-testid="review-next">Next ▶</button>
      </div>
      <div id="review-step" data-testid="review-step"></div>
      <div id="review-board" class="mini" data-testid="review-board"></div>
    </div>`;
  // Above the hover panel, which grows and shrinks as the mouse crosses the board.
  $("info").insertAdjacentElement("beforebegin", panel);
  $("hint").addEventListener("click", () => showHint(false));
  $("best-line").addEventListener("click", () => showHint(true));
  $("review").addEventListener("click", startReview);
  $("review-prev").addEventListener("click", () => reviewStep(coach.step - 1));
  $("review-next").addEventListener("click", () => reviewStep(coach.step + 1));
}

/// A new game state: the bar is evaluated again, the hint and review are dropped.
async function onState(state) {
  coachElements();
  coach.token += 1;
  const token = coach.token;
  coach.hint = null;
  coach.line = false;
  markHint(null);
  $("hint-text").textContent = "";
  if (coach.review && coach.review.ply !== state.moves.length) closeReview();
  const bar = $("eval-bar");
  bar.dataset.ply = "";
  if (showRule(state)) {
    bar.querySelector(".fill").style.width = "50%";
    $("eval-label").textContent = "no evaluation until the game ends (fair play)";
    return;
  }
  if (state.over) return drawBar(state, null);
  // A move waiting for its provider's job: the position is not known yet.
  if (state.waiting) return ($("eval-label").textContent = "waiting for the move's outcome");
  $("eval-label").textContent = "…";
  try {
    const evaluation = await coachApi(`/api/games/${state.id}/evaluation?${coachLimit()}`);
    if (token === coach.token) drawBar(state, evaluation);
  } catch (error) {
    if (token === coach.token) $("eval-label").textContent = `no evaluation: ${error.message}`;
  }
}

/// Says when the coach helps in this game; while the server keeps it closed (fair play, in a
/// game between two people that is not casual) its buttons are disabled with the reason.
/// Returns whether it is closed.
function showRule(state) {
  const closed = Boolean(state.coach_closed);
  const rule = $("coach-rule");
  const people = state.seated && state.white === "human" && state.black === "human";
  rule.textContent = closed
    ? "Fair play: the coach helps nobody, players or spectators, until this game between two people ends."
    : people && state.casual && !state.over ? "Casual game: the coach helps both players." : "";
  rule.dataset.closed = String(closed);
  for (const id of ["hint", "best-line", "review"]) {
    $(id).disabled = closed;
    $(id).title = closed ? state.coach_closed : $(id).dataset.title;
  }
  return closed;
}

function drawBar(state, evaluation) {
  const bar = $("eval-bar");
  let white = 0.5;
  let label;
  if (evaluation === null) {
    white = { "1-0": 1, "0-1": 0 }[state.result] ?? 0.5;
    label = `${state.result} (game over)`;
  } else {
    white = evaluation.white_expected;
    const side = evaluation.to_move === "white" ? "White" : "Black";
    label = `${valueText(evaluation.score)} for ${side} · White ${Math.round(100 * white)}% · depth ${evaluation.depth}`;
  }
  bar.querySelector(".fill").style.width = `${(100 * white).toFixed(1)}%`;
  bar.dataset.whiteExpected = String(white);
  bar.dataset.score = evaluation ? String(evaluation.score) : "";
  bar.dataset.best = evaluation ? evaluation.best : "";
  bar.dataset.ply = String(state.moves.length);
  bar.title = label;
  $("eval-label").textContent = label;
}

/// Marks the hinted move's squares on the board (none: clears them).
function markHint(squares) {
  for (const cell of document.querySelectorAll("#board .sq")) {
    cell.classList.toggle("hint-from", Boolean(squares) && squares.from.includes(cell.dataset.square));
    cell.classList.toggle("hint-to", Boolean(squares) && squares.to.includes(cell.dataset.square));
  }
}

async function showHint(line) {
  const game = ui.game;
  if (!game) return;
  if (game.over) return ($("hint-text").textContent = "The game is over.");
  if (game.waiting) return ($("hint-text").textContent = "The last move waits for its outcome.");
  const token = coach.token;
  coach.line = coach.line || line;
  const box = $("hint-text");
  box.dataset.state = "thinking";
  box.textContent = "Thinking…";
  try {
    if (!coach.hint) coach.hint = await coachApi(`/api/games/${game.id}/hint?${coachLimit()}`);
    if (token !== coach.token) return;
    const hint = coach.hint;
    markHint(hint.squares);
    let text = `Hint: ${hint.best} (${valueText(hint.score)})`;
    if (coach.line) {
      const others = hint.moves.map((m) => `${m.move} ${valueText(m.value)}`).join(", ");
      text += ` · best line: ${hint.line.join(" ")} · best moves: ${others}`;
    }
    box.textContent = text;
    box.dataset.state = coach.line ? "line" : "hint";
    box.dataset.best = hint.best;
  } catch (error) {
    box.textContent = `No hint: ${error.message}`;
    box.dataset.state = "error";
  }
}

async function startReview() {
  const game = ui.game;
  if (!game || game.waiting) return;
  const box = $("review-box");
  box.hidden = false;
  box.dataset.state = "thinking";
  $("review-summary").textContent = `Reviewing ${game.moves.length} moves…`;
  $("review-step").textContent = "";
  $("review-board").innerHTML = "";
  const token = coach.token;
  try {
    const review = await coachApi(`/api/games/${game.id}/review?${coachLimit()}`);
    if (token !== coach.token) return;
    coach.review = review;
    const count = (color, judgement, plural) => {
      const n = review.moves.filter((m) => m.mover === color && m.judgement === judgement).length;
      return `${n} ${n === 1 ? judgement : plural}`;
    };
    const side = (color) =>
      `${color === "white" ? "White" : "Black"}: ${count(color, "inaccuracy", "inaccuracies")}, ${count(color, "mistake", "mistakes")}, ${count(color, "blunder", "blunders")}`;
    $("review-summary").textContent = `${side("white")} · ${side("black")}`;
    box.dataset.state = "ready";
    box.dataset.marked = String(review.marked.length);
    reviewStep(0);
  } catch (error) {
    $("review-summary").textContent = `No review: ${error.message}`;
    box.dataset.state = "error";
  }
}

function closeReview() {
  coach.review = null;
  coach.step = -1;
  $("review-box").hidden = true;
  for (const item of document.querySelectorAll("#move-list .mv.reviewed")) item.classList.remove("reviewed");
}

/// Shows marked move `index` (clamped): what was played, what it cost, the best instead, and
/// the board before it with both moves' squares marked.
function reviewStep(index) {
  const review = coach.review;
  if (!review) return;
  const marked = review.marked;
  const step = $("review-step");
  const board = $("review-board");
  for (const item of document.querySelectorAll("#move-list .mv.reviewed")) item.classList.remove("reviewed");
  if (marked.length === 0) {
    coach.step = -1;
    $("review-position").textContent = "no marked moves";
    step.textContent = "No inaccuracies, mistakes or blunders.";
    board.innerHTML = "";
    $("review-prev").disabled = true;
    $("review-next").disabled = true;
    return;
  }
  coach.step = Math.max(0, Math.min(index, marked.length - 1));
  const mv = review.moves.find((m) => m.ply === marked[coach.step]);
  $("review-position").textContent = `${coach.step + 1} of ${marked.length}`;
  $("review-prev").disabled = coach.step === 0;
  $("review-next").disabled = coach.step === marked.length - 1;
  const side = mv.mover === "white" ? "White" : "Black";
  const best = mv.best ? ` · best: ${mv.best} (${valueText(mv.best_value)})` : "";
  step.innerHTML = `Ply ${mv.ply} (${side}): <b></b> — <span class="judgement-${mv.judgement}">${mv.judgement}</span>, gave away ${Math.round(100 * mv.loss)}% of the expected score (${valueText(mv.before)} → ${valueText(mv.after)})${best}`;
  step.querySelector("b").textContent = mv.move;
  step.dataset.ply = String(mv.ply);
  step.dataset.judgement = mv.judgement;
  const item = $("move-list").querySelector(`.mv[data-ply="${mv.ply}"]`);
  if (item) {
    item.classList.add("reviewed");
    item.scrollIntoView({ block: "nearest" });
  }
  drawReviewBoard(board, mv);
}

function drawReviewBoard(board, mv) {
  board.innerHTML = "";
  const played = mv.squares ? [...mv.squares.from, ...mv.squares.to] : [];
  const best = mv.best_squares ? [...mv.best_squares.from, ...mv.best_squares.to] : [];
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const file = ui.flipped ? 7 - col : col;
      const rank = ui.flipped ? row : 7 - row;
      const name = squareName(file, rank);
      const { piece, probability } = mv.board[name];
      const cell = document.createElement("div");
      cell.dataset.square = name;
      cell.dataset.piece = piece || "";
      cell.style.background = (file + rank) % 2 === 0 ? "var(--dark)" : "var(--light)";
      if (piece && probability > 1e-9) {
        cell.textContent = glyph(piece);
        cell.style.opacity = String(0.35 + 0.65 * probability);
        cell.classList.add(`${colorOf(piece)}-piece`);
        cell.title = `${name}: ${percent(probability)}`;
      }
      cell.classList.toggle("played", played.includes(name));
      cell.classList.toggle("best", best.includes(name));
      board.appendChild(cell);
    }
  }
}

document.addEventListener("DOMContentLoaded", coachElements);
document.addEventListener("qchess:state", (event) => onState(event.detail));
