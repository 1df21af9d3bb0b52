//! The sidecar's JSON shape, both ways. Field-level checks (square names, values, setups) run
//! while deserialising, so their errors carry a line and column.

use std::fmt;

use qchess_circuit::ir::{Clbit, PostSelection, Qubit};
use qchess_core::{AlgebraicMove, Bitboard, PositionSpec, Square, StartPosition, TypedMove};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Setup, Sidecar};

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Wire {
    squares: Squares,
    classical: u64,
    postselect: Vec<WirePostSelection>,
    measure: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    setup: Option<WireSetup>,
}

impl From<&Sidecar> for Wire {
    fn from(sidecar: &Sidecar) -> Wire {
        Wire {
            squares: Squares(sidecar.squares.clone()),
            classical: sidecar.classical.0,
            postselect: sidecar.postselect.iter().map(|&s| WirePostSelection(s)).collect(),
            measure: sidecar.measure.iter().map(|q| q.0).collect(),
            setup: sidecar.setup.clone().map(WireSetup),
        }
    }
}

impl Wire {
    pub(super) fn into_sidecar(self) -> Sidecar {
        Sidecar {
            squares: self.squares.0,
            classical: Bitboard(self.classical),
            postselect: self.postselect.into_iter().map(|s| s.0).collect(),
            measure: self.measure.into_iter().map(Qubit).collect(),
            setup: self.setup.map(|s| s.0),
        }
    }
}

/// serde_json's message without the position it appends (the error carries that apart).
pub(super) fn message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    text.strip_suffix(&suffix).map_or(text.clone(), str::to_owned)
}

/// `startpos` or `fen <FEN>`.
pub(super) fn start_text(start: &StartPosition) -> String {
    PositionSpec { start: start.clone(), moves: Vec::new() }.to_string()
}

/// `{"a3": 1, "c3": 2}` in square order; a square named twice is an error.
#[derive(Debug)]
struct Squares(Vec<(Square, Qubit)>);

impl Serialize for Squares {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (square, qubit) in &self.0 {
            map.serialize_entry(&square.to_string(), &qubit.0)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Squares {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Squares, D::Error> {
        struct SquaresVisitor;

        impl<'de> Visitor<'de> for SquaresVisitor {
            type Value = Squares;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object from square names to qubit indices")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Squares, A::Error> {
                let mut squares: Vec<(Square, Qubit)> = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    let square: Square = name.parse().map_err(|e| de::Error::custom(format!("in `squares`: {e}")))?;
                    if squares.iter().any(|(sq, _)| *sq == square) {
                        return Err(de::Error::custom(format!("square {square} is listed twice")));
                    }
                    let qubit: u32 = map.next_value()?;
                    squares.push((square, Qubit(qubit)));
                }
                squares.sort_by_key(|&(sq, _)| u8::from(sq));
                Ok(Squares(squares))
            }
        }

        deserializer.deserialize_map(SquaresVisitor)
    }
}

/// `{"qubit": 5, "clbit": 0, "value": 1}`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(try_from = "RawPostSelection", into = "RawPostSelection")]
struct WirePostSelection(PostSelection);

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPostSelection {
    qubit: u32,
    clbit: u32,
    value: u64,
}

impl TryFrom<RawPostSelection> for WirePostSelection {
    type Error = String;

    fn try_from(raw: RawPostSelection) -> Result<WirePostSelection, String> {
        let value = match raw.value {
            0 => false,
            1 => true,
            other => return Err(format!("post-selected value {other} of qubit {}: it must be 0 or 1", raw.qubit)),
        };
        Ok(WirePostSelection(PostSelection { qubit: Qubit(raw.qubit), clbit: Clbit(raw.clbit), value }))
    }
}

impl From<WirePostSelection> for RawPostSelection {
    fn from(wire: WirePostSelection) -> RawPostSelection {
        let PostSelection { qubit, clbit, value } = wire.0;
        RawPostSelection { qubit: qubit.0, clbit: clbit.0, value: u64::from(value) }
    }
}

/// `{"init": 2, "moves": "b1^a3c3:SPLIT_JUMP:BASIC", "seed": 0}` or
/// `{"position": "startpos", "moves": "b1^a3c3 e7e6", "seed": 0}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "RawSetup", into = "RawSetup")]
struct WireSetup(Setup);

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSetup {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    init: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    position: Option<String>,
    moves: String,
    seed: u64,
}

impl TryFrom<RawSetup> for WireSetup {
    type Error = String;

    fn try_from(raw: RawSetup) -> Result<WireSetup, String> {
        let setup = match (raw.init, raw.position) {
            (Some(init), None) => {
                let moves = raw
                    .moves
                    .split_whitespace()
                    .enumerate()
                    .map(|(i, text)| text.parse::<TypedMove>().map_err(|e| format!("setup move {}: {e}", i + 1)))
                    .collect::<Result<_, _>>()?;
                Setup::Board { init: Bitboard(init), moves, seed: raw.seed }
            }
            (None, Some(position)) => {
                let spec: PositionSpec = position.parse().map_err(|e| format!("setup position: {e}"))?;
                if !spec.moves.is_empty() {
                    return Err("setup position: the moves belong in `moves`, not in `position`".to_owned());
                }
                let moves = raw
                    .moves
                    .split_whitespace()
                    .enumerate()
                    .map(|(i, text)| text.parse::<AlgebraicMove>().map_err(|e| format!("setup move {}: {e}", i + 1)))
                    .collect::<Result<_, _>>()?;
                Setup::Game { start: spec.start, moves, seed: raw.seed }
            }
            _ => return Err("setup: give exactly one of `init` and `position`".to_owned()),
        };
        Ok(WireSetup(setup))
    }
}

impl From<WireSetup> for RawSetup {
    fn from(wire: WireSetup) -> RawSetup {
        fn join<T: ToString>(moves: &[T]) -> String {
            moves.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
        }
        match wire.0 {
            Setup::Board { init, moves, seed } => {
                RawSetup { init: Some(init.0), position: None, moves: join(&moves), seed }
            }
            Setup::Game { start, moves, seed } => {
                RawSetup { init: None, position: Some(start_text(&start)), moves: join(&moves), seed }
            }
        }
    }
}
