//! Analysis: what a position is worth, the best move, and how good each move of a game was.
//!
//! Every value is the search's exact chance-node value
//! ([`SearchLimits::every_root_value`]): a move that measures is worth each outcome's value
//! weighed by that outcome's exact probability, so a split that only might lose the queen is
//! scored by the probability that it does. The search plays for expected score at
//! [`SCORE_SCALE`] ([`crate::score`]), so the chances mix linearly in expected score too: a
//! move that loses the king with probability 0.3 in an even game keeps 0.7 of an even game's
//! expected score, 0.35. A move is judged by what it gave away: the
//! expected score (0 to 1, [`expected_score`]) of the best move less that of the move played,
//! both from the mover's view, before the dice of its measurement were rolled. The
//! judgements follow the usual chess thresholds on that loss: an inaccuracy from
//! [`INACCURACY`], a mistake from [`MISTAKE`], a blunder from [`BLUNDER`].

use qchess_core::{AlgebraicMove, Color, Notation};
use qchess_engine::record::{GameRecord, ReplayError};
use qchess_engine::{Game, GameError};
use std::fmt;
use std::sync::Arc;

use crate::{CERTAIN_WIN, SearchConfig, SearchControl, SearchError, SearchInfo, SearchLimits, Searcher};

/// Expected-score loss from which a move is an inaccuracy.
pub const INACCURACY: f64 = 0.10;
/// ... a mistake.
pub const MISTAKE: f64 = 0.20;
/// ... a blunder.
pub const BLUNDER: f64 = 0.30;

/// Centipawns that turn an even game into a 10-to-1 favourite: the scale of the logistic
/// curve from values to expected scores ([`expected_score`]), the Elo convention. (The fit of
/// the evaluation to `ai:2` self-play games, [`crate::tune`], found a flatter curve, about
/// 2170 centipawns: such games turn an advantage into a win less surely than careful play
/// does, and a coach judges the moves of careful play.)
pub const SCORE_SCALE: f64 = 400.0;

/// The expected score (0 to 1) of a value in centipawns for the side it belongs to: certain
/// wins and losses are 1 and 0, every other value goes through the logistic curve
/// `1 / (1 + 10^(-value / SCORE_SCALE))`. For the values of an analysis (a search for expected
/// score at this scale) it is exact: a value mixing a chance on a king with a position reads
/// as the mixture of their expected scores.
pub fn expected_score(value: f64) -> f64 {
    if value >= CERTAIN_WIN {
        1.0
    } else if value <= -CERTAIN_WIN {
        0.0
    } else {
        1.0 / (1.0 + 10f64.powf(-value / SCORE_SCALE))
    }
}

/// How good a move was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Judgement {
    /// The best move (or as good as it).
    Best,
    /// Lost less expected score than an inaccuracy.
    Good,
    /// Lost at least [`INACCURACY`].
    Inaccuracy,
    /// Lost at least [`MISTAKE`].
    Mistake,
    /// Lost at least [`BLUNDER`].
    Blunder,
}

impl Judgement {
    /// The judgement of a move that lost `loss` expected score; `best` when it was the best.
    pub fn of(loss: f64, best: bool) -> Judgement {
        if best || loss <= 1e-9 {
            Judgement::Best
        } else if loss >= BLUNDER {
            Judgement::Blunder
        } else if loss >= MISTAKE {
            Judgement::Mistake
        } else if loss >= INACCURACY {
            Judgement::Inaccuracy
        } else {
            Judgement::Good
        }
    }

    /// Whether the move is marked (an inaccuracy, a mistake or a blunder).
    pub fn is_marked(self) -> bool {
        matches!(self, Judgement::Inaccuracy | Judgement::Mistake | Judgement::Blunder)
    }
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Judgement::Best => "best",
            Judgement::Good => "good",
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        })
    }
}

/// Why an analysis could not be made.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// The record does not replay.
    #[error("the record does not replay")]
    Replay(#[source] Box<ReplayError>),
    /// The search could not run on a position.
    #[error("searching the position before ply {ply}")]
    Search {
        /// The ply (from 1) whose position was searched.
        ply: usize,
        /// What went wrong.
        #[source]
        source: SearchError,
    },
    /// The game is over or has no legal move: there is nothing to evaluate.
    #[error("the game is over; there is no move to evaluate")]
    Over,
    /// The analysis was stopped (its [`SearchControl`]) before it finished: what it had
    /// found would be judged on unfinished searches.
    #[error("the analysis was stopped before it finished")]
    Stopped,
    /// The played move could not be searched: the search's own board refused it.
    #[error("ply {ply}: the search could not play `{mv}` on its copy of the game")]
    NotSearched {
        /// The ply, from 1.
        ply: usize,
        /// The move as written.
        mv: String,
    },
    /// A move of the record could not be taken back to reach the position before it.
    #[error("ply {ply} could not be taken back to search the position before it")]
    Rewind {
        /// The ply, from 1.
        ply: usize,
        /// What went wrong.
        #[source]
        source: GameError,
    },
    /// The played action is no move the search plays (a measurement of the checkmate rules).
    #[error("ply {ply}: `{mv}` is not a move the search judges")]
    NotAMove {
        /// The ply, from 1.
        ply: usize,
        /// The action as written.
        mv: String,
    },
}

