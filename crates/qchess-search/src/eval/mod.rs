//! The evaluation: a score of the exact state, in centipawns, from the side to move's view.
//!
//! Every term weighs each square by its exact occupancy probability, so a knight split half on
//! a3 and half on c3 counts as half a knight on each square. The terms, summed for the side to
//! move and subtracted for the opponent:
//!
//! - **Material**: the expected material, `value(piece) * P(square occupied)` over every
//!   non-king piece.
//! - **King capture**: the probability that the enemy king can be captured by one move, taken
//!   as the best single capture `P(king on k) * P(attacker present) * P(path clear)`. For the
//!   side to move this is a threat it can carry out now (weighted by
//!   [`Weights::king_capture_now`]); against the side to move it is a danger it still has one
//!   move to answer ([`Weights::king_danger`]).
//! - **Mobility**: squares each piece reaches (certainly full squares block, superposed ones do
//!   not, as the rules say), times the piece's probability.
//! - **Piece-square**: pawns gain for advancing, knights, bishops and queens for the centre,
//!   the king for staying on its back rank; times the probability.
//! - **King superposition**: `1 - max P(king square)`: a king spread over several squares cannot
//!   be captured with certainty by one move.
//! - **King presence**: `P(king present)`, the sum over its squares: a king partly captured
//!   loses the games in which the rest of it is found missing. A claim (fifty moves,
//!   repetition) measures every square and is decided by exactly that, and it is the end of
//!   more than a third of the games between the search's levels.
//!
//! All weights are in [`Weights`], the one place to tune them.

mod king;
mod terms;

use qchess_core::classical::piece_attacks;
use qchess_core::{Bitboard, Color, Piece, Position, Role, Square};

pub use king::king_capture_probability;
use king::king_spread;
pub use terms::{KeptTerms, SquareValues};

/// The weights of every evaluation term, in centipawns. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Value of a pawn, knight, bishop, rook and queen (the king is not material: losing it
    /// ends the game).
    pub material: [f64; 5],
    /// Per unit of probability that the side to move can capture the enemy king now.
    pub king_capture_now: f64,
    /// Per unit of probability that the opponent could capture the side to move's king.
    pub king_danger: f64,
    /// Per reachable square, per unit of probability of the piece.
    pub mobility: f64,
    /// Scale of the piece-square tables (1 = as written in [`piece_square`]).
    pub piece_square: f64,
    /// Per unit of `1 - max P(king square)`.
    pub king_superposition: f64,
    /// For having the move.
    pub tempo: f64,
    /// Per unit of probability that the king is present.
    pub king_presence: f64,
}

impl Default for Weights {
    /// The weights as set by hand. A fit to the outcomes of 1500 `ai:2` self-play games
    /// (`scripts/tune-eval.sh`, [`crate::tune`]) moved the pawn to 146, the rook to 568, the
    /// piece-square scale to 1.42 and the king superposition weight to 17.5, but the fitted
    /// weights only drew level with these in a match at `ai:4` (README, "Strength"), so these
    /// stay.
    fn default() -> Weights {
        Weights {
            material: [100.0, 310.0, 330.0, 500.0, 900.0],
            king_capture_now: 600.0,
            king_danger: 150.0,
            mobility: 3.0,
            piece_square: 1.0,
            king_superposition: 40.0,
            tempo: 10.0,
            king_presence: 1000.0,
        }
    }
}

impl Weights {
    /// Expected material only: what the one-ply `greedy` player maximises.
    pub fn material_only() -> Weights {
        Weights {
            king_capture_now: 0.0,
            king_danger: 0.0,
            mobility: 0.0,
            piece_square: 0.0,
            king_superposition: 0.0,
            tempo: 0.0,
            king_presence: 0.0,
            ..Weights::default()
        }
    }

    /// The weights in the order of [`terms`]: material of pawn to queen, piece-square scale,
    /// mobility, king superposition, king capture now, king danger, tempo, king presence.
    pub fn to_vector(&self) -> [f64; TERMS] {
        let m = self.material;
        [
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            self.piece_square,
            self.mobility,
            self.king_superposition,
            self.king_capture_now,
            self.king_danger,
            self.tempo,
            self.king_presence,
        ]
    }

