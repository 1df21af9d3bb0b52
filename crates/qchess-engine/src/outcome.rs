//! How moves and games end: the official result codes, PGN results and end reasons.

use std::fmt;
use std::str::FromStr;

use qchess_core::Color;

/// The result code of one move, as the official engine's `do_move` returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveCode {
    /// 0: the move was refused (malformed, illegal, or the board failed).
    Fail,
    /// 1: the move was played and the game goes on.
    Success,
    /// 2: Black has no king left, White has.
    WhiteWin,
    /// 3: White has no king left, Black has.
    BlackWin,
    /// 4: neither side has a king left.
    MutualWin,
    /// 5: the game was drawn with both kings on the board (fifty-move rule or repetition).
    Draw,
}

impl MoveCode {
    /// The official integer code (0 ..= 5).
    pub const fn code(self) -> u8 {
        match self {
            MoveCode::Fail => 0,
            MoveCode::Success => 1,
            MoveCode::WhiteWin => 2,
            MoveCode::BlackWin => 3,
            MoveCode::MutualWin => 4,
            MoveCode::Draw => 5,
        }
    }

    /// The official upper-case name (`WHITE_WIN`).
    pub const fn name(self) -> &'static str {
        match self {
            MoveCode::Fail => "FAIL",
            MoveCode::Success => "SUCCESS",
            MoveCode::WhiteWin => "WHITE_WIN",
            MoveCode::BlackWin => "BLACK_WIN",
            MoveCode::MutualWin => "MUTUAL_WIN",
            MoveCode::Draw => "DRAW",
        }
    }
}

impl fmt::Display for MoveCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A game result as PGN writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GameResult {
    /// `1-0`
    WhiteWins,
    /// `0-1`
    BlackWins,
    /// `1/2-1/2`
    Draw,
    /// `*`: the game goes on.
    #[default]
    Ongoing,
}

impl GameResult {
    /// The PGN token.
    pub const fn token(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Ongoing => "*",
        }
    }

    /// The result in which `color` wins.
    pub const fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// The text is not a PGN result token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{}` is not a result (1-0, 0-1, 1/2-1/2 or *)", qchess_core::text::excerpt(.0))]
pub struct ParseResultError(pub String);

impl FromStr for GameResult {
    type Err = ParseResultError;

    fn from_str(text: &str) -> Result<GameResult, ParseResultError> {
        match text {
            "1-0" => Ok(GameResult::WhiteWins),
            "0-1" => Ok(GameResult::BlackWins),
            "1/2-1/2" => Ok(GameResult::Draw),
            "*" => Ok(GameResult::Ongoing),
            other => Err(ParseResultError(other.to_owned())),
        }
    }
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// One side's king is 100% captured; the other side still has one.
    KingCaptured,
    /// Neither side has a king left.
    BothKingsLost,
    /// The fifty-move counter reached 100 and every square was measured.
    FiftyMoveRule,
    /// A fully classical position occurred for the third time (under the official rules every
    /// square was then measured).
    ThreefoldRepetition,
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move.
    Stalemate,
    /// Neither side has the material left to checkmate.
    InsufficientMaterial,
    /// The loser resigned.
    Resignation,
    /// The loser's clock ran out.
    Time,
    /// Both players agreed to a draw.
    Agreement,
}

impl EndReason {
    /// The reason in words, as `qchess game --json` prints it.
    pub const fn text(self) -> &'static str {
        match self {
            EndReason::KingCaptured => "king captured",
            EndReason::BothKingsLost => "both kings lost",
            EndReason::FiftyMoveRule => "fifty-move rule",
            EndReason::ThreefoldRepetition => "threefold repetition",
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::InsufficientMaterial => "insufficient material",
            EndReason::Resignation => "resignation",
            EndReason::Time => "time",
            EndReason::Agreement => "draw agreed",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// The end of a game: its result, the official code of the move that ended it, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameEnd {
    /// The PGN result.
    pub result: GameResult,
    /// The official code of the move that ended the game.
    pub code: MoveCode,
    /// Why the game ended.
    pub reason: EndReason,
}

impl GameEnd {
    /// A win for `winner`, for `reason`.
    pub const fn win(winner: Color, reason: EndReason) -> GameEnd {
        let code = match winner {
            Color::White => MoveCode::WhiteWin,
            Color::Black => MoveCode::BlackWin,
        };
        GameEnd { result: GameResult::win_for(winner), code, reason }
    }

    /// A draw with both kings on the board, for `reason`.
    pub const fn draw(reason: EndReason) -> GameEnd {
        GameEnd { result: GameResult::Draw, code: MoveCode::Draw, reason }
    }

    /// The end decided by which kings remain: `None` while both sides have one.
    ///
    /// `claim` is the rule that measured the board, if any; it becomes the reason when both
    /// kings remain (a draw) or when the measurement itself took a king away.
    pub fn from_kings(white_king: bool, black_king: bool, claim: Option<EndReason>) -> Option<GameEnd> {
        let (result, code, reason) = match (white_king, black_king) {
            (true, true) => {
                let reason = claim?;
                (GameResult::Draw, MoveCode::Draw, reason)
            }
            (true, false) => (GameResult::WhiteWins, MoveCode::WhiteWin, EndReason::KingCaptured),
            (false, true) => (GameResult::BlackWins, MoveCode::BlackWin, EndReason::KingCaptured),
            (false, false) => (GameResult::Draw, MoveCode::MutualWin, EndReason::BothKingsLost),
        };
        Some(GameEnd { result, code, reason: claim.unwrap_or(reason) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_official_ones() {
        let codes: Vec<u8> = [
            MoveCode::Fail,
            MoveCode::Success,
            MoveCode::WhiteWin,
            MoveCode::BlackWin,
            MoveCode::MutualWin,
            MoveCode::Draw,
        ]
        .iter()
        .map(|c| c.code())
        .collect();
        assert_eq!(codes, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(MoveCode::MutualWin.to_string(), "MUTUAL_WIN");
    }

    #[test]
    fn results_round_trip() {
        for result in [GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw, GameResult::Ongoing] {
            assert_eq!(result.token().parse::<GameResult>(), Ok(result));
        }
        assert!("2-0".parse::<GameResult>().is_err());
    }

    #[test]
    fn kings_decide_the_end() {
        assert_eq!(GameEnd::from_kings(true, true, None), None);
        let end = GameEnd::from_kings(true, false, None).expect("ended");
        assert_eq!(
            (end.result, end.code, end.reason),
            (GameResult::WhiteWins, MoveCode::WhiteWin, EndReason::KingCaptured)
        );
        let end = GameEnd::from_kings(false, false, None).expect("ended");
        assert_eq!(
            (end.result, end.code, end.reason),
            (GameResult::Draw, MoveCode::MutualWin, EndReason::BothKingsLost)
        );
        let end = GameEnd::from_kings(true, true, Some(EndReason::FiftyMoveRule)).expect("ended");
        assert_eq!((end.result, end.code), (GameResult::Draw, MoveCode::Draw));
        let end = GameEnd::from_kings(false, true, Some(EndReason::FiftyMoveRule)).expect("ended");
        assert_eq!((end.result, end.reason), (GameResult::BlackWins, EndReason::FiftyMoveRule));
    }
}
