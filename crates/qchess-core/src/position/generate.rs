//! Listing every legal move, and checking one typed by a user.
//!
//! The generator works on bitboards: a piece's standard targets are its attacks with the
//! certainly full squares as blockers (superposed squares count as empty), and a split or merge
//! pair is legal when each arm's squares in between, less the other target (source), hold no
//! certainly full square. The tests below pin the result, order included,
//! to classifying every candidate square one by one.

use super::{IllegalMove, LegalMove, MoveError, Position};
use crate::classical::attacks;
use crate::notation::Notation;
use crate::{Bitboard, CastlingSide, MoveSquares, MoveType, MoveVariant, Piece, Role, Square, TypedMove};

/// Squares `role` reaches from `from` on an empty board (castling and pawns aside).
fn reach_on_empty_board(role: Role, from: Square) -> Bitboard {
    let index = usize::from(from);
    Bitboard(match role {
        Role::Knight => attacks::KNIGHT[index],
        Role::King => attacks::KING[index],
        Role::Bishop => attacks::bishop(index, 0),
        Role::Rook => attacks::rook(index, 0),
        Role::Queen => attacks::bishop(index, 0) | attacks::rook(index, 0),
        Role::Pawn => 0,
    })
}

/// Squares `role` reaches from `from` when `blockers` block slides (the first blocker on each
/// line included).
fn reach_with_blockers(role: Role, from: Square, blockers: Bitboard) -> Bitboard {
    let (index, occupied) = (usize::from(from), blockers.0);
    Bitboard(match role {
        Role::Bishop => attacks::bishop(index, occupied),
        Role::Rook => attacks::rook(index, occupied),
        Role::Queen => attacks::bishop(index, occupied) | attacks::rook(index, occupied),
        other => reach_on_empty_board(other, from).0,
    })
}

/// The squares strictly between two squares on a line (empty otherwise).
fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(attacks::between(usize::from(a), usize::from(b)))
}

/// A legal move built from parts the generator has already checked.
fn generated(squares: MoveSquares, move_type: MoveType, variant: MoveVariant) -> LegalMove {
    LegalMove::canonical(TypedMove { squares, move_type, variant, promotion: None, outcome: None })
}

impl Position {
    /// Every legal move of the side to move.
    ///
    /// Order: by source square (`a1` first); for each source its standard moves by target
    /// (promotions as `q`, `r`, `b`, `n`), then its splits; merges come last, by source pair.
    /// A split or merge appears once, with the lower square index first (`b1^a3c3`).
    pub fn legal_moves(&self) -> Vec<LegalMove> {
        // Room for a busy middle game, so the list rarely grows.
        let mut moves = Vec::with_capacity(256);
        let ours = self.pieces_of(self.turn);
        for from in ours {
            let Some(mover) = self.piece_at(from) else { continue };
            self.standard_moves(mover, from, &mut moves);
            if mover.role != Role::Pawn {
                self.splits(mover, from, &mut moves);
            }
        }
        self.merges(ours, &mut moves);
        moves
    }

    /// The legal captures of the side to move: the moves of [`Position::legal_moves`] whose
    /// variant is [`MoveVariant::Capture`], in the same order, without generating the splits
    /// and merges (which never capture). For searches that look at captures only.
    pub fn legal_captures(&self) -> Vec<LegalMove> {
        let mut moves = Vec::with_capacity(32);
        let enemies = self.pieces_of(!self.turn);
        for from in self.pieces_of(self.turn) {
            let Some(mover) = self.piece_at(from) else { continue };
            match mover.role {
                Role::Pawn => {
                    // The pawn's moves, then only its captures kept, in order.
                    let first = moves.len();
                    self.pawn_moves(mover, from, &mut moves);
                    let mut kept = first;
                    for index in first..moves.len() {
                        if moves[index].typed.variant == MoveVariant::Capture {
                            moves.swap(kept, index);
                            kept += 1;
                        }
                    }
                    moves.truncate(kept);
                }
                // Jumps and slides capture exactly on the enemy's squares they reach (a
                // castle never captures).
                role => {
                    let move_type = if role.is_slider() { MoveType::Slide } else { MoveType::Jump };
                    for to in reach_with_blockers(role, from, self.full) & enemies {
                        moves.push(generated(MoveSquares::Standard { from, to }, move_type, MoveVariant::Capture));
                    }
                }
            }
        }
        moves
    }

    /// The jumps, slides, pawn moves and castles of `mover` on `from`.
    fn standard_moves(&self, mover: Piece, from: Square, moves: &mut Vec<LegalMove>) {
        match mover.role {
            Role::Pawn => self.pawn_moves(mover, from, moves),
            Role::King => self.king_moves(mover, from, moves),
            _ => self.piece_moves(mover, from, moves),
        }
    }

    /// The variant of a jump or slide of `mover` onto `to`, `None` when the target certainly
    /// holds a piece of the mover's side of another kind.
    fn jump_variant(&self, mover: Piece, to: Square) -> Option<MoveVariant> {
        match self.piece_at(to) {
            None => Some(MoveVariant::Basic),
            Some(piece) if piece == mover => Some(MoveVariant::Basic),
            Some(piece) if piece.color != mover.color => Some(MoveVariant::Capture),
            Some(_) if self.full.contains(to) => None,
            Some(_) => Some(MoveVariant::Excluded),
        }
    }

