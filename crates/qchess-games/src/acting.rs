//! Seats and turns on [`Games`]: claiming a seat link, resigning, draw offers, takebacks (the
//! old undo), claiming a win on time, and the referee's flag falls.

use qchess_core::Color;
use serde_json::{Value, json};

use crate::error::{GamesError, store_error};
use crate::seats::{Caller, Role, Want, is_human, new_token, token_hash};
use crate::service::{Admitted, Answer, Games};
use crate::session::{Session, now_ms};
use crate::turns::{OfferKind, Reply, Takeback};

/// What a draw offer or takeback request was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferAction {
    /// Make the offer.
    Offer,
    /// Answer the opponent's.
    Answer(Reply),
}

impl Games {
    /// The side `admitted`'s caller acts for: its seat's, else (a game without seats) the one
    /// asked for, else `default`.
    fn acting_side(admitted: &Admitted, asked: Option<Color>, default: Color) -> Result<Color, GamesError> {
        let summary = &admitted.summary;
        match admitted.role.and_then(Role::side) {
            Some(side) if asked.is_none_or(|asked| asked == side) => Ok(side),
            Some(side) => Err(GamesError::Forbidden(format!(
                "this is {side}'s seat in game {}; it acts for {side} only",
                summary.id
            ))),
            None => Ok(asked.unwrap_or(default)),
        }
    }

    /// Runs a turn's `work` for the side `admitted`'s caller acts for, and answers the state.
    async fn on_turn(
        &self,
        admitted: &Admitted,
        work: impl FnOnce(&mut Session, i64) -> Result<Value, GamesError> + Send + Clone + 'static,
    ) -> Result<Value, GamesError> {
        let summary = &admitted.summary;
        if summary.pending.is_some() {
            return Err(self.waiting_conflict(summary).await);
        }
        let revision = summary.revision;
        let state = self.on_session(&summary.id, move |session| work(session, revision)).await?;
        Ok(self.answer(self.with_pending(state, None), admitted))
    }

    /// `caller` resigns game `id` (for `side`, in a game without seats).
    pub async fn resign(&self, id: &str, caller: &Caller, side: Option<Color>) -> Result<Value, GamesError> {
        let admitted = self.admit(id, caller, |_| Want::ActAny).await?;
        let default = turn_of(&admitted);
        let side = Games::acting_side(&admitted, side, default)?;
        if admitted.summary.seated && !is_human(&admitted.summary, side) {
            return Err(GamesError::Invalid(format!("{side} is played by the computer, which does not resign")));
        }
        self.on_turn(&admitted, move |session, revision| session.resign(side, revision)).await
    }

    /// `caller` offers, accepts or declines a draw in game `id`.
    pub async fn draw(
        &self,
        id: &str,
        caller: &Caller,
        action: OfferAction,
        side: Option<Color>,
    ) -> Result<Value, GamesError> {
        let admitted = self.admit(id, caller, |_| Want::ActAny).await?;
        let side = Games::acting_side(&admitted, side, turn_of(&admitted))?;
        self.on_turn(&admitted, move |session, revision| match action {
            OfferAction::Offer => session.offer_draw(side, revision),
            OfferAction::Answer(reply) => session.answer(OfferKind::Draw, side, reply, revision),
        })
        .await
    }

    /// `caller` asks to take back `plies` moves of game `id` (done at once, or pending while the
    /// opponent is asked), or answers the opponent's request.
    pub async fn takeback(
        &self,
        id: &str,
        caller: &Caller,
        action: OfferAction,
        plies: Option<usize>,
        side: Option<Color>,
    ) -> Result<Answer, GamesError> {
        let admitted = self.admit(id, caller, |_| Want::ActAny).await?;
        // Without a seat, the request is for the side that moved last.
        let side = Games::acting_side(&admitted, side, !turn_of(&admitted))?;
        let summary = &admitted.summary;
        if summary.pending.is_some() {
            return Err(self.waiting_conflict(summary).await);
        }
        let revision = summary.revision;
        let answer = match action {
            OfferAction::Offer => {
                match self.on_session(id, move |session| session.takeback(side, plies, revision)).await? {
                    Takeback::Done(state) => Answer::Done(state),
                    Takeback::Asked(state) => Answer::Pending(state),
                }
            }
            OfferAction::Answer(reply) => Answer::Done(
                self.on_session(id, move |session| session.answer(OfferKind::Takeback, side, reply, revision)).await?,
            ),
        };
        Ok(answer.map(|state| self.answer(self.with_pending(state, None), &admitted)))
    }

    /// `caller` claims a win on time in game `id`: the opponent's clock must have run out.
    pub async fn claim_time(&self, id: &str, caller: &Caller, side: Option<Color>) -> Result<Value, GamesError> {
        let admitted = self.admit(id, caller, |_| Want::ActAny).await?;
        let side = Games::acting_side(&admitted, side, !turn_of(&admitted))?;
        self.on_turn(&admitted, move |session, revision| session.claim_time(side, revision)).await
    }

    /// Opens a player's seat link: its token is replaced by a new one, returned for the
    /// browser to keep, and the link stops working.
    pub async fn claim_seat(&self, id: &str, caller: &Caller) -> Result<Value, GamesError> {
        let admitted = self.admit(id, caller, |_| Want::Watch).await?;
        let Some(role) = admitted.role else {
            return Err(GamesError::NoSeat(format!(
                "claiming a seat of game {id} needs the seat's token (from its link)"
            )));
        };
        if role == Role::Spectator {
            return Err(GamesError::Invalid(
                "a spectator link is not claimed: it stays the same for everyone it is shared with; watch with it"
                    .to_owned(),
            ));
        }
        let old = admitted.seats.iter().find(|seat| seat.role == role.name()).map(|seat| seat.token_hash.clone());
        let token = new_token()?;
        self.limits.change(&format!("{id}/{}", role.name()), caller.address)?;
        let claimed = match old {
            Some(old) => {
                self.store().claim_seat(id, role.name(), &old, &token_hash(&token)).await.map_err(store_error)?
            }
            None => false,
        };
        if !claimed {
            return Err(GamesError::Conflict {
                message: format!("{}'s seat of game {id} was claimed meanwhile by another browser", role.name()),
                state: None,
            });
        }
        Ok(json!({ "id": id, "seat": role.name(), "token": token }))
    }

    /// The referee: ends game `id` on time if its running clock ran out; the state after, if it
    /// did.
    pub(crate) async fn flag_due(&self, id: &str) -> Result<Option<Value>, GamesError> {
        let flagged = self
            .on_session(id, |session| {
                session.refresh()?;
                session.flag_if_due(now_ms())
            })
            .await?;
        if let Some(state) = &flagged
            && let Some(revision) = state["revision"].as_i64()
        {
            self.hub().changed(id, revision);
        }
        Ok(flagged)
    }

    /// Loads game `id` here ahead of a flag fall, so that deciding it takes no rebuild.
    pub(crate) async fn warm(&self, id: &str) {
        if self.live.cached(id).is_none() {
            let _ = self.on_session(id, |_| Ok(())).await;
        }
    }

    /// `/undo`, as before seats: a takeback request of `plies` (default 1).
    pub async fn undo(&self, id: &str, caller: &Caller, plies: Option<usize>) -> Result<Answer, GamesError> {
        self.takeback(id, caller, OfferAction::Offer, Some(plies.unwrap_or(1)), None).await
    }
}

/// The side to move (White once the game is over).
fn turn_of(admitted: &Admitted) -> Color {
    if admitted.summary.to_move == "black" { Color::Black } else { Color::White }
}
