//! What the engine reports besides `bestmove`: the `info` line of an iteration, the `multipv`
//! lines of the best root moves, and the judgement of the last move (option `Analyse`).

use qchess_engine::Game;

use crate::analysis::{MoveReview, review_last_move};
use crate::{CERTAIN_WIN, SearchConfig, SearchControl, SearchInfo, SearchLimits, WIN};

/// A score as UQCI writes it: `cp N`, or `mate N` for a certain king capture N moves on
/// (negative when the side to move's king is captured).
pub fn score_text(score: f64) -> String {
    if score.abs() >= CERTAIN_WIN {
        let plies = (WIN - score.abs()).round() as i64;
        if score > 0.0 { format!("mate {}", (plies + 1) / 2) } else { format!("mate -{}", plies / 2) }
    } else {
        format!("cp {}", score.round() as i64)
    }
}

/// The `info` line of a search result.
pub fn info_line(info: &SearchInfo) -> String {
    let pv: Vec<String> = info.pv.iter().map(ToString::to_string).collect();
    format!(
        "info depth {} seldepth {} nodes {} nps {} time {} score {} pv {}",
        info.depth,
        info.seldepth,
        info.nodes,
        info.nodes_per_second(),
        info.elapsed.as_millis(),
        score_text(info.score),
        pv.join(" ")
    )
}

/// The `info ... multipv K` lines of the `count` best root moves (from an iteration that
/// valued every root move); the first carries the whole expected line.
pub fn multipv_lines(info: &SearchInfo, count: usize) -> Vec<String> {
    info.root_values
        .iter()
        .take(count)
        .enumerate()
        .map(|(index, (mv, value))| {
            let line = if index == 0 && info.pv.first().is_some_and(|first| mv.to_string() == first.to_string()) {
                info.pv.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
            } else {
                mv.to_string()
            };
            format!(
                "info depth {} seldepth {} multipv {} score {} nodes {} nps {} time {} pv {line}",
                info.depth,
                info.seldepth,
                index + 1,
                score_text(*value),
                info.nodes,
                info.nodes_per_second(),
                info.elapsed.as_millis(),
            )
        })
        .collect()
}

/// The judgement of the last move of `game` (searched within `limits` from the position
/// before it), as `info string judgement ...`; `None` before the first move. A judgement
/// that cannot be made is reported as such.
pub fn judge_last_move(game: &Game, config: SearchConfig, limits: &SearchLimits) -> Option<String> {
    Some(match review_last_move(game, config, limits, &SearchControl::new())? {
        Ok(review) => judgement_line(&review),
        Err(error) => format!("info string judgement: {}", qchess_core::text::with_causes(&error)),
    })
}

/// `info string judgement ply P move M before B after A best X bestvalue Y loss L judgement J`:
/// values as UQCI scores for the mover, the loss as expected score (0 to 1).
pub fn judgement_line(review: &MoveReview) -> String {
    let best = review
        .best
        .map(|mv| format!(" best {mv} bestvalue {}", review.best_value.map_or_else(|| "none".to_owned(), score_text)))
        .unwrap_or_default();
    format!(
        "info string judgement ply {} move {} before {} after {}{best} loss {:.4} judgement {}",
        review.ply,
        review.played,
        score_text(review.before),
        score_text(review.after),
        review.loss,
        review.judgement
    )
}
