// The qchess web board, part 3: seats, live updates and clocks. A game's seat tokens live in
// this browser (localStorage), never in the address bar: a seat link's token (after #) is
// claimed at once for a new one, and the link stops working. Every request about a game
// carries the token of the seat acting; the game's changes arrive as Server-Sent Events (read
// with fetch, so the token travels in a header), resumed after a drop from the last event id.
"use strict";

const SEATS_KEY = "qchess-seats";
const live = { id: null, controller: null, presence: { white: false, black: false }, connected: false, offset: 0 };

/// Every game's seats in this browser: {id: {white, black, watch, host, invite: {side: url}, spectator}}.
function allSeats() {
  try {
    return JSON.parse(localStorage.getItem(SEATS_KEY)) || {};
  } catch {
    return {};
  }
}

function seatsOf(id) {
  return allSeats()[id] || {};
}

function saveSeats(id, seats) {
  const all = allSeats();
  all[id] = { ...seats, at: Date.now() };
  // Keep the 200 most recent games.
  const ids = Object.keys(all).sort((a, b) => (all[b].at || 0) - (all[a].at || 0));
  for (const old of ids.slice(200)) delete all[old];
  localStorage.setItem(SEATS_KEY, JSON.stringify(all));
}

/// The side whose seat this browser holds in game `id` and that acts now: `side` when held,
/// else the side to move when held, else any held player seat.
function actingSide(id, side) {
  const seats = seatsOf(id);
  if (side && seats[side]) return side;
  const game = ui.game && ui.game.id === id ? ui.game : null;
  if (game && seats[game.to_move]) return game.to_move;
  return seats.white ? "white" : seats.black ? "black" : null;
}

/// The token to send about game `id` (acting as `side` when given).
function seatToken(id, side) {
  const seats = seatsOf(id);
  const acting = actingSide(id, side);
  return acting ? seats[acting] : seats.watch || null;
}

/// `headers` with the seat token for `path`, when it is about a game this browser has a seat in.
function withSeat(path, headers, side) {
  const match = /^\/api\/games\/([^/?]+)/.exec(path);
  const token = match ? seatToken(match[1], side) : null;
  if (token) {
    // With an API key, Authorization carries the key.
    if (headers.Authorization) headers["X-Qchess-Seat"] = token;
    else headers.Authorization = `Bearer ${token}`;
  }
  return headers;
}

const holds = (side) => ui.game && Boolean(seatsOf(ui.game.id)[side]);
const isHuman = (side) => ui.game && ui.game[side] === "human";

/// Whether this page may play for the side to move.
function mayMove() {
  const game = ui.game;
  return game && (!game.seated || holds(game.to_move) || (!isHuman(game.to_move) && (holds("white") || holds("black"))));
}

/// Whether this page asks the computer for its moves: it holds a seat, or made a game between
/// computers (spectators' pages only watch).
function mayAskComputer() {
  const game = ui.game;
  if (!game || !game.seated) return true;
  return holds("white") || holds("black") || (!isHuman("white") && !isHuman("black") && seatsOf(game.id).host);
}

/// Keeps a new game's seats: all of them when both people sit at this screen, else this
/// player's seat and the friend's link to share.
function rememberNewSeats(state, mode) {
  const seats = { host: true, spectator: state.spectator ? state.spectator.url : null, invite: {} };
  if (state.spectator) seats.watch = state.spectator.token;
  for (const [side, seat] of Object.entries(state.seats || {})) {
    if (mode === "here" || mode === side) seats[side] = seat.token;
    else seats.invite[side] = seat.url;
  }
  saveSeats(state.id, seats);
}

/// A seat or spectator link opened (`#seat=` / `#watch=` after `?game=ID`): the seat is claimed
/// for this browser, and the token leaves the address bar.
async function takeLink(id) {
  const hash = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, "", `${location.pathname}?game=${encodeURIComponent(id)}`);
  const seats = seatsOf(id);
  if (hash.has("watch")) {
    saveSeats(id, { ...seats, watch: hash.get("watch") });
    return;
  }
  if (!hash.has("seat")) return;
  const headers = { Accept: "application/json" };
  const key = localStorage.getItem("qchess-api-key");
  if (key) {
    headers.Authorization = `apiKey ${key}`;
    headers["X-Qchess-Seat"] = hash.get("seat");
  } else {
    headers.Authorization = `Bearer ${hash.get("seat")}`;
  }
  const response = await fetch(`/api/games/${encodeURIComponent(id)}/seats/claim`, { method: "POST", headers });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    status(`This seat link cannot be used: ${answer.message || response.status}. It works once, in the first browser that opens it.`);
    return;
  }
  saveSeats(id, { ...seats, [answer.seat]: answer.token });
  status(`You play ${answer.seat}.`, true);
}

// ---- live updates ----

function stopFollowing() {
  if (live.controller) live.controller.abort();
  live.controller = null;
  live.id = null;
  live.connected = false;
}

