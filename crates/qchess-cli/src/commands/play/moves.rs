//! The session's moves: the computer's (thought about on an exact copy when the backend is
//! remote) and everyone's, played and stored, a move left waiting ending the session.

use std::io::Write;

use anyhow::Result;
use qchess_core::Color;
use qchess_core::text::with_causes;
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{Game, PlayedMove};
use qchess_search::player::Player as Computer;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

use super::super::clock::clock_comment;
use super::super::stored::PlayError;
use super::Session;

/// The seed of a computer's choice at a ply: the game's seed, apart from the board's draws,
/// so a resumed game chooses as the uninterrupted one would.
fn computer_seed(seed: u64, color: Color, ply: u32) -> u64 {
    seed ^ 0x9e37_79b9_7f4a_7c15 ^ u64::from(color == Color::Black) ^ u64::from(ply) << 32
}

impl<W: Write> Session<W> {
    /// The computer's move for the side to move, played and stored.
    pub(super) fn computer_move(&mut self) -> Result<PlayedMove> {
        let side = self.game.turn();
        let index = usize::from(side == Color::Black);
        let spec = self.players[index].clone();
        let mut fresh;
        let computer = match &mut self.computers[index] {
            Some(kept) => kept,
            None => {
                let seed = computer_seed(self.game.options().seed, side, self.game.ply());
                fresh = Computer::new(&spec, seed).map_err(|e| anyhow::anyhow!("{spec}: {}", with_causes(&e)))?;
                &mut fresh
            }
        };
        let failed =
            |e: qchess_search::player::PlayerError| anyhow::anyhow!("the computer's move: {}", with_causes(&e));
        let movetime = self.movetime.unwrap_or_else(|| spec.think_time());
        if !self.stored.is_remote() {
            let played = computer.play(&mut self.game, movetime).map_err(failed)?;
            let comment = self.charge(played.mover.color);
            self.stored.record_played(&self.game, &played, comment)?;
            return Ok(played);
        }
        // On a remote backend the computer thinks on an exact copy; its move is then played
        // (and waited for) like a person's.
        let mut copy = exact_copy(&self.game)?;
        let chosen = computer.play(&mut copy, movetime).map_err(failed)?;
        let input = qchess_store::replay::chosen_input(&chosen);
        match self.play_stored(&input)? {
            Some(played) => Ok(played),
            None => Err(anyhow::anyhow!("the computer's move {input} is not a move")),
        }
    }

    /// Plays `input` and stores it; a move left waiting ends the session (exit 1) after saying
    /// how to come back; a game error is returned as is.
    pub(super) fn play_stored(&mut self, input: &str) -> Result<Option<PlayedMove>> {
        let mover = self.game.turn();
        match self.stored.play(&mut self.game, input, None) {
            Ok((_, played)) => {
                if played.is_some()
                    && let Some(comment) = self.charge(mover)
                {
                    self.stored.comment_last(&comment)?;
                }
                Ok(played)
            }
            Err(PlayError::Game(error)) => Err(anyhow::Error::new(error)),
            Err(PlayError::Waiting(why)) => Err(self.left_waiting(&why)),
            Err(PlayError::Store(error)) => Err(error),
        }
    }

    /// Charges the clock for `mover`'s move; its comment for the record.
    fn charge(&mut self, mover: Color) -> Option<String> {
        let clock = self.clock.as_mut()?;
        clock.charge(mover);
        clock.after_each_ply.last().map(|remaining| clock_comment(*remaining))
    }
}

/// The game replayed on the exact local board, for a computer to think on without submitting jobs.
fn exact_copy(game: &Game) -> Result<Game> {
    let record = GameRecord::from_game(game, &RecordInfo::default());
    let options = game.options();
    let local = LocalBoardOptions { seed: options.seed, ..LocalBoardOptions::default() };
    record.replay_on(LocalBoard::with_options(qchess_core::Bitboard::EMPTY, local), options).map_err(|e| {
        anyhow::anyhow!("the computer cannot think about this position on the exact simulator: {}", with_causes(&e))
    })
}
