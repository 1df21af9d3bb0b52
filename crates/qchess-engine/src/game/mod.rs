//! A game of Quantum Chess: the classical tracker on top of any [`QuantumBoard`].
//!
//! [`Game::play`] parses a move in official notation, checks and classifies it with the rules
//! ([`Position`]), runs the typed move on the quantum board, and feeds the result back into the
//! tracker (see [`tracker`](crate::tracker) for exactly what changes). Then it checks how the game
//! stands:
//!
//! - A side has a king while some square labelled with its king has probability above 0. When
//!   one side has none, the other wins (`1-0` / `0-1`, code `WHITE_WIN` / `BLACK_WIN`); when
//!   neither has, the game is drawn (`1/2-1/2`, code `MUTUAL_WIN`).
//! - **Fifty-move rule**: when the counter reaches 100, every square is measured.
//! - **Threefold repetition**: when the position after a move is fully classical (every square
//!   certainly empty or full) and the same pieces on the same squares, with the same side to
//!   move, castling rights and en-passant square, occurred twice before in this game (after
//!   earlier plies or at the start), every square is measured. Positions with a square in
//!   superposition are never compared: two such positions could differ in their phases.
//! - Measuring every square draws one whole board from the exact distribution with the game's
//!   seeded generator; the drawn board is kept (records store it) so replays are deterministic.
//!   If both kings remain the game is drawn (code `DRAW`); otherwise it is decided as above.
//!
//! A move whose measurement said m0 still uses the turn. Every refused move leaves the game and
//! the board exactly as they were; [`Game::undo`] restores the exact earlier position, quantum
//! state and generator.
//!
//! ```
//! use qchess_engine::{Game, GameOptions, GameResult};
//!
//! let mut game = Game::new(&qchess_core::Fen::start(), GameOptions::default())?;
//! game.play("b1^a3c3")?; // split: the knight is on a3 and c3 with probability 1/2 each
//! game.play("e7e6")?;
//! game.play("a3c3^b5")?; // merge: the halves interfere and the knight is fully on b5
//! assert!((game.probability("b5".parse()?) - 1.0).abs() < 1e-12);
//! assert_eq!(game.result(), GameResult::Ongoing);
//!
//! let err = game.play("b5b6").unwrap_err();
//! assert_eq!(err.to_string(), "b5b6: b5 holds a white knight, but it is Black's turn");
//! game.undo()?;
//! assert!((game.probability("a3".parse()?) - 0.5).abs() < 1e-12);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod end;
mod mode;
mod play;
mod turn;

use std::any::Any;

use qchess_core::{
    AlgebraicMove, Bitboard, BoardError, CastlingRights, Color, Fen, LegalMove, MoveReport, Notation, Piece, Position,
    QuantumBoard, Square, SquareProbabilities, TypedMove,
};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::tracker::Tracker;
use crate::{GameEnd, GameError, GameOptions, GameResult, MoveCode};

pub use mode::{ModeChange, ParseModeError, is_mode_token, mode_token, parse_mode_token};
pub use turn::Turn;
pub(crate) use turn::written_outcome;

/// A quantum board the game can own: any [`QuantumBoard`] that is `'static`, so the game can
/// tell whether it is a [`LocalBoard`].
pub trait GameBoard: QuantumBoard + Any {}

impl<B: QuantumBoard + Any> GameBoard for B {}

/// One move as it was played.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayedMove {
    /// The move in canonical official notation, with the measurement outcome that happened
    /// (`b1wc3.m0`), so it replays exactly.
    pub notation: AlgebraicMove,
    /// The typed move the board ran, with the outcome that happened.
    pub typed: TypedMove,
    /// The piece that moved.
    pub mover: Piece,
    /// What the board reported.
    pub report: MoveReport,
    /// The official result code: `SUCCESS`, or how the move ended the game.
    pub code: MoveCode,
    /// The move as the rules record it, with every outcome: `notation`, or the pair it was
    /// one half of (`e5e8|c2c7.m1`) under the observer rules.
    pub declared: Notation,
    /// What the measurement the rules made before the move reported (an observer collapse:
    /// `outcome` `Some(true)` when the measured square held the piece); `None` when they made
    /// none.
    pub collapse: Option<MoveReport>,
    /// The squares whose piece label or occupancy probability the ply changed (every square
    /// when it ended in a full-board measurement): what a search updates square by square.
    pub changed: Bitboard,
}

/// The state before one ply, kept for undo: the tracker (put back as it was, so nothing is
/// rebuilt), how far the game's generator had gone in its stream, and how many board steps
/// the ply took.
#[derive(Debug, Clone)]
struct Snapshot {
    tracker: Tracker,
    rng_word: u128,
    steps: usize,
}