/// Follows game `id`'s events until another game is opened; reconnects after a drop, resuming
/// after the last event seen.
async function follow(id) {
  stopFollowing();
  const controller = new AbortController();
  live.controller = controller;
  live.id = id;
  let last = ui.game && ui.game.id === id ? ui.game.revision : null;
  while (!controller.signal.aborted) {
    let retry = 1000;
    try {
      const headers = { Accept: "text/event-stream" };
      const key = localStorage.getItem("qchess-api-key");
      if (key) headers.Authorization = `apiKey ${key}`;
      withSeat(`/api/games/${id}`, headers);
      if (last !== null && last !== undefined) headers["Last-Event-ID"] = String(last);
      const response = await fetch(`/api/games/${encodeURIComponent(id)}/events`, { headers, signal: controller.signal });
      if (!response.ok) {
        // Refused (no longer a seat, or deleted): stop; anything else: try again later.
        if ([401, 403, 404].includes(response.status)) return setLive(false);
        throw new Error(`${response.status}`);
      }
      setLive(true);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const event = parseEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (event.id !== null) last = Number(event.id);
          if (event.retry) retry = event.retry;
          if (await onEvent(id, event)) return setLive(false);
        }
      }
    } catch {
      if (controller.signal.aborted) return;
    }
    setLive(false);
    await new Promise((resolve) => setTimeout(resolve, retry));
  }
}

function parseEvent(block) {
  const event = { id: null, name: "message", data: "", retry: null };
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") event.id = value;
    else if (field === "event") event.name = value;
    else if (field === "data") event.data += (event.data ? "\n" : "") + value;
    else if (field === "retry") event.retry = Number(value);
  }
  return event;
}

/// One event of game `id`; true when the stream must stop.
async function onEvent(id, event) {
  if (live.id !== id) return true;
  if (event.name === "presence") {
    live.presence = JSON.parse(event.data);
    renderSeats();
  } else if (event.name === "state") {
    const state = JSON.parse(event.data);
    // The page's own change may have shown this revision already.
    if (!ui.game || ui.game.id !== id || state.revision > ui.game.revision) await show(state);
  } else if (event.name === "gone" || event.name === "refused") {
    status(event.data);
    return true;
  }
  return false;
}

function setLive(connected) {
  live.connected = connected;
  const badge = $("live");
  if (badge) {
    badge.textContent = connected ? "live" : "reconnecting…";
    badge.dataset.connected = String(connected);
  }
}

// ---- seats, offers and clocks on the page ----

/// Notes what a state says of the server's clock, for counting clocks down.
function noteServerTime(state) {
  if (typeof state.server_time === "number") live.offset = state.server_time - Date.now();
}

/// Sends a change as this page's seat (`side` when given); answers the state, or null after
/// saying why not.
async function act(path, body, side) {
  const game = ui.game;
  ui.token += 1;
  try {
    return await api("POST", `/api/games/${game.id}/${path}`, body, side);
  } catch (error) {
    status(error.message);
    return null;
  }
}

/// Takes `plies` back: at once against the computer; asked of a friend; at one screen, asked and
/// answered by the other seat.
async function requestTakeback(plies, mover) {
  const game = ui.game;
  const state = await act("undo", { plies }, actingSide(game.id, mover));
  if (!state) return;
  const request = (state.offers || []).find((o) => o.kind === "takeback");
  if (!request) {
    status(`Took back ${plies} move${plies > 1 ? "s" : ""}.`, true);
    return show(state);
  }
  const other = request.by === "white" ? "black" : "white";
  if (holds(other)) {
    const accepted = await act("takeback", { action: "accept" }, other);
    if (accepted) {
      status(`Took back ${plies} move${plies > 1 ? "s" : ""}.`, true);
      return show(accepted);
    }
    return;
  }
  status("Takeback asked; waiting for your opponent.", true);
  await show(state);
}

async function answerOffer(kind, accept) {
  const offer = ui.game.offers.find((o) => o.kind === kind);
  const side = offer.by === "white" ? "black" : "white";
  const state = await act(kind, { action: accept ? "accept" : "decline" }, side);
  if (state) {
    status(`${kind === "draw" ? "Draw" : "Takeback"} ${accept ? "accepted" : "declined"}.`, true);
    await show(state);
  }
}

async function offerDraw() {
  const state = await act("draw", {}, actingSide(ui.game.id));
  if (state) {
    status(state.over ? "Draw agreed." : "Draw offered.", true);
    await show(state);
  }
}

async function resign() {
  const side = actingSide(ui.game.id);
  const state = await act("resign", {}, side);
  if (state) {
    status(`${side === "black" ? "Black" : "White"} resigned.`, true);
    await show(state);
  }
}

async function claimTime() {
  const state = await act("flag", {}, actingSide(ui.game.id));
  if (state) await show(state);
}

/// Milliseconds left on `side`'s clock now, by the server's clock.
function clockLeft(clock, side) {
  const stored = clock[`${side}_ms`];
  if (clock.running !== side) return stored;
  const now = Date.now() + live.offset;
  return Math.max(0, clock.deadline - now);
}

