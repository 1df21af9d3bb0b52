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

/// The classical state after some plies; the game keeps the one before each ply, so undo
/// puts it back as it was.
#[derive(Debug, PartialEq)]
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
    /// With `measured`: each king's probability of being present (white, black) just before.
    pub kings_before_measurement: Option<[f64; 2]>,
}

impl Clone for Tracker {
    fn clone(&self) -> Tracker {
        Tracker {
            position: self.position.clone(),
            ply: self.ply,
            count_at_reset: self.count_at_reset,
            end: self.end,
            measured: self.measured,
            kings_before_measurement: self.kings_before_measurement,
        }
    }

    /// Copies in place (undo puts the tracker back at every node of a search).
    fn clone_from(&mut self, source: &Tracker) {
        let Tracker { position, ply, count_at_reset, end, measured, kings_before_measurement } = source;
        self.position.clone_from(position);
        (self.ply, self.count_at_reset, self.end) = (*ply, *count_at_reset, *end);
        (self.measured, self.kings_before_measurement) = (*measured, *kings_before_measurement);
    }
}

impl Tracker {
    /// The state at the start of a game.
    pub fn start(position: Position) -> Tracker {
        let count_at_reset = piece_count(position.probabilities());
        Tracker { position, ply: 0, count_at_reset, end: None, measured: None, kings_before_measurement: None }
    }

    /// Whether every square is certain and no full-board measurement was made: only such
    /// positions are compared for repetition.
    pub fn is_classical(&self) -> bool {
        self.position.superposed().is_empty() && self.measured.is_none()
    }

    /// Whether `other` is a repetition of this (classical) position: the same pieces on the
    /// same squares, side to move, castling rights and en-passant square. The Zobrist keys
    /// are compared first, so positions that differ rarely get further.
    pub fn repeats(&self, other: &Tracker) -> bool {
        let (a, b) = (&self.position, &other.position);
        self.is_classical()
            && other.is_classical()
            && a.zobrist() == b.zobrist()
            && a.board() == b.board()
            && a.turn() == b.turn()
            && a.castling() == b.castling()
            && a.en_passant() == b.en_passant()
    }

    /// Whether `color` still has a king: some square labelled with its king may be occupied.
    pub fn has_king(&self, color: Color) -> bool {
        !self.position.squares_of(Piece::new(color, Role::King)).is_empty()
    }

    /// Takes in `mv` (moved by `mover`), which ran on the board with `report`, leaving
    /// `probabilities`. See the [module docs](self). `resets_clock` resets the fifty-move
    /// counter whatever the piece count did. Returns the squares whose label or probability
    /// changed. On error the state is unchanged.
    pub fn after_move(
        &mut self,
        mv: &LegalMove,
        mover: Piece,
        report: &MoveReport,
        probabilities: &SquareProbabilities,
        resets_clock: bool,
    ) -> Result<Bitboard, PositionError> {
        let mut fen = self.position.to_fen();
        let typed = &mv.typed;
        let mut en_passant = None;
        let mut relabelled = Bitboard::EMPTY;
        if report.proceeded {
            let placed = typed.promotion.unwrap_or(mover);
            let (sources, targets) = squares_of(typed.squares);
            for target in targets.into_iter().flatten() {
                fen.board[usize::from(target)] = Some(placed);
                relabelled = relabelled.with(target);
            }
            let mut castling =
                sources.into_iter().chain(targets).flatten().fold(fen.castling, CastlingRights::without_square);
            if let Some(side) = castle_side(typed.move_type) {
                fen.board[usize::from(side.rook_to(mover.color))] = Some(Piece::new(mover.color, Role::Rook));
                relabelled = relabelled.with(side.rook_to(mover.color));
                castling = castling.without_square(side.rook_from(mover.color));
            }
            fen.castling = castling;
            if let (MoveType::PawnTwoStep, MoveSquares::Standard { from, to }) = (typed.move_type, typed.squares)
                && probabilities.get(to) > CERTAINTY_TOLERANCE
            {
                en_passant = Square::from_coords(from.file(), (from.rank() + to.rank()) / 2);
            }
        }
        fen.castling = keep_standing_rights(&fen, probabilities);
        fen.en_passant = en_passant;
        fen.turn = !mover.color;
        if mover.color == Color::Black {
            fen.fullmove_number = fen.fullmove_number.saturating_add(1);
        }
        let count = piece_count(probabilities);
        let mut count_at_reset = self.count_at_reset;
        fen.halfmove_clock = fen.halfmove_clock.saturating_add(1);
        if resets_clock || (count - count_at_reset).abs() >= 1.0 - CERTAINTY_TOLERANCE {
            fen.halfmove_clock = 0;
            count_at_reset = count;
        }
        let changed = self.position.update(&fen, probabilities, relabelled)?;
        self.ply = self.ply.saturating_add(1);
        self.count_at_reset = count_at_reset;
        self.end = None;
        self.measured = None;
        self.kings_before_measurement = None;
        Ok(changed)
    }

    /// Takes in a measurement during a ply that left `probabilities`: squares now certainly
    /// empty lose their labels and rights whose pieces no longer certainly stand are lost; the
    /// turn and the counters stay. Returns the squares that changed. On error the state is
    /// unchanged.
    pub fn after_collapse(&mut self, probabilities: &SquareProbabilities) -> Result<Bitboard, PositionError> {
        let mut fen: Fen = self.position.to_fen();
        for square in probabilities.certainly_empty() {
            fen.board[usize::from(square)] = None;
        }
        fen.castling = keep_standing_rights(&fen, probabilities);
        // A pawn found not to have made its two-step (its target is certainly empty) cannot be
        // taken en passant.
        let two_stepped = fen.en_passant.and_then(|skipped| {
            let rank = if skipped.rank() == 2 { 3 } else { 4 };
            Square::from_coords(skipped.file(), rank)
        });
        if two_stepped.is_some_and(|pawn| fen.board[usize::from(pawn)].is_none()) {
            fen.en_passant = None;
        }
        // Squares found empty drop their labels with their probability.
        self.position.update(&fen, probabilities, Bitboard::EMPTY)
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
        let kings_before_measurement = Some(Color::ALL.map(|color| self.position.king_presence(color)));
        Ok(Tracker { position, measured: Some(measured), kings_before_measurement, ..self.clone() })
    }
}

/// The expected piece count, summed in four running sums: the fifty-move counter compares it
/// with a tolerance, and one running sum of 64 additions is a chain as long as the board.
fn piece_count(probabilities: &SquareProbabilities) -> f64 {
    let mut lanes = [0.0; 4];
    for chunk in probabilities.probabilities.chunks_exact(4) {
        for (lane, p) in lanes.iter_mut().zip(chunk) {
            *lane += p;
        }
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
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
