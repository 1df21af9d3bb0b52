//! A board of pieces as the observer and checkmate rules see it: every square that may hold a
//! piece holds it (both halves of a superposed piece stand), and how standard moves change
//! it. Pieces block slides, except on the squares in `see_through`.

use qchess_core::{Bitboard, CastlingRights, CastlingSide, Color, Piece, Position, Role, Square};

const KNIGHT: [(i8, i8); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const KING: [(i8, i8); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];
const ROOK: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
const BISHOP: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];

/// Pieces by square, with the en-passant square and castling rights of the position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Board {
    pub pieces: [Option<Piece>; 64],
    pub en_passant: Option<Square>,
    pub castling: CastlingRights,
    /// Squares whose piece does not block slides (the checkmate rules' superposed squares).
    pub see_through: Bitboard,
}

/// A standard move on a [`Board`]: squares and promotion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Step {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
}

impl Board {
    /// The board of a position: each labelled square (labels stand only where a piece may be).
    pub fn of(position: &Position) -> Board {
        Board {
            pieces: *position.board(),
            en_passant: position.en_passant(),
            castling: position.castling(),
            see_through: Bitboard::EMPTY,
        }
    }

    pub fn at(&self, square: Square) -> Option<Piece> {
        self.pieces[usize::from(square)]
    }

    /// This board with `square` emptied (the half of a collapsed piece that was not there).
    pub fn without(&self, square: Square) -> Board {
        let mut board = self.clone();
        board.pieces[usize::from(square)] = None;
        board
    }

    /// Squares a piece on `from` attacks: slides stop at the first piece.
    pub fn attacks(&self, from: Square, piece: Piece) -> Vec<Square> {
        let leaps = |offsets: &[(i8, i8)]| offsets.iter().filter_map(|&(df, dr)| from.offset(df, dr)).collect();
        match piece.role {
            Role::Knight => leaps(&KNIGHT),
            Role::King => leaps(&KING),
            Role::Pawn => leaps(&[(-1, piece.color.forward()), (1, piece.color.forward())]),
            Role::Bishop => self.rays(from, &BISHOP),
            Role::Rook => self.rays(from, &ROOK),
            Role::Queen => [self.rays(from, &BISHOP), self.rays(from, &ROOK)].concat(),
        }
    }

    fn rays(&self, from: Square, directions: &[(i8, i8)]) -> Vec<Square> {
        let mut squares = Vec::new();
        for &(df, dr) in directions {
            let mut at = from;
            while let Some(next) = at.offset(df, dr) {
                squares.push(next);
                if self.at(next).is_some() && !self.see_through.contains(next) {
                    break;
                }
                at = next;
            }
        }
        squares
    }

    /// Whether a piece of `by` (any half) attacks `square`.
    pub fn attacked(&self, square: Square, by: Color) -> bool {
        Square::ALL.into_iter().any(|from| {
            self.at(from).is_some_and(|piece| piece.color == by && self.attacks(from, piece).contains(&square))
        })
    }

    /// Whether any square of `color`'s king (either half) is attacked.
    pub fn king_attacked(&self, color: Color) -> bool {
        let king = Piece::new(color, Role::King);
        Square::ALL.into_iter().any(|sq| self.at(sq) == Some(king) && self.attacked(sq, !color))
    }

    /// The standard moves of the piece on `from` (castling aside): onto empty squares and
    /// opponent pieces, pawns forward onto empty squares and diagonally onto opponent pieces or
    /// the en-passant square, promotions to each piece.
    pub fn steps(&self, from: Square) -> Vec<Step> {
        let Some(piece) = self.at(from) else { return Vec::new() };
        let opponent = |sq: Square| self.at(sq).is_some_and(|p| p.color != piece.color);
        let mut targets: Vec<Square> = match piece.role {
            Role::Pawn => {
                let forward = piece.color.forward();
                let mut targets = Vec::new();
                if let Some(one) = from.offset(0, forward).filter(|&sq| self.at(sq).is_none()) {
                    targets.push(one);
                    let home = if piece.color == Color::White { 1 } else { 6 };
                    if from.rank() == home
                        && let Some(two) = one.offset(0, forward).filter(|&sq| self.at(sq).is_none())
                    {
                        targets.push(two);
                    }
                }
                let captures = self.attacks(from, piece).into_iter();
                targets.extend(captures.filter(|&sq| opponent(sq) || Some(sq) == self.en_passant));
                targets
            }
            _ => self.attacks(from, piece).into_iter().filter(|&sq| self.at(sq).is_none() || opponent(sq)).collect(),
        };
        targets.sort_unstable();
        let last_rank = if piece.color == Color::White { 7 } else { 0 };
        let mut steps = Vec::new();
        for to in targets {
            if piece.role == Role::Pawn && to.rank() == last_rank {
                for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    steps.push(Step { from, to, promotion: Some(role) });
                }
            } else {
                steps.push(Step { from, to, promotion: None });
            }
        }
        steps
    }

    /// The castles `color` may make: rights held, king and rook home, the squares between
    /// empty, and the king neither in check nor passing or landing on an attacked square.
    pub fn castles(&self, color: Color) -> Vec<Step> {
        let rank = color.back_rank();
        let square = |file: u8| Square::from_coords(file, rank);
        let (Some(king_home), king) = (square(4), Piece::new(color, Role::King)) else { return Vec::new() };
        if self.at(king_home) != Some(king) || self.king_attacked(color) {
            return Vec::new();
        }
        let mut castles = Vec::new();
        for side in CastlingSide::ALL {
            let rook = side.rook_from(color);
            let (between, passed): (&[u8], [u8; 2]) = match side {
                CastlingSide::KingSide => (&[5, 6], [5, 6]),
                CastlingSide::QueenSide => (&[1, 2, 3], [3, 2]),
            };
            let clear = between.iter().filter_map(|&f| square(f)).all(|sq| self.at(sq).is_none());
            let safe = passed.iter().filter_map(|&f| square(f)).all(|sq| !self.attacked(sq, !color));
            if self.castling.has(color, side) && self.at(rook) == Some(Piece::new(color, Role::Rook)) && clear && safe {
                castles.push(Step { from: king_home, to: side.king_to(color), promotion: None });
            }
        }
        castles
    }

    /// The board after `step` (a castle moves its rook too, en passant removes its pawn).
    pub fn after(&self, step: Step) -> Board {
        let mut board = self.clone();
        let Some(piece) = self.at(step.from) else { return board };
        board.pieces[usize::from(step.from)] = None;
        if piece.role == Role::Pawn
            && Some(step.to) == self.en_passant
            && self.at(step.to).is_none()
            && let Some(victim) = Square::from_coords(step.to.file(), step.from.rank())
        {
            board.pieces[usize::from(victim)] = None;
        }
        if piece.role == Role::King && step.from.file() == 4 && step.to.file().abs_diff(4) == 2 {
            let side = if step.to.file() == 6 { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            board.pieces[usize::from(side.rook_from(piece.color))] = None;
            board.pieces[usize::from(side.rook_to(piece.color))] = Some(Piece::new(piece.color, Role::Rook));
        }
        let placed = step.promotion.map_or(piece, |role| Piece::new(piece.color, role));
        board.pieces[usize::from(step.to)] = Some(placed);
        board.en_passant = None;
        board
    }
}