    /// Standard moves of a knight, bishop, rook or queen.
    fn piece_moves(&self, mover: Piece, from: Square, moves: &mut Vec<LegalMove>) {
        let move_type = if mover.role.is_slider() { MoveType::Slide } else { MoveType::Jump };
        for to in reach_with_blockers(mover.role, from, self.full) {
            if let Some(variant) = self.jump_variant(mover, to) {
                moves.push(generated(MoveSquares::Standard { from, to }, move_type, variant));
            }
        }
    }

    /// King steps, and the castles whose right is held when the king stands on its home
    /// square.
    fn king_moves(&self, mover: Piece, from: Square, moves: &mut Vec<LegalMove>) {
        let steps = reach_on_empty_board(Role::King, from);
        let rank = mover.color.back_rank();
        let mut castles = [None, None];
        if Square::from_coords(4, rank) == Some(from) {
            for (slot, side) in castles.iter_mut().zip([CastlingSide::QueenSide, CastlingSide::KingSide]) {
                *slot = self.castle(mover, side);
            }
        }
        let castle_targets: Bitboard =
            castles.iter().flatten().map(|(to, _, _)| Bitboard::from_square(*to)).fold(Bitboard::EMPTY, |a, b| a | b);
        for to in steps | castle_targets {
            if let Some(&(_, move_type, variant)) = castles.iter().flatten().find(|(target, _, _)| *target == to) {
                moves.push(generated(MoveSquares::Standard { from, to }, move_type, variant));
            } else if let Some(variant) = self.jump_variant(mover, to) {
                moves.push(generated(MoveSquares::Standard { from, to }, MoveType::Jump, variant));
            }
        }
    }

    /// The castle of `king` (on its home square) to `side`: the king's target, type and
    /// variant, or `None` when the rules forbid it (the rules of classifying a typed castle).
    fn castle(&self, king: Piece, side: CastlingSide) -> Option<(Square, MoveType, MoveVariant)> {
        let color = king.color;
        if !self.castling.has(color, side) {
            return None;
        }
        let rook = Piece::new(color, Role::Rook);
        if self.piece_at(side.rook_from(color)) != Some(rook) {
            return None;
        }
        let rank = color.back_rank();
        let (king_to, move_type, passed) = match side {
            CastlingSide::KingSide => (Square::from_coords(6, rank)?, MoveType::KsCastle, None),
            CastlingSide::QueenSide => {
                (Square::from_coords(2, rank)?, MoveType::QsCastle, Square::from_coords(1, rank))
            }
        };
        let rook_to = side.rook_to(color);
        if [Some(rook_to), Some(king_to), passed].into_iter().flatten().any(|sq| self.full.contains(sq)) {
            return None;
        }
        let king_target_empty = self.empty.contains(king_to);
        let rook_target_free = self.empty.contains(rook_to) || self.piece_at(rook_to) == Some(rook);
        let variant = if king_target_empty && rook_target_free { MoveVariant::Basic } else { MoveVariant::Excluded };
        Some((king_to, move_type, variant))
    }

    /// Pawn steps, two-steps, captures and en passant, with the four promotions on the last
    /// rank.
    fn pawn_moves(&self, mover: Piece, from: Square, moves: &mut Vec<LegalMove>) {
        let forward = mover.color.forward();
        let candidates: Bitboard = [(0, forward), (0, 2 * forward), (-1, forward), (1, forward)]
            .into_iter()
            .filter_map(|(df, dr)| from.offset(df, dr))
            .collect();
        let last_rank = (!mover.color).back_rank();
        for to in candidates {
            let Some((move_type, variant)) = self.pawn_move(mover, from, to) else { continue };
            let squares = MoveSquares::Standard { from, to };
            if to.rank() == last_rank {
                for role in Role::PROMOTIONS {
                    let typed = generated(squares, move_type, variant).typed;
                    moves.push(LegalMove::canonical(typed.with_promotion(Some(Piece::new(mover.color, role)))));
                }
            } else {
                moves.push(generated(squares, move_type, variant));
            }
        }
    }

