//! A move the rules allow, in both of its forms.

use std::fmt;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use crate::notation::{AlgebraicMove, VariantMarker};
use crate::{MoveSquares, MoveType, MoveVariant, TypedMove};

/// A legal move: the move in canonical official notation (no piece letter; `x` / `w` on
/// capture / excluded standard moves) and the typed move a quantum board runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LegalMove {
    /// The move in official notation.
    pub notation: AlgebraicMove,
    /// The move with its type and variant, for the quantum board.
    pub typed: TypedMove,
}

impl LegalMove {
    /// The legal move `typed` is, in canonical notation: no piece letter, the variant's
    /// marker on a standard move, and the typed move's promotion and outcome. The notation is
    /// a function of the typed move, so a move can be kept as its typed move alone.
    pub fn canonical(typed: TypedMove) -> LegalMove {
        let marker = match typed.squares {
            MoveSquares::Standard { .. } => VariantMarker::for_variant(typed.variant),
            _ => None,
        };
        let notation = AlgebraicMove {
            marker,
            promotion: typed.promotion.map(|piece| piece.role),
            outcome: typed.outcome,
            ..AlgebraicMove::new(typed.squares)
        };
        LegalMove { notation, typed }
    }

    /// How the move travels.
    pub fn move_type(&self) -> MoveType {
        self.typed.move_type
    }

    /// What its targets hold.
    pub fn variant(&self) -> MoveVariant {
        self.typed.variant
    }
}

/// Prints the official notation.
impl fmt::Display for LegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.notation)
    }
}

/// Serialises as `{"move": "b1^a3c3", "type": "SPLIT_JUMP", "variant": "BASIC"}`.
impl Serialize for LegalMove {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut fields = serializer.serialize_struct("LegalMove", 3)?;
        fields.serialize_field("move", &self.notation.to_string())?;
        fields.serialize_field("type", &self.typed.move_type)?;
        fields.serialize_field("variant", &self.typed.variant)?;
        fields.end()
    }
}
