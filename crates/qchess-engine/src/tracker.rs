//! The classical tracker: what the game knows besides the quantum state, and how one move
//! changes it.
//!
//! After the quantum board has run a move, the tracker derives the next classical
//! state from the previous one, the move, whether it proceeded, and the board's new square
//! probabilities:
//!
//! - **Pieces.** When the move proceeded, each target takes the mover's kind (the promoted
//!   piece for a promotion), and a castle puts the rook's kind on the rook's target. Then every
//!   square whose probability is 0 loses its label. A source keeps its label while it may still
//!   hold the piece.
//! - **Castling rights.** A right is lost when its king or rook moves (a proceeded move with
//!   that square as a source), when a proceeded move lands on that square (a capture, or
//!   another piece joining it), and whenever the king's or rook's home square no longer
//!   certainly holds that king or rook (it was measured away). A move that did not proceed
//!   keeps the rights of the pieces it named.
//! - **En passant.** Set to the skipped square after a proceeded pawn two-step whose target
//!   may now hold the pawn; cleared after every other move.
//! - **Fifty-move counter.** +1 per ply; reset to 0 whenever the expected piece count (the
//!   sum of all square probabilities) differs by at least 1 from its value at the last reset.
//! - **Turn and move number.** The opponent of the piece that moved is to move; the move
//!   number grows after each Black move.

use qchess_core::quantum_board::CERTAINTY_TOLERANCE;
use qchess_core::{
    Bitboard, CastlingRights, CastlingSide, Color, Fen, LegalMove, MoveReport, MoveSquares, MoveType, Piece, Position,
    PositionError, Role, Square, SquareProbabilities,
};

use crate::GameEnd;

/// The classical state after some plies; one is kept per ply so undo is exact.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tracker {
    /// Pieces, probabilities, turn, rights, en passant, fifty-move counter, move number.
    pub position: Position,
    /// Plies played since the start of the game.
    pub ply: u32,
    /// The expected piece count when the fifty-move counter was last reset.
    pub count_at_reset: f64,
    /// How the game ended, once it has.
    pub end: Option<GameEnd>,
    /// The board drawn when every square was measured (fifty-move rule, repetition).
    pub measured: Option<Bitboard>,
}

/// A [`Tracker`] in compact form, kept once per ply for undo: the position's parts without its
/// derived masks, rebuilt into a [`Position`] only when a ply is taken back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SavedTracker {
    setup: Fen,
    probabilities: [f64; 64],
    standard_errors: Option<Box<[f64; 64]>>,
    repetition: bool,
    ply: u32,
    count_at_reset: f64,
    end: Option<GameEnd>,
    measured: Option<Bitboard>,
}

impl SavedTracker {
    /// The repetition key of the saved position, when every square was certain.
    pub fn repetition_key(&self) -> Option<RepetitionKey> {
        self.repetition.then_some(RepetitionKey {
            board: self.setup.board,
            turn: self.setup.turn,
            castling: self.setup.castling,
            en_passant: self.setup.en_passant,
        })
    }
}

/// What identifies a fully classical position for the repetition rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct RepetitionKey {
    board: [Option<Piece>; 64],
    turn: Color,
    castling: CastlingRights,
    en_passant: Option<Square>,
}

impl Tracker {
    /// The state at the start of a game.
    pub fn start(position: Position) -> Tracker {
        let count_at_reset = position.probabilities().expected_piece_count();
        Tracker { position, ply: 0, count_at_reset, end: None, measured: None }
    }

    /// This state in compact form.
    pub fn save(&self) -> SavedTracker {
        let probabilities = self.position.probabilities();
        SavedTracker {
            setup: self.position.to_fen(),
            probabilities: probabilities.probabilities,
            standard_errors: probabilities.standard_errors.map(Box::new),
            repetition: self.repetition_key().is_some(),
            ply: self.ply,
            count_at_reset: self.count_at_reset,
            end: self.end,
            measured: self.measured,
        }
    }

    /// The state [`Tracker::save`] saved. The position was valid when saved, so rebuilding it
    /// cannot fail in practice; an error is passed on rather than hidden.
    pub fn restore(saved: &SavedTracker) -> Result<Tracker, PositionError> {
        let probabilities = SquareProbabilities {
            probabilities: saved.probabilities,
            standard_errors: saved.standard_errors.as_deref().copied(),
        };
        Ok(Tracker {
            position: Position::new(saved.setup.clone(), probabilities)?,
            ply: saved.ply,
            count_at_reset: saved.count_at_reset,
            end: saved.end,
            measured: saved.measured,
        })
    }

    /// The repetition key of this position, when every square is certain.
    pub fn repetition_key(&self) -> Option<RepetitionKey> {
        if !self.position.superposed().is_empty() || self.measured.is_some() {
            return None;
        }
        Some(RepetitionKey {
            board: *self.position.board(),
            turn: self.position.turn(),
            castling: self.position.castling(),
            en_passant: self.position.en_passant(),
        })
    }

    /// Whether `color` still has a king: some square labelled with its king may be occupied.
    pub fn has_king(&self, color: Color) -> bool {
        !self.position.squares_of(Piece::new(color, Role::King)).is_empty()
    }

