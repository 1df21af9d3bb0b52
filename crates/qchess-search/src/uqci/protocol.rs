//! UQCI commands as text: parsing what a GUI sends.
//!
//! Unknown commands parse to `None` (UCI says an engine ignores them); a known command with
//! malformed arguments is a [`ProtocolError`] naming what is wrong, which the engine reports
//! as `info string` and otherwise ignores.

use std::time::Duration;

use qchess_core::{Notation, PositionSpec, Square};

/// One command from the GUI.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `uci`: identify and list the options.
    Uci,
    /// `debug on|off`.
    Debug(bool),
    /// `isready`: answer `readyok`, also while searching.
    IsReady,
    /// `setoption name NAME [value VALUE]`.
    SetOption {
        /// The option's name, as written (matched without case).
        name: String,
        /// The value, if given.
        value: Option<String>,
    },
    /// `ucinewgame`.
    NewGame,
    /// `position startpos|fen FEN [moves ...]`.
    Position(PositionSpec),
    /// `go ...`.
    Go(Box<GoParams>),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
    /// `calcbell SQ1 SQ2`: the eight Bell-projector expectations of two squares.
    CalcBell(Square, Square),
}

/// The parameters of `go`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoParams {
    /// `searchmoves`: only these root moves (standard moves, splits, merges and observer-rules
    /// pairs, each searched as written).
    pub search_moves: Vec<Notation>,
    /// `ponder`: search on the opponent's time until `ponderhit` or `stop`.
    pub ponder: bool,
    /// `wtime`, `btime`: the clocks.
    pub time: [Option<Duration>; 2],
    /// `winc`, `binc`: the increments.
    pub increment: [Option<Duration>; 2],
    /// `movestogo`.
    pub moves_to_go: Option<u32>,
    /// `depth`.
    pub depth: Option<u32>,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `movetime`.
    pub movetime: Option<Duration>,
    /// `infinite`.
    pub infinite: bool,
}

/// A known command with malformed arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{command}: {reason}")]
pub struct ProtocolError {
    /// The command.
    pub command: String,
    /// What is wrong.
    pub reason: String,
}

fn problem(command: &str, reason: impl Into<String>) -> ProtocolError {
    ProtocolError { command: command.to_owned(), reason: reason.into() }
}

/// Parses one line: `Ok(None)` for an empty line or an unknown command.
pub fn parse_command(line: &str) -> Result<Option<Command>, ProtocolError> {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else { return Ok(None) };
    let rest: Vec<&str> = words.collect();
    let no_arguments = |command: Command| Ok(Some(command));
    match first {
        "uci" => no_arguments(Command::Uci),
        "isready" => no_arguments(Command::IsReady),
        "ucinewgame" => no_arguments(Command::NewGame),
        "stop" => no_arguments(Command::Stop),
        "ponderhit" => no_arguments(Command::PonderHit),
        "quit" => no_arguments(Command::Quit),
        "debug" => match rest.as_slice() {
            ["on"] | [] => Ok(Some(Command::Debug(true))),
            ["off"] => Ok(Some(Command::Debug(false))),
            _ => Err(problem("debug", "expected `debug on` or `debug off`")),
        },
        "setoption" => parse_setoption(&rest).map(Some),
        "position" => {
            let spec: PositionSpec = rest.join(" ").parse().map_err(|e| problem("position", format!("{e}")))?;
            Ok(Some(Command::Position(spec)))
        }
        "go" => parse_go(&rest).map(|go| Some(Command::Go(Box::new(go)))),
        "calcbell" => match rest.as_slice() {
            [a, b] => {
                let square = |text: &str| text.parse::<Square>().map_err(|e| problem("calcbell", format!("{e}")));
                let (a, b) = (square(a)?, square(b)?);
                if a == b {
                    return Err(problem("calcbell", "the two squares must differ"));
                }
                Ok(Some(Command::CalcBell(a, b)))
            }
            _ => Err(problem("calcbell", "expected two squares, like `calcbell a3 c3`")),
        },
        _ => Ok(None),
    }
}

fn parse_setoption(words: &[&str]) -> Result<Command, ProtocolError> {
    if words.first() != Some(&"name") {
        return Err(problem("setoption", "expected `setoption name NAME [value VALUE]`"));
    }
    let value_at = words.iter().position(|w| *w == "value");
    let name = words[1..value_at.unwrap_or(words.len())].join(" ");
    if name.is_empty() {
        return Err(problem("setoption", "the option has no name"));
    }
    let value = value_at.map(|at| words[at + 1..].join(" "));
    Ok(Command::SetOption { name, value })
}

