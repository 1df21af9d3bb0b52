//! Classifying one move: its type and variant, or the rule it breaks.
//!
//! Every function here assumes its source squares hold pieces of the side to move; the caller
//! ([`Position::classify`]) checks that first.

use super::{Illegal, LegalMove, Occupancy, Position};
use crate::notation::{AlgebraicMove, VariantMarker};
use crate::{CastlingSide, Color, MoveSquares, MoveType, MoveVariant, Piece, Role, Square, TypedMove};

/// Whether `role` moves from `from` to `to` on an empty board (castling aside).
pub(super) fn moves_like(role: Role, from: Square, to: Square) -> bool {
    let df = from.file().abs_diff(to.file());
    let dr = from.rank().abs_diff(to.rank());
    match role {
        Role::Knight => (df, dr) == (1, 2) || (df, dr) == (2, 1),
        Role::King => from != to && df <= 1 && dr <= 1,
        Role::Rook => from != to && (df == 0 || dr == 0),
        Role::Bishop => from != to && df == dr,
        Role::Queen => from != to && (df == 0 || dr == 0 || df == dr),
        Role::Pawn => false,
    }
}

/// Splits and merges carry no variant marker and no promotion.
fn undecorated(mv: &AlgebraicMove) -> Result<(), Illegal> {
    if mv.marker.is_some() || mv.promotion.is_some() { Err(Illegal::SplitOrMergeDecorated) } else { Ok(()) }
}

/// The rank (0-based) a pawn of `color` starts on.
fn pawn_start_rank(color: Color) -> u8 {
    match color {
        Color::White => 1,
        Color::Black => 6,
    }
}

impl Position {
    /// Type and variant of `mv` here, or the rule it breaks. The returned [`LegalMove`]'s
    /// notation is canonical: no piece letter, the variant's marker on standard moves.
    pub(super) fn classify(&self, mv: &AlgebraicMove) -> Result<LegalMove, Illegal> {
        let (move_type, variant) = match mv.squares {
            MoveSquares::Standard { from, to } => {
                let mover = self.mover(from, mv.piece)?;
                let (move_type, variant) = self.classify_standard(mover, from, to, mv.promotion)?;
                if let Some(marker) = mv.marker.filter(|m| m.variant() != variant) {
                    return Err(Illegal::MarkerMismatch { marker, variant });
                }
                (move_type, variant)
            }
            MoveSquares::Split { from, to1, to2 } => {
                let mover = self.mover(from, mv.piece)?;
                undecorated(mv)?;
                (self.classify_split(mover, from, to1, to2)?, MoveVariant::Basic)
            }
            MoveSquares::Merge { from1, from2, to } => {
                let sources = ((from1, self.mover(from1, mv.piece)?), (from2, self.mover(from2, mv.piece)?));
                undecorated(mv)?;
                (self.classify_merge(sources.0, sources.1, to)?, MoveVariant::Basic)
            }
        };
        let promotion = mv.promotion.map(|role| Piece::new(self.turn, role));
        let typed = TypedMove::new(mv.squares, move_type, variant)
            .map_err(Illegal::Untypable)?
            .with_promotion(promotion)
            .with_outcome(mv.outcome);
        let marker = match mv.squares {
            MoveSquares::Standard { .. } => VariantMarker::for_variant(variant),
            _ => None,
        };
        let notation = AlgebraicMove { piece: None, marker, ..*mv };
        Ok(LegalMove { notation, typed })
    }

    /// The piece of the side to move on `square`, matching the move's piece letter if any.
    fn mover(&self, square: Square, named: Option<Role>) -> Result<Piece, Illegal> {
        let piece = self.piece_at(square).ok_or(Illegal::EmptySource { square })?;
        if piece.color != self.turn {
            return Err(Illegal::NotYourPiece { square, piece, turn: self.turn });
        }
        match named {
            Some(named) if named != piece.role => Err(Illegal::WrongPiece { named, square, piece }),
            _ => Ok(piece),
        }
    }

    fn is_full(&self, sq: Square) -> bool {
        self.occupancy(sq) == Occupancy::Full
    }