    /// The state after `mv` (moved by `mover`) ran on the board with `report`, leaving
    /// `probabilities`. See the [module docs](self). `resets_clock` resets the fifty-move
    /// counter whatever the piece count did.
    pub fn after_move(
        &self,
        mv: &LegalMove,
        mover: Piece,
        report: &MoveReport,
        probabilities: SquareProbabilities,
        resets_clock: bool,
    ) -> Result<Tracker, PositionError> {
        let mut fen = self.position.to_fen();
        let typed = &mv.typed;
        let mut en_passant = None;
        if report.proceeded {
            let placed = typed.promotion.unwrap_or(mover);
            let (sources, targets) = squares_of(typed.squares);
            for target in targets.into_iter().flatten() {
                fen.board[usize::from(target)] = Some(placed);
            }
            let mut castling =
                sources.into_iter().chain(targets).flatten().fold(fen.castling, CastlingRights::without_square);
            if let Some(side) = castle_side(typed.move_type) {
                fen.board[usize::from(side.rook_to(mover.color))] = Some(Piece::new(mover.color, Role::Rook));
                castling = castling.without_square(side.rook_from(mover.color));
            }
            fen.castling = castling;
            if let (MoveType::PawnTwoStep, MoveSquares::Standard { from, to }) = (typed.move_type, typed.squares)
                && probabilities.get(to) > CERTAINTY_TOLERANCE
            {
                en_passant = Square::from_coords(from.file(), (from.rank() + to.rank()) / 2);
            }
        }
        fen.castling = keep_standing_rights(&fen, &probabilities);
        fen.en_passant = en_passant;
        fen.turn = !mover.color;
        if mover.color == Color::Black {
            fen.fullmove_number = fen.fullmove_number.saturating_add(1);
        }
        let count = probabilities.expected_piece_count();
        let mut count_at_reset = self.count_at_reset;
        fen.halfmove_clock = fen.halfmove_clock.saturating_add(1);
        if resets_clock || (count - count_at_reset).abs() >= 1.0 - CERTAINTY_TOLERANCE {
            fen.halfmove_clock = 0;
            count_at_reset = count;
        }
        let position = Position::new(fen, probabilities)?;
        Ok(Tracker { position, ply: self.ply.saturating_add(1), count_at_reset, end: None, measured: None })
    }

    /// This state after a measurement during a ply left `probabilities`: squares now certainly
    /// empty lose their labels and rights whose pieces no longer certainly stand are lost; the
    /// turn and the counters stay.
    pub fn after_collapse(&self, probabilities: SquareProbabilities) -> Result<Tracker, PositionError> {
        let mut fen: Fen = self.position.to_fen();
        for square in probabilities.certainly_empty() {
            fen.board[usize::from(square)] = None;
        }
        fen.castling = keep_standing_rights(&fen, &probabilities);
        let position = Position::new(fen, probabilities)?;
        Ok(Tracker { position, ..self.clone() })
    }

    /// This state after every square was measured with result `measured`: squares found empty
    /// lose their labels and every probability becomes 0 or 1.
    pub fn after_measurement(&self, measured: Bitboard) -> Result<Tracker, PositionError> {
        let mut fen: Fen = self.position.to_fen();
        for square in Square::ALL {
            if !measured.contains(square) {
                fen.board[usize::from(square)] = None;
            }
        }
        fen.castling = keep_standing_rights(&fen, &SquareProbabilities::classical(measured));
        let position = Position::new(fen, SquareProbabilities::classical(measured))?;
        Ok(Tracker { position, measured: Some(measured), ..self.clone() })
    }
}

/// A move's sources and targets, without allocating.
fn squares_of(squares: MoveSquares) -> ([Option<Square>; 2], [Option<Square>; 2]) {
    match squares {
        MoveSquares::Standard { from, to } => ([Some(from), None], [Some(to), None]),
        MoveSquares::Split { from, to1, to2 } => ([Some(from), None], [Some(to1), Some(to2)]),
        MoveSquares::Merge { from1, from2, to } => ([Some(from1), Some(from2)], [Some(to), None]),
    }
}

/// The castle a move type makes, if any.
fn castle_side(move_type: MoveType) -> Option<CastlingSide> {
    match move_type {
        MoveType::KsCastle => Some(CastlingSide::KingSide),
        MoveType::QsCastle => Some(CastlingSide::QueenSide),
        _ => None,
    }
}

/// The rights in `fen` whose king and rook still certainly stand on their home squares.
fn keep_standing_rights(fen: &Fen, probabilities: &SquareProbabilities) -> CastlingRights {
    let stands = |square: Square, piece: Piece| {
        fen.board[usize::from(square)] == Some(piece) && probabilities.get(square) >= 1.0 - CERTAINTY_TOLERANCE
    };
    let mut rights = fen.castling;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            let king_home = Square::from_coords(4, color.back_rank()).unwrap_or(Square::E1);
            let standing = stands(king_home, Piece::new(color, Role::King))
                && stands(side.rook_from(color), Piece::new(color, Role::Rook));
            if !standing {
                rights = rights.set(color, side, false);
            }
        }
    }
    rights
}