/// What a position is worth and how to play it.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The value for the side to move, in centipawns (certain wins near
    /// [`WIN`](crate::WIN)).
    pub score: f64,
    /// The side to move.
    pub turn: Color,
    /// White's expected score, 0 to 1 (what an evaluation bar shows).
    pub white_expected: f64,
    /// The best move as written (a pair under the observer rules).
    pub best: Notation,
    /// The expected line from the best move (through the likelier outcome of each
    /// measurement).
    pub line: Vec<AlgebraicMove>,
    /// Every move with its value for the side to move, best first.
    pub moves: Vec<(Notation, f64)>,
    /// The depth the values come from.
    pub depth: u32,
}

/// Evaluates `game`'s position within `limits` (every root move gets its exact value), until
/// `control` says stop.
pub fn evaluate_position(
    game: &Game,
    config: SearchConfig,
    limits: &SearchLimits,
    control: &Arc<SearchControl>,
) -> Result<Evaluation, AnalysisError> {
    if game.is_over() {
        return Err(AnalysisError::Over);
    }
    let found = root_values(game, config, limits, &[], control)?;
    let turn = game.turn();
    let white_expected =
        if turn == Color::White { expected_score(found.score) } else { 1.0 - expected_score(found.score) };
    Ok(Evaluation {
        score: found.score,
        turn,
        white_expected,
        best: found.to_play(),
        line: found.pv.clone(),
        moves: found.root_values.clone(),
        depth: found.depth,
    })
}

/// A search of every root move (or of `only` those, as written) with exact values, or
/// [`AnalysisError::Stopped`] when `control` stopped it before it finished. At least one ply
/// is always searched: when the time runs out before the first iteration finishes, that
/// iteration is searched again without a time limit, since values from an unfinished one
/// would judge moves by the few that were searched.
fn root_values(
    game: &Game,
    config: SearchConfig,
    limits: &SearchLimits,
    only: &[Notation],
    control: &Arc<SearchControl>,
) -> Result<SearchInfo, AnalysisError> {
    let limits = SearchLimits { every_root_value: true, ..*limits };
    // Searched for expected score at the judgements' own scale, so the expected score of
    // every value is exact: the chances a move's measurements mix, weighed linearly.
    let config = SearchConfig { score_scale: Some(SCORE_SCALE), ..config };
    let search = |limits: &SearchLimits| {
        Searcher::new(config)
            .search_with(game, limits, only, control, &mut |_| {})
            .map_err(|source| AnalysisError::Search { ply: game.moves().len() + 1, source })
    };
    let mut found = search(&limits)?;
    if found.depth == 0 && !control.is_stopped() {
        found = search(&SearchLimits { depth: Some(1), nodes: None, movetime: None, clock: None, ..limits })?;
    }
    if control.is_stopped() {
        return Err(AnalysisError::Stopped);
    }
    Ok(found)
}

/// How one move of a game was judged.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveReview {
    /// The ply, from 1.
    pub ply: usize,
    /// Who moved.
    pub mover: Color,
    /// The move as declared (a pair under the observer rules), with the outcome that
    /// happened.
    pub played: Notation,
    /// The position's value before the move for the mover: the best move's value.
    pub before: f64,
    /// The played move's value for the mover: each outcome weighed by its probability.
    pub after: f64,
    /// The best move, when it is not the one played (the best alternative otherwise).
    pub best: Option<Notation>,
    /// The best move's value, or the best alternative's (the second best) when the played
    /// move was the best; `None` when there was no other move.
    pub best_value: Option<f64>,
    /// The expected score the move gave away (0 for the best).
    pub loss: f64,
    /// What the loss makes of the move.
    pub judgement: Judgement,
    /// The depth of the values.
    pub depth: u32,
}

