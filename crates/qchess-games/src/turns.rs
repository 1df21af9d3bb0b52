//! What players do besides moving, on a game's session: a flag fall decided by the server's
//! clock, resigning, draw offers, takeback requests (a takeback is the old undo, now asked of
//! the opponent when the opponent is a person), and a claimed win on time.

use qchess_core::Bitboard;
use qchess_core::Color;
use qchess_engine::EndReason;
use qchess_search::player::PlayerSpec;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use qchess_store::replay::{self, DRAW_AGREED, is_move, resign_input, side_name, standing, time_input};
use qchess_store::{Change, NewEvent, Offer};
use serde_json::Value;

use crate::error::{GamesError, game_error, rebuild_error};
use crate::session::{Session, now_ms};

/// What an offer asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferKind {
    /// A draw.
    Draw,
    /// Taking moves back.
    Takeback,
}

impl OfferKind {
    /// `draw`, `takeback`.
    pub fn name(self) -> &'static str {
        match self {
            OfferKind::Draw => "draw",
            OfferKind::Takeback => "takeback",
        }
    }
}

/// The answer to an offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Yes.
    Accept,
    /// No.
    Decline,
}

/// What became of a takeback request.
#[derive(Debug)]
pub enum Takeback {
    /// Taken back at once (the opponent is the computer, or the game has no seats).
    Done(Value),
    /// Waiting for the opponent.
    Asked(Value),
}

fn bad(message: impl Into<String>) -> GamesError {
    GamesError::Invalid(message.into())
}

impl Session {
    fn is_person(&self, side: Color) -> bool {
        *self.player(side) == PlayerSpec::Human
    }

    /// The offers that still hold.
    pub(crate) fn live_offers(&self) -> impl Iterator<Item = &Offer> {
        let ply = self.game.ply();
        self.offers.iter().filter(move |offer| offer.holds_at(ply))
    }

    fn offer_by(&self, kind: OfferKind, side: Color) -> Option<&Offer> {
        self.live_offers().find(|offer| offer.kind == kind.name() && offer.side == side_name(side))
    }

    /// Ends the game on time when the running clock ran out by `now`: the state after, or
    /// `None` when no clock ran out.
    pub fn flag_if_due(&mut self, now: i64) -> Result<Option<Value>, GamesError> {
        let Some(mut clock) = self.clock.clone() else { return Ok(None) };
        let (Some(side), Some(deadline)) = (clock.running_side(), clock.deadline()) else { return Ok(None) };
        if now < deadline || self.game.is_over() {
            return Ok(None);
        }
        clock.stop(now);
        self.game.concede(side, EndReason::Time).map_err(game_error)?;
        let change = Change {
            events: vec![NewEvent { input: time_input(side), played: time_input(side), comment: None }],
            standing: Some(standing(&self.game, &self.setup)),
            clock: Some(clock),
            offers: Some(Vec::new()),
            keep: None,
        };
        self.commit(change).map(Some)
    }

    /// Refuses a change when the running clock ran out (ending the game on time first).
    pub(crate) fn guard_clock(&mut self) -> Result<(), GamesError> {
        match self.flag_if_due(now_ms())? {
            None => Ok(()),
            Some(state) => {
                let loser = self.game.turn();
                Err(GamesError::conflict(format!("{loser}'s time ran out; the game is over"), state))
            }
        }
    }

    /// `side` claims a win on time: the opponent's clock must have run out.
    pub fn claim_time(&mut self, side: Color, revision: i64) -> Result<Value, GamesError> {
        self.check_revision(revision)?;
        if let Some(state) = self.flag_if_due(now_ms())? {
            return Ok(state);
        }
        let opponent = !side;
        let Some(clock) = &self.clock else { return Err(bad(format!("game {} has no clocks", self.id))) };
        if self.game.is_over() {
            return Err(bad(format!("game {} is over", self.id)));
        }
        let left = clock.left_at(opponent, now_ms());
        Err(bad(format!("{opponent} still has {:.1} s on the clock; no win on time yet", left as f64 / 1000.0)))
    }

    /// `side` resigns.
    pub fn resign(&mut self, side: Color, revision: i64) -> Result<Value, GamesError> {
        self.check_revision(revision)?;
        self.guard_clock()?;
        self.game.concede(side, EndReason::Resignation).map_err(game_error)?;
        self.commit_end(resign_input(side))
    }

    /// Stores the event that just ended the game otherwise than by a move: clocks stopped,
    /// offers gone.
    fn commit_end(&mut self, input: String) -> Result<Value, GamesError> {
        let clock = self.clock.clone().map(|mut clock| {
            clock.stop(now_ms());
            clock
        });
        let change = Change {
            events: vec![NewEvent { input: input.clone(), played: input, comment: None }],
            standing: Some(standing(&self.game, &self.setup)),
            clock,
            offers: Some(Vec::new()),
            keep: None,
        };
        self.commit(change)
    }

