//! A Quantum Chess player that searches the exact quantum state.
//!
//! - [`Searcher`]: iterative-deepening negamax with alpha-beta where every move that measures
//!   is an exact chance node (both outcomes, each on its own collapsed state, weighted by its
//!   exact probability, the second searched in the window the first leaves it, and searched
//!   again only when the bounds leave the node undecided); splits and merges at every depth
//!   but the last (one ply shallower below the root); observer-rules pairs at the root;
//!   late-move reductions, futility pruning at the last ply and reverse futility pruning at
//!   the last two; ordering by stored best move, expected capture gain, killers and history;
//!   a transposition table keyed on the classical position plus a hash of the quantum state,
//!   quiescence included; quiescence on captures, losing captures skipped; a state-size
//!   budget; time control ([`SearchLimits`]).
//! - [`score`]: the scale of the search's values: it plays for expected score, so a chance
//!   on the king and a position mix by their probabilities.
//! - [`eval`]: the evaluation, with every weight in [`Weights`]; [`tune`] fits them to game
//!   outcomes.
//! - [`analysis`]: what a position is worth, the best move and line, and each move of a game
//!   judged by the expected score it gave away.
//! - [`branch`]: playing a move with each of its measurement outcomes.
//! - [`matchplay`]: matches between players, with W/D/L, score interval and Elo.
//! - [`player`]: players by name (`random`, `greedy`, `ai:K`, `uqci:COMMAND`).
//! - [`uqci`]: the UQCI engine protocol, and a client for external engines.
//! - [`remote`]: a board behind the quantum board REST API (the `resturl` option).
//!
//! The search works only through the engine's [`Game`](qchess_engine::Game) API.
//!
//! ```
//! use qchess_engine::Game;
//! use qchess_search::{SearchConfig, SearchLimits, Searcher};
//!
//! // White's rook takes the king on e8.
//! let fen = "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1".parse()?;
//! let game = Game::new(&fen, Default::default())?;
//! let mut searcher = Searcher::new(SearchConfig::default());
//! let found = searcher.search(&game, &SearchLimits::depth(2))?;
//! assert_eq!(found.best.to_string(), "e1xe8");
//! assert_eq!(found.plies_to_capture(), Some(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod analysis;
pub mod branch;
pub mod eval;
mod limits;
pub mod matchplay;
mod order;
pub mod player;
pub mod remote;
pub mod score;
mod search;
pub mod table;
pub mod tune;
pub mod uqci;

pub use eval::Weights;
pub use limits::{Clock, MAX_DEPTH, SearchControl, SearchLimits};
pub use search::{CERTAIN_WIN, DEFAULT_SCORE_SCALE, SearchConfig, SearchInfo, Searcher, WIN};
pub use table::position_key;

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The side to move has no legal move.
    #[error("there is no legal move to search")]
    NoLegalMove,
    /// None of the root moves the caller named is legal in the position.
    #[error("none of the moves to search ({moves}) is legal here")]
    NoneOfTheMoves {
        /// The named moves, as written.
        moves: String,
    },
    /// The game could not be replayed onto the search's own board.
    #[error("the game could not be copied for the search")]
    Replay(#[source] Box<qchess_engine::record::ReplayError>),
}