/// A game of Quantum Chess. See the [module docs](self).
pub struct Game {
    board: Box<dyn GameBoard>,
    options: GameOptions,
    start: Fen,
    tracker: Tracker,
    played: Vec<PlayedMove>,
    snapshots: Vec<Snapshot>,
    rng: ChaCha8Rng,
    /// A full-board measurement to use (instead of drawing one) at the next claim: replays
    /// of records set it.
    pending_measurement: Option<Bitboard>,
    /// The quantum mode changes, in order (see [`mode`]).
    mode_changes: Vec<ModeChange>,
    /// Where each board step's square probabilities are read, kept to reuse its storage.
    read_probabilities: Box<SquareProbabilities>,
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Game")
            .field("options", &self.options)
            .field("start", &self.start.to_string())
            .field("position", &self.tracker.position.to_string())
            .field("plies", &self.played.len())
            .field("end", &self.tracker.end)
            .finish_non_exhaustive()
    }
}

/// The generator of the game's own draws: the seed on a stream of its own, apart from the
/// local board's.
fn game_rng(seed: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(1);
    rng
}

impl Game {
    /// A game from `start` on the exact local board (seeded with `options.seed`).
    pub fn new(start: &Fen, options: GameOptions) -> Result<Game, GameError> {
        let local = LocalBoardOptions { seed: options.seed, ..LocalBoardOptions::default() };
        Game::with_board(start, options, LocalBoard::with_options(start.occupancy(), local))
    }

    /// A game from the standard starting position with the default options.
    pub fn standard() -> Game {
        let position = Position::start();
        Game::assemble(Box::new(LocalBoard::new(Bitboard::START)), GameOptions::default(), Fen::start(), position)
    }

    /// A game from `start` on any quantum board; the board is reset to the start's occupancy.
    /// The game's rule set must allow the start (classical chess needs one king per side, ...).
    pub fn with_board(start: &Fen, options: GameOptions, mut board: impl GameBoard) -> Result<Game, GameError> {
        let position = Position::from_fen(start)?;
        options.rules.rules().check_start(start)?;
        board.init(start.occupancy()).map_err(GameError::Backend)?;
        Ok(Game::assemble(Box::new(board), options, start.clone(), position))
    }

    fn assemble(board: Box<dyn GameBoard>, options: GameOptions, start: Fen, position: Position) -> Game {
        Game {
            board,
            options,
            start,
            tracker: Tracker::start(position),
            // A game's worth of plies, so these rarely grow.
            played: Vec::with_capacity(64),
            snapshots: Vec::with_capacity(64),
            rng: game_rng(options.seed),
            pending_measurement: None,
            mode_changes: Vec::new(),
            read_probabilities: Box::new(SquareProbabilities::exact([0.0; 64])),
        }
    }

    /// The options the game was made with.
    pub fn options(&self) -> GameOptions {
        self.options
    }

    /// The rules the game is played by.
    pub fn rules(&self) -> crate::RuleSet {
        self.options.rules
    }

    /// The position the game started from.
    pub fn start_fen(&self) -> &Fen {
        &self.start
    }

    /// The current classical position: piece kinds, probabilities, turn, rights, counters.
    pub fn position(&self) -> &Position {
        &self.tracker.position
    }

    /// The position before the last move: what [`Game::undo`] puts back (`None` before the
    /// first move). With [`Position::changed_squares`] it tells what the last move changed.
    pub fn previous_position(&self) -> Option<&Position> {
        self.snapshots.last().map(|snapshot| &snapshot.tracker.position)
    }

    /// Every square's occupancy probability (after a full-board measurement, that board's).
    pub fn probabilities(&self) -> &SquareProbabilities {
        self.tracker.position.probabilities()
    }

    /// The occupancy probability of one square.
    pub fn probability(&self, square: Square) -> f64 {
        self.tracker.position.probability(square)
    }