function clockText(ms) {
  const seconds = ms / 1000;
  if (seconds < 10) return seconds.toFixed(1);
  const whole = Math.floor(seconds);
  const minutes = Math.floor(whole / 60);
  const hours = Math.floor(minutes / 60);
  const mm = hours ? String(minutes % 60).padStart(2, "0") : String(minutes);
  return `${hours ? `${hours}:` : ""}${mm}:${String(whole % 60).padStart(2, "0")}`;
}

function renderClocks() {
  const game = ui.game;
  const box = $("clocks");
  if (!game || !game.clock) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  let flagged = false;
  for (const side of ["white", "black"]) {
    const left = clockLeft(game.clock, side);
    const cell = $(`clock-${side}`);
    cell.querySelector(".time").textContent = clockText(left);
    cell.dataset.ms = String(Math.round(left));
    cell.classList.toggle("running", game.clock.running === side);
    cell.classList.toggle("low", left < 10_000);
    if (game.clock.running === side && left <= 0) flagged = true;
  }
  $("claim-time").hidden = !(flagged && !game.over && (holds("white") || holds("black")));
}

/// Seats, presence, offers and the share links.
function renderSeats() {
  const game = ui.game;
  if (!game) return;
  const seats = seatsOf(game.id);
  for (const side of ["white", "black"]) {
    const player = game.players ? game.players[side] : null;
    const online = live.presence[side] || (player && player.online);
    const joined = player && player.joined;
    const text = game[side] !== "human" ? game[side] : holds(side) ? "you" : online ? "online" : joined ? "offline" : "not joined yet";
    const cell = $(`presence-${side}`);
    cell.textContent = `${side === "white" ? "White" : "Black"}: ${text}`;
    cell.dataset.online = String(Boolean(online));
  }
  const mine = ["white", "black"].filter(holds);
  $("seat").textContent = mine.length === 2 ? "You play both sides here." : mine.length === 1 ? `You play ${mine[0]}.` : seats.watch || !game.seated ? "You watch." : "You watch this public game.";
  // The links and offers are drawn again only when they change, so their buttons stay put.
  const share = $("share");
  const invites = Object.entries(seats.invite || {});
  const shared = JSON.stringify([game.id, invites, seats.spectator]);
  if (share.dataset.shown !== shared) {
    share.dataset.shown = shared;
    share.hidden = invites.length === 0 && !seats.spectator;
    share.querySelector("[data-testid=share-links]").innerHTML = "";
    for (const [side, url] of invites) addLink(share, `Send ${side}'s seat to your friend (it works once):`, url, `share-${side}`);
    if (seats.spectator) addLink(share, "Spectators:", seats.spectator, "share-spectator");
  }
  const offers = $("offers");
  const listed = JSON.stringify([game.id, game.offers, mine]);
  if (offers.dataset.listed === listed) return setButtons(game, mine);
  offers.dataset.listed = listed;
  offers.innerHTML = "";
  for (const offer of game.offers || []) {
    const theirs = !holds(offer.by);
    const answerer = offer.by === "white" ? "black" : "white";
    const line = document.createElement("div");
    line.dataset.offer = offer.kind;
    const what = offer.kind === "draw" ? "offers a draw" : `asks to take back ${offer.plies} move${offer.plies > 1 ? "s" : ""}`;
    line.textContent = `${offer.by === "white" ? "White" : "Black"} ${what}${theirs && holds(answerer) ? "." : " (waiting for the answer)."}`;
    if (theirs && holds(answerer)) {
      for (const [label, yes] of [["Accept", true], ["Decline", false]]) {
        const button = document.createElement("button");
        button.textContent = label;
        button.dataset.testid = `${yes ? "accept" : "decline"}-${offer.kind}`;
        button.addEventListener("click", () => answerOffer(offer.kind, yes));
        line.appendChild(button);
      }
    }
    offers.appendChild(line);
  }
  setButtons(game, mine);
}

function setButtons(game, mine) {
  const playing = mine.length > 0 && !game.over;
  $("offer-draw").disabled = !playing || !(isHuman("white") && isHuman("black"));
  $("resign").disabled = !playing;
}

function addLink(share, label, url, testid) {
  const row = document.createElement("div");
  row.className = "link";
  row.innerHTML = `<span></span> <input readonly> <button>Copy</button>`;
  row.querySelector("span").textContent = label;
  const input = row.querySelector("input");
  input.value = url;
  input.dataset.testid = testid;
  row.querySelector("button").addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(url);
      status("Link copied.", true);
    } catch {
      status("Select the link and copy it.", true);
    }
  });
  share.querySelector("[data-testid=share-links]").appendChild(row);
}

setInterval(() => {
  if (ui.game && ui.game.clock) renderClocks();
}, 100);

// A browser opens at most six connections to one server: a page that is left or hidden lets
// its stream go (and takes it up again, from its last event, when shown).
window.addEventListener("pagehide", stopFollowing);
document.addEventListener("visibilitychange", () => {
  if (document.hidden) stopFollowing();
  else if (ui.game && live.id !== ui.game.id) follow(ui.game.id);
});