    /// `side` offers a draw (accepting the opponent's offer when there is one).
    pub fn offer_draw(&mut self, side: Color, revision: i64) -> Result<Value, GamesError> {
        self.check_revision(revision)?;
        self.guard_clock()?;
        if self.game.is_over() {
            return Err(bad(format!("game {} is over", self.id)));
        }
        if !self.is_person(!side) {
            return Err(bad(format!("{} is played by the computer, which does not take draw offers", !side)));
        }
        if self.offer_by(OfferKind::Draw, !side).is_some() {
            return self.answer(OfferKind::Draw, side, Reply::Accept, revision);
        }
        // Offered on one's own turn, it holds through the opponent's; else until the opponent moves.
        let ply = self.game.ply();
        let until_ply = if self.game.turn() == side { ply + 1 } else { ply };
        self.store_offer(OfferKind::Draw, side, 0, until_ply)
    }

    fn store_offer(&mut self, kind: OfferKind, side: Color, plies: u32, until_ply: u32) -> Result<Value, GamesError> {
        let mut offers: Vec<Offer> = self
            .live_offers()
            .filter(|offer| offer.kind != kind.name() || offer.side != side_name(side))
            .cloned()
            .collect();
        offers.push(Offer {
            kind: kind.name().to_owned(),
            side: side_name(side).to_owned(),
            plies,
            ply: self.game.ply(),
            until_ply,
            made_at: now_ms(),
        });
        self.commit(Change { offers: Some(offers), ..Change::default() })
    }

    /// `side` answers the opponent's offer of `kind`.
    pub fn answer(&mut self, kind: OfferKind, side: Color, answer: Reply, revision: i64) -> Result<Value, GamesError> {
        self.check_revision(revision)?;
        self.guard_clock()?;
        let Some(offer) = self.offer_by(kind, !side).cloned() else {
            return Err(bad(format!("{} has no {} offer standing for {side} to answer", !side, kind.name())));
        };
        let rest: Vec<Offer> = self.live_offers().filter(|o| **o != offer).cloned().collect();
        match (answer, kind) {
            (Reply::Decline, _) => self.commit(Change { offers: Some(rest), ..Change::default() }),
            (Reply::Accept, OfferKind::Draw) => {
                self.game.agree_draw().map_err(game_error)?;
                self.commit_end(DRAW_AGREED.to_owned())
            }
            (Reply::Accept, OfferKind::Takeback) => self.take_back(offer.plies as usize),
        }
    }

    /// `side` asks to take back `plies` moves (by default back to `side`'s last move): done at
    /// once when the opponent is the computer or the game has no seats, else asked of the
    /// opponent.
    pub fn takeback(&mut self, side: Color, plies: Option<usize>, revision: i64) -> Result<Takeback, GamesError> {
        self.check_revision(revision)?;
        self.guard_clock()?;
        let default = if self.game.turn() == side && !self.game.is_over() { 2 } else { 1 };
        let plies = plies.unwrap_or(default);
        self.undoable(plies)?;
        if !self.seated || !self.is_person(!side) {
            return self.take_back(plies).map(Takeback::Done);
        }
        let until_ply = self.game.ply();
        self.store_offer(OfferKind::Takeback, side, plies as u32, until_ply).map(Takeback::Asked)
    }

    /// How many events to keep to take back `plies` moves, if they can be.
    fn undoable(&self, plies: usize) -> Result<usize, GamesError> {
        let events = self.context.block(self.context.store.game(&self.id))?.events;
        if let Some(last) = events.last().filter(|event| !is_move(&event.input) && self.game.is_over()) {
            return Err(bad(format!("game {} ended with {}; a game ended so is not taken back", self.id, last.input)));
        }
        let available = self.game.moves().len();
        let setup_moves = available - events.iter().filter(|e| is_move(&e.input)).count().min(available);
        let undoable = available - setup_moves;
        if plies == 0 || plies > available {
            return Err(bad(format!("plies: cannot take back {plies} moves; {available} have been played")));
        }
        if plies > undoable {
            return Err(bad(format!(
                "plies: only {undoable} moves were played here; the {setup_moves} of the loaded record stay"
            )));
        }
        let mut keep = events.len();
        let mut taken = 0;
        while taken < plies {
            keep -= 1;
            if is_move(&events[keep].input) {
                taken += 1;
            }
        }
        Ok(keep)
    }

    /// Takes back `plies` moves (a mode change after the last kept move goes with them): the
    /// clock of the side then to move runs from now (time used is not given back), offers go.
    fn take_back(&mut self, plies: usize) -> Result<Value, GamesError> {
        let keep = self.undoable(plies)?;
        let mut kept = self.context.block(self.context.store.game(&self.id))?;
        kept.events.truncate(keep);
        let local = LocalBoardOptions { seed: self.game.options().seed, ..LocalBoardOptions::default() };
        let rebuilt =
            replay::rebuild(&kept, LocalBoard::with_options(Bitboard::EMPTY, local)).map_err(rebuild_error)?;
        let moved_here = kept.events.iter().any(|event| is_move(&event.input));
        let clock = self.clock.clone().map(|mut clock| {
            let running = (moved_here && !rebuilt.is_over()).then(|| rebuilt.turn());
            clock.restart(running, now_ms());
            clock
        });
        let change = Change {
            keep: Some(keep as u32),
            standing: Some(standing(&rebuilt, &self.setup)),
            clock,
            offers: Some(Vec::new()),
            events: Vec::new(),
        };
        // On a lost race `commit` rebuilt the game already.
        self.commit(change)?;
        self.reload()?;
        Ok(self.state())
    }
}