    /// The weights from a vector in the order of [`terms`].
    pub fn from_vector(v: [f64; TERMS]) -> Weights {
        Weights {
            material: [v[0], v[1], v[2], v[3], v[4]],
            piece_square: v[5],
            mobility: v[6],
            king_superposition: v[7],
            king_capture_now: v[8],
            king_danger: v[9],
            tempo: v[10],
            king_presence: v[11],
        }
    }

    /// The material value of a role (0 for the king).
    pub fn value(&self, role: Role) -> f64 {
        match role {
            Role::Pawn => self.material[0],
            Role::Knight => self.material[1],
            Role::Bishop => self.material[2],
            Role::Rook => self.material[3],
            Role::Queen => self.material[4],
            Role::King => 0.0,
        }
    }
}

/// The score of `position` for the side to move, in centipawns.
pub fn evaluate(position: &Position, weights: &Weights) -> f64 {
    evaluate_with(position, weights, &KeptTerms::new(position, &SquareValues::new(weights)))
}

/// [`evaluate`] given the terms a search keeps up to date move by move ([`KeptTerms`]:
/// material, piece-square and mobility): the king terms and the tempo are computed here.
pub fn evaluate_with(position: &Position, weights: &Weights, terms: &KeptTerms) -> f64 {
    let us = position.turn();
    let squares = if us == Color::White { terms.squares() } else { -terms.squares() };
    let mut score = squares + weights.mobility * (terms.mobility(us) - terms.mobility(!us));
    score += weights.king_superposition * (king_spread(position, us) - king_spread(position, !us));
    score += weights.king_presence * (position.king_presence(us) - position.king_presence(!us));
    score += weights.tempo;
    score += weights.king_capture_now * king_capture_probability(position, !us);
    score -= weights.king_danger * king_capture_probability(position, us);
    score
}

/// How many terms the evaluation weighs: [`terms`] and [`Weights::to_vector`].
pub const TERMS: usize = 12;

/// The evaluation's terms for the side to move, in the order of [`Weights::to_vector`]:
/// [`evaluate`] is their sum weighed by the weights. Material of each role (pawn to queen)
/// and the piece-square bonus, the side to move's less the opponent's; mobility, likewise;
/// king spread, likewise; the probability that the side to move can capture the enemy king
/// now; minus the probability that its own king can be captured; 1 for the tempo; and the
/// kings' presence, the side to move's less the opponent's. What a fit of the weights to game
/// outcomes works with ([`crate::tune`]).
pub fn terms(position: &Position) -> [f64; TERMS] {
    let us = position.turn();
    let mut terms = [0.0; TERMS];
    for square in position.pieces_of(Color::White) | position.pieces_of(Color::Black) {
        let Some(piece) = position.piece_at(square) else { continue };
        let p = if piece.color == us { 1.0 } else { -1.0 } * position.probability(square);
        if let Some(role) =
            [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen].iter().position(|&r| r == piece.role)
        {
            terms[role] += p;
        }
        terms[5] += p * piece_square(piece, square);
    }
    let kept = KeptTerms::new(position, &SquareValues::new(&Weights::default()));
    terms[6] = kept.mobility(us) - kept.mobility(!us);
    terms[7] = king_spread(position, us) - king_spread(position, !us);
    terms[8] = king_capture_probability(position, !us);
    terms[9] = -king_capture_probability(position, us);
    terms[10] = 1.0;
    terms[11] = position.king_presence(us) - position.king_presence(!us);
    terms
}

/// The squares a piece reaches with standard moves (pawns: their forward steps), slides
/// stopped by `blockers` (the first blocker included).
pub fn reach(piece: Piece, from: Square, blockers: Bitboard) -> Bitboard {
    match piece.role {
        Role::Pawn => match from.offset(0, piece.color.forward()) {
            Some(step) if !blockers.contains(step) => Bitboard::from_square(step),
            _ => Bitboard::EMPTY,
        },
        _ => piece_attacks(piece, from, blockers),
    }
}

