//! Why a well-formed move is not allowed in a position.

use thiserror::Error;

use crate::notation::{ParseMoveError, VariantMarker};
use crate::{CastlingSide, Color, MoveVariant, Piece, Role, Square, TypedMoveProblem};

/// "white pawn", for messages.
pub(crate) fn piece_name(piece: &Piece) -> String {
    format!("{} {}", piece.color, piece.role)
}

/// "White", for messages.
pub(crate) fn side_name(color: &Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn castling_side_name(side: &CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "king side",
        CastlingSide::QueenSide => "queen side",
    }
}

/// The rule a move breaks.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Illegal {
    /// A pair (`e5e8|c2c7`) or a measurement (`?e4`): only the observer and checkmate rules
    /// have them.
    #[error("pairs (e5e8|c2c7) exist only under the observer rules, measurements (?e4) only under the checkmate rules")]
    PairMove,
    /// `0000`: Quantum Chess has no passing.
    #[error("the null move 0000 is not allowed in Quantum Chess: every turn moves a piece")]
    NullMove,
    /// A source square holds no piece.
    #[error("{square} is empty")]
    EmptySource {
        /// The source.
        square: Square,
    },
    /// A source square holds a piece of the side not to move.
    #[error("{square} holds a {}, but it is {}'s turn", piece_name(.piece), side_name(.turn))]
    NotYourPiece {
        /// The source.
        square: Square,
        /// What it holds.
        piece: Piece,
        /// The side to move.
        turn: Color,
    },
    /// The piece letter in front of the move does not match the source.
    #[error("the move names a {named}, but {square} holds a {}", piece_name(.piece))]
    WrongPiece {
        /// The role the move's letter names.
        named: Role,
        /// The source.
        square: Square,
        /// What it holds.
        piece: Piece,
    },
    /// The piece does not move that way.
    #[error("a {role} cannot move from {from} to {to}")]
    Geometry {
        /// The moving piece's role.
        role: Role,
        /// Source.
        from: Square,
        /// Target.
        to: Square,
    },
    /// A pawn move along its file that is neither a step nor a two-step from the start rank.
    #[error("a pawn moves one square forward, or two from its starting rank")]
    PawnStepGeometry,
    /// A pawn move that is neither forward nor a diagonal capture.
    #[error(
        "a pawn moves one square forward, or two from its starting rank, and captures one square diagonally forward"
    )]
    PawnGeometry,
    /// A certainly occupied square stands between source and target.
    #[error("the path from {from} to {to} passes {square}, which certainly holds a {}", piece_name(.piece))]
    PathBlocked {
        /// Source.
        from: Square,
        /// Target.
        to: Square,
        /// The blocking square.
        square: Square,
        /// What stands there.
        piece: Piece,
    },
    /// A pawn step onto a certainly occupied square that is not its own pawn.
    #[error(
        "{square} certainly holds a {}; a pawn steps only onto an empty square, its own pawn, or a square occupied in superposition",
        piece_name(.piece)
    )]
    PawnStepBlocked {
        /// The target.
        square: Square,
        /// What stands there.
        piece: Piece,
    },
    /// A diagonal pawn move onto an empty square that is not the en-passant square.
    #[error("a pawn moves diagonally only to capture, and {square} is empty")]
    PawnCaptureEmpty {
        /// The target.
        square: Square,
    },
    /// A diagonal pawn move onto its own side's piece.
    #[error("a pawn captures only the opponent's pieces, and {square} holds a {}", piece_name(.piece))]
    PawnCaptureOwn {
        /// The target.
        square: Square,
        /// What stands there.
        piece: Piece,
    },
    /// A target certainly holding a piece of the mover's side of another kind.
    #[error(
        "{square} certainly holds a {}; a piece may move onto its own side's piece of another kind only while that piece is in superposition",
        piece_name(.piece)
    )]
    TargetHoldsOwnPiece {
        /// The target.
        square: Square,
        /// What stands there.
        piece: Piece,
    },
    /// A pawn reaches the last rank without a promotion letter.
    #[error("a pawn reaching the last rank must promote: add q, r, b or n (like e7e8q)")]
    PromotionMissing,
    /// A promotion letter on a move that does not take a pawn to the last rank.
    #[error("only a pawn reaching the last rank promotes")]
    PromotionNotAllowed,
    /// A promotion to a king or pawn.
    #[error("a pawn cannot promote to a {0}")]
    BadPromotionPiece(Role),
    /// The castling right is gone.
    #[error("{} no longer has the right to castle {}", side_name(.color), castling_side_name(.side))]
    NoCastlingRight {
        /// The side castling.
        color: Color,
        /// Which way.
        side: CastlingSide,
    },
    /// The castling rook's square holds no rook of the mover's side.
    #[error("castling needs {}'s rook on {square}", side_name(.color))]
    CastlingWithoutRook {
        /// The side castling.
        color: Color,
        /// The rook's square.
        square: Square,
    },
    /// A square castling needs free is certainly occupied.
    #[error("castling needs {square} not certainly occupied, but it certainly holds a {}", piece_name(.piece))]
    CastlingBlocked {
        /// The blocking square.
        square: Square,
        /// What stands there.
        piece: Piece,
    },
    /// A pawn split.
    #[error("pawns cannot split")]
    PawnSplit,
    /// A pawn merge.
    #[error("pawns cannot merge")]
    PawnMerge,
    /// A split or merge carries a variant marker or promotion.
    #[error("split and merge moves take no x/w marker and no promotion")]
    SplitOrMergeDecorated,
    /// A split target holding another kind of piece.
    #[error(
        "split target {square} holds a {}; split targets must be empty or hold the same kind of piece",
        piece_name(.piece)
    )]
    SplitTarget {
        /// The target.
        square: Square,
        /// What stands there.
        piece: Piece,
    },
    /// A merge target holding another kind of piece.
    #[error(
        "merge target {square} holds a {}; merge targets must be empty or hold the same kind of piece",
        piece_name(.piece)
    )]
    MergeTarget {
        /// The target.
        square: Square,
        /// What stands there.
        piece: Piece,
    },
    /// The two sources of a merge hold different kinds of piece.
    #[error(
        "merge sources must hold the same kind of piece, but {from1} holds a {} and {from2} a {}",
        piece_name(.piece1),
        piece_name(.piece2)
    )]
    MergeSourcesDiffer {
        /// First source.
        from1: Square,
        /// What it holds.
        piece1: Piece,
        /// Second source.
        from2: Square,
        /// What it holds.
        piece2: Piece,
    },
    /// The `x` / `w` mark contradicts what the target holds.
    #[error("`{}` marks a {} move, but here this move is {variant}", .marker.char(), .marker.variant())]
    MarkerMismatch {
        /// The mark given.
        marker: VariantMarker,
        /// The variant the position gives the move.
        variant: MoveVariant,
    },
    /// The move could not be expressed as a typed move (a bug if it ever shows).
    #[error("the move cannot be typed: {0}")]
    Untypable(TypedMoveProblem),
}

/// A well-formed move that is not allowed: the move as written and the rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}: {reason}", crate::text::excerpt(.text))]
pub struct IllegalMove {
    /// The move as written.
    pub text: String,
    /// Why it is not allowed.
    pub reason: Illegal,
}

/// Why a move text was not accepted: malformed, or well formed but not allowed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    /// The text is not official notation.
    #[error(transparent)]
    Parse(#[from] ParseMoveError),
    /// The move is not allowed in the position.
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
}