    /// Type and variant of a pawn's move one or two squares forward or one diagonally, `None`
    /// when the rules forbid it (the same rules as classifying a typed pawn move).
    fn pawn_move(&self, mover: Piece, from: Square, to: Square) -> Option<(MoveType, MoveVariant)> {
        let own_pawn = |piece: Piece| piece == mover;
        if from.file() == to.file() {
            if from.rank().abs_diff(to.rank()) == 2 {
                let start_rank = if mover.color == crate::Color::White { 1 } else { 6 };
                let skipped = from.offset(0, mover.color.forward())?;
                if from.rank() != start_rank || self.full.contains(skipped) {
                    return None;
                }
            }
            let variant = match self.piece_at(to) {
                None => MoveVariant::Basic,
                Some(piece) if own_pawn(piece) => MoveVariant::Basic,
                Some(_) if self.full.contains(to) => return None,
                Some(_) => MoveVariant::Excluded,
            };
            let move_type =
                if from.rank().abs_diff(to.rank()) == 2 { MoveType::PawnTwoStep } else { MoveType::PawnStep };
            return Some((move_type, variant));
        }
        if Some(to) == self.en_passant {
            let variant = match self.piece_at(to) {
                None => MoveVariant::Basic,
                Some(piece) if own_pawn(piece) => MoveVariant::Basic,
                Some(piece) if piece.color != mover.color => MoveVariant::Capture,
                Some(_) if self.full.contains(to) => return None,
                Some(_) => MoveVariant::Excluded,
            };
            return Some((MoveType::PawnEp, variant));
        }
        match self.piece_at(to) {
            Some(piece) if piece.color != mover.color => Some((MoveType::PawnCapture, MoveVariant::Capture)),
            _ => None,
        }
    }

    /// Splits of a non-pawn piece: pairs of targets it reaches (each arm may pass the other
    /// target) that are empty or hold the same kind.
    fn splits(&self, mover: Piece, from: Square, moves: &mut Vec<LegalMove>) {
        let free = !self.blocked_for(mover);
        // Each candidate target with the certainly full squares on its way (at most one: a
        // target behind two pairs with nothing).
        let mut candidates = [(Square::A1, Bitboard::EMPTY); 27];
        let mut count = 0;
        for to in reach_on_empty_board(mover.role, from) & free {
            let blockers = between(from, to) & self.full;
            if blockers.count() <= 1 {
                candidates[count] = (to, blockers);
                count += 1;
            }
        }
        let move_type = if mover.role.is_slider() { MoveType::SplitSlide } else { MoveType::SplitJump };
        let candidates = &candidates[..count];
        for (i, &(to1, blockers1)) in candidates.iter().enumerate() {
            for &(to2, blockers2) in &candidates[i + 1..] {
                // Each arm may pass only the other target.
                if blockers1.without(to2).is_empty() && blockers2.without(to1).is_empty() {
                    moves.push(generated(MoveSquares::Split { from, to1, to2 }, move_type, MoveVariant::Basic));
                }
            }
        }
    }

    /// Merges of two pieces of the same kind (not pawns) onto a square both reach (each arm
    /// may pass the other source) that is empty or holds the same kind.
    fn merges(&self, ours: Bitboard, moves: &mut Vec<LegalMove>) {
        for from1 in ours {
            let Some(piece) = self.piece_at(from1).filter(|p| p.role != Role::Pawn) else { continue };
            // The same kind on higher squares: each pair is listed once, lower source first.
            let above = u64::MAX.checked_shl(u32::from(from1.index()) + 1).unwrap_or(0);
            let partners = Bitboard(self.same_kind(piece).0 & above);
            if partners.is_empty() {
                continue;
            }
            let reach1 = reach_on_empty_board(piece.role, from1);
            let free = !self.blocked_for(piece);
            let move_type = if piece.role.is_slider() { MoveType::MergeSlide } else { MoveType::MergeJump };
            for from2 in partners {
                let targets = reach1 & reach_on_empty_board(piece.role, from2) & free;
                for to in targets.without(from1).without(from2) {
                    let clear1 = (between(from1, to) & self.full).without(from2).is_empty();
                    let clear2 = (between(from2, to) & self.full).without(from1).is_empty();
                    if clear1 && clear2 {
                        moves.push(generated(MoveSquares::Merge { from1, from2, to }, move_type, MoveVariant::Basic));
                    }
                }
            }
        }
    }

    /// Squares `piece` may not split onto or merge onto: those holding another kind of piece.
    fn blocked_for(&self, piece: Piece) -> Bitboard {
        (self.colors[0] | self.colors[1]) & !self.same_kind(piece)
    }

    /// Squares labelled with exactly `piece`.
    fn same_kind(&self, piece: Piece) -> Bitboard {
        self.squares_of(piece)
    }

    /// Checks a move and works out its type and variant from this position.
    ///
    /// A bare move is accepted whatever its variant turns out to be; an `x` or `w` mark or a
    /// piece letter that contradicts the position is refused. The returned move's notation
    /// is canonical (see [`LegalMove`]); split targets and merge sources keep the order given,
    /// and a recorded outcome is kept.
    pub fn validate(&self, mv: &Notation) -> Result<LegalMove, IllegalMove> {
        let illegal = |reason| IllegalMove { text: mv.to_string(), reason };
        match mv {
            Notation::Null => Err(illegal(super::Illegal::NullMove)),
            Notation::Move(algebraic) => self.classify(algebraic).map_err(illegal),
            Notation::Pair(..) | Notation::Measure(..) => Err(illegal(super::Illegal::PairMove)),
        }
    }

    /// Parses a move in official notation and [validates](Position::validate) it.
    pub fn parse_move(&self, text: &str) -> Result<LegalMove, MoveError> {
        let notation: Notation = text.parse()?;
        self.validate(&notation).map_err(|error| MoveError::Illegal(IllegalMove { text: text.to_owned(), ..error }))
    }
}

#[cfg(test)]
mod tests;