    /// The piece kind that may stand on `square` (`None` when it is certainly empty).
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        self.tracker.position.piece_at(square)
    }

    /// The moves played so far, in order.
    pub fn moves(&self) -> &[PlayedMove] {
        &self.played
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.tracker.position.turn()
    }

    /// Plies played since the start of the game.
    pub fn ply(&self) -> u32 {
        self.tracker.ply
    }

    /// The fifty-move counter (plies since the expected piece count last changed by 1 or more).
    pub fn fifty_move_counter(&self) -> u32 {
        self.tracker.position.halfmove_clock()
    }

    /// The castling rights still held.
    pub fn castling(&self) -> CastlingRights {
        self.tracker.position.castling()
    }

    /// The en-passant square, after a pawn two-step.
    pub fn en_passant(&self) -> Option<Square> {
        self.tracker.position.en_passant()
    }

    /// How the game ended, once it has.
    pub fn end(&self) -> Option<GameEnd> {
        self.tracker.end
    }

    /// The PGN result: `*` while the game goes on.
    pub fn result(&self) -> GameResult {
        self.tracker.end.map_or(GameResult::Ongoing, |end| end.result)
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.tracker.end.is_some()
    }

    /// The board drawn when every square was measured (fifty-move rule or repetition).
    pub fn measured_board(&self) -> Option<Bitboard> {
        self.tracker.measured
    }

    /// With [`measured_board`](Self::measured_board): each king's probability of being present
    /// (white, black) just before the measurement. The claim's result was drawn from those:
    /// whatever the kings' correlation, White's expected score from it was
    /// `(1 + white - black) / 2`.
    pub fn kings_before_measurement(&self) -> Option<[f64; 2]> {
        self.tracker.kings_before_measurement
    }

    /// `side` resigns (or, with `reason` [`EndReason::Time`](crate::EndReason), loses on time):
    /// the other side wins. Refused once the game is over. Undoing the last move takes the
    /// resignation back with it.
    pub fn concede(&mut self, side: Color, reason: crate::EndReason) -> Result<GameEnd, GameError> {
        if let Some(end) = self.tracker.end {
            return Err(GameError::GameOver { result: end.result, reason: end.reason });
        }
        let end = GameEnd::win(!side, reason);
        self.tracker.end = Some(end);
        Ok(end)
    }

    /// Both players agree to a draw. Refused once the game is over; undoing the last move takes
    /// the agreement back with it.
    pub fn agree_draw(&mut self) -> Result<GameEnd, GameError> {
        if let Some(end) = self.tracker.end {
            return Err(GameError::GameOver { result: end.result, reason: end.reason });
        }
        let end = GameEnd::draw(crate::EndReason::Agreement);
        self.tracker.end = Some(end);
        Ok(end)
    }

    /// Whether `color` still has a king (a square labelled with its king may be occupied).
    pub fn has_king(&self, color: Color) -> bool {
        self.tracker.has_king(color)
    }

    /// The legal moves of the side to move, by the game's rules, that are one typed move each.
    pub fn legal_moves(&self) -> Vec<LegalMove> {
        self.options.rules.rules().legal_moves(self)
    }

    /// The legal moves that capture ([`Game::legal_moves`] of the capture variant), for
    /// searches that look at captures only.
    pub fn legal_captures(&self) -> Vec<LegalMove> {
        self.options.rules.rules().legal_captures(self)
    }

    /// Every legal move of the side to move as written, including those that are no single
    /// typed move (the observer rules' pairs, `e5e8|c2c7`).
    pub fn legal_notations(&self) -> Vec<Notation> {
        self.options.rules.rules().legal_notations(self)
    }

    /// The quantum board, for queries.
    pub fn board(&self) -> &dyn QuantumBoard {
        &*self.board
    }

    /// The quantum board, for queries that need `&mut` (sampling backends run jobs to answer).
    /// Moves must go through [`Game::play`], or the tracker and the board disagree.
    pub(crate) fn board_mut(&mut self) -> &mut dyn QuantumBoard {
        &mut *self.board
    }

    /// Reads the board's square probabilities after a board step into the game's buffer (a
    /// local board writes them in place, without copies of the whole table).
    pub(crate) fn read_square_probabilities(&mut self) -> Result<(), GameError> {
        let board: &mut dyn Any = &mut *self.board;
        match board.downcast_mut::<LocalBoard>() {
            Some(local) => local.read_square_probabilities(&mut self.read_probabilities),
            None => *self.read_probabilities = self.board.square_probabilities().map_err(GameError::Backend)?,
        }
        Ok(())
    }

    /// The board as the concrete type `B`, when it is one (for what only that board does, such
    /// as a remote board ending its provider session).
    pub fn board_as_mut<B: QuantumBoard + Any>(&mut self) -> Option<&mut B> {
        let any: &mut dyn Any = &mut *self.board;
        any.downcast_mut::<B>()
    }

    /// The local board, when the game runs on one: its accumulated circuit and register are
    /// what `qchess compile` exports.
    pub fn local_board(&self) -> Option<&LocalBoard> {
        let any: &dyn Any = &*self.board;
        any.downcast_ref::<LocalBoard>()
    }

    /// Whether the board's probabilities are exact.
    pub fn is_exact(&self) -> bool {
        self.board.is_exact()
    }

    /// The number of basis states (or distinct sampled boards) the board holds.
    pub fn state_size(&self) -> usize {
        self.board.state_size()
    }

    /// The probability of every board occupancy, most likely first (after a full-board
    /// measurement, that board alone).
    pub fn distribution(&mut self) -> Result<Vec<(Bitboard, f64)>, GameError> {
        match self.tracker.measured {
            Some(board) => Ok(vec![(board, 1.0)]),
            None => self.board.distribution().map_err(GameError::Backend),
        }
    }

    /// Uses `measured` instead of a random draw when the next fifty-move or repetition claim
    /// measures every square (replays of records do this).
    pub fn set_pending_measurement(&mut self, measured: Option<Bitboard>) {
        self.pending_measurement = measured;
    }

    /// The full-board measurement set for the next claim and not used yet.
    pub fn pending_measurement(&self) -> Option<Bitboard> {
        self.pending_measurement
    }
}

/// Maps a board error on a move to a game error naming the move.
fn board_error(mv: &AlgebraicMove, source: BoardError) -> GameError {
    GameError::Board { mv: mv.to_string(), source }
}