/// The piece-square bonus of `piece` on `square`, in centipawns.
pub fn piece_square(piece: Piece, square: Square) -> f64 {
    let rank = if piece.color == Color::White { square.rank() } else { 7 - square.rank() };
    let file_centre = 3.5 - (f64::from(square.file()) - 3.5).abs();
    let rank_centre = 3.5 - (f64::from(square.rank()) - 3.5).abs();
    let centre = file_centre.min(rank_centre);
    match piece.role {
        Role::Pawn => 6.0 * f64::from(rank.saturating_sub(1)) + 2.0 * file_centre,
        Role::Knight => 10.0 * centre - 10.0,
        Role::Bishop | Role::Queen => 5.0 * centre - 5.0,
        Role::Rook => {
            if rank == 6 {
                15.0
            } else {
                0.0
            }
        }
        Role::King => {
            if rank == 0 {
                15.0
            } else {
                -8.0 * f64::from(rank)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qchess_core::Fen;

    fn position(fen: &str) -> Position {
        Position::from_fen(&fen.parse::<Fen>().unwrap()).unwrap()
    }

    #[test]
    fn the_start_is_balanced_but_for_the_tempo() {
        let start = Position::start();
        let weights = Weights::default();
        assert!((evaluate(&start, &weights) - weights.tempo).abs() < 1e-9);
    }

    #[test]
    fn an_extra_queen_is_worth_about_a_queen() {
        let weights = Weights::material_only();
        let up = position("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
        assert!((evaluate(&up, &weights) - 900.0).abs() < 1e-9);
        let down = position("4k3/8/8/8/8/8/8/3QK3 b - - 0 1");
        assert!((evaluate(&down, &weights) + 900.0).abs() < 1e-9);
    }

    #[test]
    fn the_evaluation_is_its_terms_weighed_by_the_weights() {
        let weights = Weights { mobility: 2.5, tempo: 7.0, ..Weights::default() };
        assert_eq!(Weights::from_vector(weights.to_vector()), weights);
        let mut game = qchess_engine::Game::standard();
        for mv in ["b1^a3c3", "e7e5", "g1f3", "d8g5", "f3xg5", "e8e7", "a3c3^b1"] {
            game.play(mv).unwrap();
            let position = game.position();
            let sum: f64 = terms(position).iter().zip(weights.to_vector()).map(|(t, w)| t * w).sum();
            let value = evaluate(position, &weights);
            assert!((sum - value).abs() < 1e-9, "after {mv}: terms give {sum}, the evaluation {value}");
        }
    }

    #[test]
    fn a_partly_captured_king_counts_by_its_presence() {
        let fen: qchess_core::Fen = "4k3/8/8/8/8/8/8/3RK3 b - - 0 1".parse().unwrap();
        let mut game = qchess_engine::Game::new(&fen, qchess_engine::GameOptions::default()).unwrap();
        game.play("e8^d8f8").unwrap();
        game.play("d1xd8").unwrap();
        let weights = Weights { king_presence: 1000.0, ..Weights::material_only() };
        // Black to move, a rook down, and half its king taken with d8.
        assert!((game.position().king_presence(Color::Black) - 0.5).abs() < 1e-9);
        assert!((evaluate(game.position(), &weights) - (-500.0 - 500.0)).abs() < 1e-9);
    }

    #[test]
    fn a_king_in_reach_is_capturable_now() {
        let open = position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        assert_eq!(king_capture_probability(&open, Color::Black), 0.0);
        let attacked = position("r3k3/8/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(king_capture_probability(&attacked, Color::Black), 0.0);
        let on_file = position("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1");
        assert_eq!(king_capture_probability(&on_file, Color::Black), 1.0);
        let blocked = position("4k3/4p3/8/8/8/8/8/4R1K1 w - - 0 1");
        assert_eq!(king_capture_probability(&blocked, Color::Black), 0.0);
    }
}