fn parse_go(words: &[&str]) -> Result<GoParams, ProtocolError> {
    let mut go = GoParams::default();
    let mut index = 0;
    while index < words.len() {
        let word = words[index];
        index += 1;
        let mut number = |name: &str| -> Result<u64, ProtocolError> {
            let text = words.get(index).ok_or_else(|| problem("go", format!("{name} needs a number")))?;
            index += 1;
            // Clocks may run below zero in some GUIs: a negative time is no time left.
            if let Some(negative) = text.strip_prefix('-')
                && negative.parse::<u64>().is_ok()
            {
                return Ok(0);
            }
            text.parse::<u64>().map_err(|_| problem("go", format!("{name} needs a number, not `{text}`")))
        };
        let ms = Duration::from_millis;
        match word {
            "wtime" => go.time[0] = Some(ms(number(word)?)),
            "btime" => go.time[1] = Some(ms(number(word)?)),
            "winc" => go.increment[0] = Some(ms(number(word)?)),
            "binc" => go.increment[1] = Some(ms(number(word)?)),
            "movestogo" => go.moves_to_go = Some(small(number(word)?, word)?),
            "depth" => go.depth = Some(small(number(word)?, word)?),
            "nodes" => go.nodes = Some(number(word)?),
            "movetime" => go.movetime = Some(ms(number(word)?)),
            "mate" => {
                // A mate search is a depth-limited search here: plies = 2 * moves - 1.
                let moves = small(number(word)?, word)?;
                go.depth = Some(moves.saturating_mul(2).saturating_sub(1).max(1));
            }
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                while let Some(text) = words.get(index) {
                    match text.parse::<Notation>() {
                        Ok(mv @ (Notation::Move(_) | Notation::Pair(..))) => go.search_moves.push(mv),
                        _ if is_go_keyword(text) => break,
                        _ => return Err(problem("go", format!("searchmoves: `{text}` is not a move"))),
                    }
                    index += 1;
                }
            }
            other => return Err(problem("go", format!("unknown parameter `{other}`"))),
        }
    }
    Ok(go)
}

fn small(value: u64, name: &str) -> Result<u32, ProtocolError> {
    u32::try_from(value).map_err(|_| problem("go", format!("{name} {value} is too large")))
}

fn is_go_keyword(word: &str) -> bool {
    matches!(
        word,
        "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "depth"
            | "nodes"
            | "movetime"
            | "mate"
            | "infinite"
            | "ponder"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_reads_every_parameter() {
        let Some(Command::Go(go)) =
            parse_command("go searchmoves e2e4 b1^a3c3 wtime 1000 btime 2000 winc 10 binc 20 movestogo 5 depth 3 nodes 99 movetime 50 ponder")
                .unwrap()
        else {
            panic!("not a go")
        };
        assert_eq!(go.search_moves.len(), 2);
        assert_eq!(go.time, [Some(Duration::from_secs(1)), Some(Duration::from_secs(2))]);
        assert_eq!(go.increment, [Some(Duration::from_millis(10)), Some(Duration::from_millis(20))]);
        assert_eq!((go.moves_to_go, go.depth, go.nodes), (Some(5), Some(3), Some(99)));
        assert_eq!(go.movetime, Some(Duration::from_millis(50)));
        assert!(go.ponder && !go.infinite);
    }

    #[test]
    fn options_positions_and_bell() {
        assert_eq!(
            parse_command("setoption name Hash Size value 32").unwrap(),
            Some(Command::SetOption { name: "Hash Size".into(), value: Some("32".into()) })
        );
        let Some(Command::Position(spec)) = parse_command("position startpos moves b1^a3c3 e7e6 a3c3^b5").unwrap()
        else {
            panic!("not a position")
        };
        assert_eq!(spec.moves.len(), 3);
        assert_eq!(parse_command("calcbell a3 c3").unwrap(), Some(Command::CalcBell(Square::A3, Square::C3)));
        assert_eq!(parse_command("xyzzy 1 2").unwrap(), None);
        assert_eq!(parse_command("   ").unwrap(), None);
    }

    #[test]
    fn malformed_commands_say_what_is_wrong() {
        let cases = [
            ("go depth x", "go: depth needs a number, not `x`"),
            ("go wtime", "go: wtime needs a number"),
            ("go sideways", "go: unknown parameter `sideways`"),
            ("calcbell a3", "calcbell: expected two squares, like `calcbell a3 c3`"),
            ("calcbell a3 a3", "calcbell: the two squares must differ"),
            ("setoption value 3", "setoption: expected `setoption name NAME [value VALUE]`"),
        ];
        for (line, message) in cases {
            assert_eq!(parse_command(line).unwrap_err().to_string(), message, "{line}");
        }
        assert!(parse_command("position sideways").is_err());
        assert!(parse_command("go searchmoves zz9").is_err());
    }
}