    /// A standard move of `mover` from `from` to `to`, with an optional promotion.
    pub(super) fn classify_standard(
        &self,
        mover: Piece,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> Result<(MoveType, MoveVariant), Illegal> {
        let home = Square::from_coords(4, mover.color.back_rank());
        let classified = match mover.role {
            Role::Pawn => self.classify_pawn(mover.color, from, to)?,
            Role::King if Some(from) == home && to.rank() == from.rank() && matches!(to.file(), 2 | 6) => {
                self.classify_castle(mover.color, to)?
            }
            role => {
                self.reach(mover, from, to, None)?;
                let move_type = if role.is_slider() { MoveType::Slide } else { MoveType::Jump };
                (move_type, self.target_variant(mover, to)?)
            }
        };
        let promotes = mover.role == Role::Pawn && to.rank() == (!mover.color).back_rank();
        match (promotes, promotion) {
            (true, None) => Err(Illegal::PromotionMissing),
            (false, Some(_)) => Err(Illegal::PromotionNotAllowed),
            (true, Some(role)) if !Role::PROMOTIONS.contains(&role) => Err(Illegal::BadPromotionPiece(role)),
            _ => Ok(classified),
        }
    }

    /// Whether `mover` reaches `to` from `from` by its own jump or slide. Superposed path
    /// squares count as empty; `passable` (the other target of a split, the other source of a
    /// merge) never blocks.
    fn reach(&self, mover: Piece, from: Square, to: Square, passable: Option<Square>) -> Result<(), Illegal> {
        if !moves_like(mover.role, from, to) {
            return Err(Illegal::Geometry { role: mover.role, from, to });
        }
        if mover.role.is_slider() {
            let between = from.between(to).unwrap_or_default();
            for square in between {
                if Some(square) != passable && self.is_full(square) {
                    let piece = self.blocker(square);
                    return Err(Illegal::PathBlocked { from, to, square, piece });
                }
            }
        }
        Ok(())
    }

    /// The piece on a certainly full square (a full square always has one).
    fn blocker(&self, square: Square) -> Piece {
        self.piece_at(square).unwrap_or(Piece::new(self.turn, Role::Pawn))
    }

    /// The variant of a jump or slide onto `to`.
    fn target_variant(&self, mover: Piece, to: Square) -> Result<MoveVariant, Illegal> {
        match self.piece_at(to) {
            None => Ok(MoveVariant::Basic),
            Some(piece) if piece == mover => Ok(MoveVariant::Basic),
            Some(piece) if piece.color != mover.color => Ok(MoveVariant::Capture),
            Some(piece) if self.is_full(to) => Err(Illegal::TargetHoldsOwnPiece { square: to, piece }),
            Some(_) => Ok(MoveVariant::Excluded),
        }
    }

    fn classify_pawn(&self, color: Color, from: Square, to: Square) -> Result<(MoveType, MoveVariant), Illegal> {
        let forward = i16::from(color.forward());
        let df = i16::from(to.file()) - i16::from(from.file());
        let dr = i16::from(to.rank()) - i16::from(from.rank());
        if df == 0 {
            if dr == forward {
                return Ok((MoveType::PawnStep, self.pawn_step_variant(color, to)?));
            }
            if dr == 2 * forward && from.rank() == pawn_start_rank(color) {
                let skipped = from.offset(0, color.forward());
                if let Some(square) = skipped.filter(|&sq| self.is_full(sq)) {
                    return Err(Illegal::PathBlocked { from, to, square, piece: self.blocker(square) });
                }
                return Ok((MoveType::PawnTwoStep, self.pawn_step_variant(color, to)?));
            }
            return Err(Illegal::PawnStepGeometry);
        }
        if df.abs() != 1 || dr != forward {
            return Err(Illegal::PawnGeometry);
        }
        if Some(to) == self.en_passant {
            return Ok((MoveType::PawnEp, self.en_passant_variant(color, to)?));
        }
        match self.piece_at(to) {
            Some(piece) if piece.color != color => Ok((MoveType::PawnCapture, MoveVariant::Capture)),
            Some(piece) => Err(Illegal::PawnCaptureOwn { square: to, piece }),
            None => Err(Illegal::PawnCaptureEmpty { square: to }),
        }
    }

    /// Variant of a pawn step or two-step onto `to`.
    fn pawn_step_variant(&self, color: Color, to: Square) -> Result<MoveVariant, Illegal> {
        match self.piece_at(to) {
            None => Ok(MoveVariant::Basic),
            Some(piece) if piece == Piece::new(color, Role::Pawn) => Ok(MoveVariant::Basic),
            Some(piece) if self.is_full(to) => Err(Illegal::PawnStepBlocked { square: to, piece }),
            Some(_) => Ok(MoveVariant::Excluded),
        }
    }

    /// Variant of an en-passant move onto `to`.
    fn en_passant_variant(&self, color: Color, to: Square) -> Result<MoveVariant, Illegal> {
        match self.piece_at(to) {
            None => Ok(MoveVariant::Basic),
            Some(piece) if piece == Piece::new(color, Role::Pawn) => Ok(MoveVariant::Basic),
            Some(piece) if piece.color != color => Ok(MoveVariant::Capture),
            Some(piece) if self.is_full(to) => Err(Illegal::TargetHoldsOwnPiece { square: to, piece }),
            Some(_) => Ok(MoveVariant::Excluded),
        }
    }

    /// A castle of `color`'s king (on its home square) to `king_to`.
    fn classify_castle(&self, color: Color, king_to: Square) -> Result<(MoveType, MoveVariant), Illegal> {
        let (side, move_type) = if king_to.file() == 6 {
            (CastlingSide::KingSide, MoveType::KsCastle)
        } else {
            (CastlingSide::QueenSide, MoveType::QsCastle)
        };
        if !self.castling.has(color, side) {
            return Err(Illegal::NoCastlingRight { color, side });
        }
        let rook = Piece::new(color, Role::Rook);
        let rook_from = side.rook_from(color);
        if self.piece_at(rook_from) != Some(rook) {
            return Err(Illegal::CastlingWithoutRook { color, square: rook_from });
        }
        let rook_to = side.rook_to(color);
        let mut must_not_be_full = vec![rook_to, king_to];
        if side == CastlingSide::QueenSide {
            must_not_be_full.extend(Square::from_coords(1, color.back_rank()));
        }
        if let Some(square) = must_not_be_full.into_iter().find(|&sq| self.is_full(sq)) {
            return Err(Illegal::CastlingBlocked { square, piece: self.blocker(square) });
        }
        let king_target_empty = self.occupancy(king_to) == Occupancy::Empty;
        let rook_target_free = self.occupancy(rook_to) == Occupancy::Empty || self.piece_at(rook_to) == Some(rook);
        let variant = if king_target_empty && rook_target_free { MoveVariant::Basic } else { MoveVariant::Excluded };
        Ok((move_type, variant))
    }

    /// A split of `mover` from `from` onto `to1` and `to2`.
    pub(super) fn classify_split(
        &self,
        mover: Piece,
        from: Square,
        to1: Square,
        to2: Square,
    ) -> Result<MoveType, Illegal> {
        if mover.role == Role::Pawn {
            return Err(Illegal::PawnSplit);
        }
        for (target, other) in [(to1, to2), (to2, to1)] {
            self.reach(mover, from, target, Some(other))?;
            match self.piece_at(target) {
                Some(piece) if piece != mover => return Err(Illegal::SplitTarget { square: target, piece }),
                _ => {}
            }
        }
        Ok(if mover.role.is_slider() { MoveType::SplitSlide } else { MoveType::SplitJump })
    }

    /// A merge of the pieces on two sources onto `to`.
    pub(super) fn classify_merge(
        &self,
        (from1, piece1): (Square, Piece),
        (from2, piece2): (Square, Piece),
        to: Square,
    ) -> Result<MoveType, Illegal> {
        if piece1 != piece2 {
            return Err(Illegal::MergeSourcesDiffer { from1, piece1, from2, piece2 });
        }
        if piece1.role == Role::Pawn {
            return Err(Illegal::PawnMerge);
        }
        self.reach(piece1, from1, to, Some(from2))?;
        self.reach(piece1, from2, to, Some(from1))?;
        match self.piece_at(to) {
            Some(piece) if piece != piece1 => Err(Illegal::MergeTarget { square: to, piece }),
            _ => Ok(if piece1.role.is_slider() { MoveType::MergeSlide } else { MoveType::MergeJump }),
        }
    }
}