/// Judges the move `played` in `game` (the position before it) from a search within `limits`,
/// until `control` says stop.
pub fn review_move(
    game: &Game,
    played: &Notation,
    config: SearchConfig,
    limits: &SearchLimits,
    control: &Arc<SearchControl>,
) -> Result<MoveReview, AnalysisError> {
    let ply = game.moves().len() + 1;
    let found = root_values(game, config, limits, &[], control)?;
    let mut values = found.root_values.clone();
    let mut depth = found.depth;
    // A move the full search did not list as played (written in another order than the
    // generator's, or past the state budget) is searched on its own, as written.
    if !values.iter().any(|(mv, _)| same_notation(mv, played)) {
        if !matches!(played, Notation::Move(_) | Notation::Pair(..)) {
            return Err(AnalysisError::NotAMove { ply, mv: played.to_string() });
        }
        let alone = root_values(game, config, limits, &[*played], control)?;
        values.extend(alone.root_values.into_iter().filter(|(mv, _)| same_notation(mv, played)));
        depth = depth.min(alone.depth);
    }
    let Some(after) = values.iter().find(|(mv, _)| same_notation(mv, played)).map(|(_, v)| *v) else {
        return Err(AnalysisError::NotSearched { ply, mv: played.to_string() });
    };
    let before = values.first().map_or(after, |(_, v)| *v).max(after);
    let was_best = values.first().is_some_and(|(mv, _)| same_notation(mv, played)) || after >= before;
    // The first other move: the best when the played one was not, the runner-up when it was.
    let alternative = values.iter().find(|(mv, _)| !same_notation(mv, played)).copied();
    let (best, best_value) = alternative.map_or((None, None), |(mv, value)| (Some(mv), Some(value)));
    let loss = (expected_score(before) - expected_score(after)).max(0.0);
    Ok(MoveReview {
        ply,
        mover: game.turn(),
        played: *played,
        before,
        after,
        best,
        best_value,
        loss,
        judgement: Judgement::of(loss, was_best),
        depth,
    })
}

/// Judges the last move of `game` (from a search of the position before it within `limits`,
/// until `control` says stop); `None` before the first move.
pub fn review_last_move(
    game: &Game,
    config: SearchConfig,
    limits: &SearchLimits,
    control: &Arc<SearchControl>,
) -> Option<Result<MoveReview, AnalysisError>> {
    let last = game.moves().last()?.declared;
    let ply = game.moves().len();
    // Taken back on a replayed copy: the game's end, its claim's measurement and its mode
    // changes after the move go with it.
    let before = GameRecord::from_game(game, &Default::default())
        .replay()
        .map_err(|e| AnalysisError::Replay(Box::new(e)))
        .and_then(|mut copy| copy.undo().map(|_| copy).map_err(|source| AnalysisError::Rewind { ply, source }));
    Some(before.and_then(|before| review_move(&before, &last, config, limits, control)))
}

/// Judges every move of a game record (the checkmate rules' measurements aside), each from a
/// search within `limits`, until `control` says stop; `progress` hears of each move as it is
/// judged.
pub fn review_game(
    record: &GameRecord,
    config: SearchConfig,
    limits: &SearchLimits,
    control: &Arc<SearchControl>,
    progress: &mut dyn FnMut(&MoveReview),
) -> Result<Vec<MoveReview>, AnalysisError> {
    let game = record.replay().map_err(|e| AnalysisError::Replay(Box::new(e)))?;
    let played: Vec<Notation> = game.moves().iter().map(|m| m.declared).collect();
    let mut positions = Vec::with_capacity(played.len());
    let mut rewind = game;
    // The position before each move, from the last back to the first.
    for ply in (1..=played.len()).rev() {
        rewind.undo().map_err(|source| AnalysisError::Rewind { ply, source })?;
        positions.push(GameRecord::from_game(&rewind, &Default::default()));
    }
    positions.reverse();
    let mut reviews = Vec::with_capacity(positions.len());
    for (before, mv) in positions.iter().zip(&played) {
        let game = before.replay().map_err(|e| AnalysisError::Replay(Box::new(e)))?;
        // Measurements of the checkmate rules are actions, not moves: they are not judged.
        if !matches!(mv, Notation::Move(_) | Notation::Pair(..)) {
            continue;
        }
        let review = review_move(&game, mv, config, limits, control)?;
        progress(&review);
        reviews.push(review);
    }
    Ok(reviews)
}

/// Whether two moves as written are the same move, outcomes aside.
fn same_notation(a: &Notation, b: &Notation) -> bool {
    let same = |x: &AlgebraicMove, y: &AlgebraicMove| x.squares == y.squares && x.promotion == y.promotion;
    match (a, b) {
        (Notation::Move(x), Notation::Move(y)) => same(x, y),
        (Notation::Pair(x1, x2), Notation::Pair(y1, y2)) => same(x1, y1) && same(x2, y2),
        _ => false,
    }
}
