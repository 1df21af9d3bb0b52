//! The JSON sidecar of an exported board circuit: how to read the circuit's results as a board.
//!
//! A board's accumulated circuit keeps every mid-game measurement as a deferred one (a classical
//! bit that no later gate touches) and leaves many squares without a qubit. The sidecar holds
//! what a simulator of the circuit needs to turn its results into occupancies:
//!
//! * `squares`: every square that has a qubit at the end, with that qubit, in square order;
//! * `classical`: the occupancy (u64, a1 = bit 0) of the squares that have no qubit;
//! * `postselect`: the outcome each deferred measurement had: keep only the runs in which
//!   `qubit` (measured into classical bit `clbit`) reads `value`;
//! * `measure`: the qubits the circuit measures at the end, in the order of its `meas` register
//!   (the qubits of `squares`);
//! * `setup` (optional): how the circuit was made: the start (`init` occupancy or `position`),
//!   the moves with every measurement outcome that happened, and the seed, so that `qchess
//!   board --init INIT --moves MOVES` (or `qchess game --position POSITION --moves MOVES`)
//!   reproduces the board.
//!
//! So square `s` is occupied in a kept run when its qubit reads 1, or, without a qubit, when bit
//! `s` of `classical` is set. Parsing checks all of it and names what is wrong and where.
//!
//! ```
//! use qchess_circuit::compiler::{Register, Step};
//! use qchess_core::{Bitboard, Square, TypedMove};
//! use qchess_qasm::sidecar::Sidecar;
//!
//! let mut register = Register::new(Bitboard::from_square(Square::B1));
//! let split: TypedMove = "b1^a3c3:SPLIT_JUMP:BASIC".parse()?;
//! assert!(matches!(register.begin(&split)?, Step::Done(_)));
//! let sidecar = Sidecar::from_register(&register);
//! let json = sidecar.to_json();
//! assert_eq!(json, r#"{"squares":{"a3":1,"c3":2},"classical":0,"postselect":[],"measure":[1,2]}"#);
//! assert_eq!(json.parse::<Sidecar>()?, sidecar);
//!
//! let error = r#"{"squares":{"a9":0},"classical":0,"postselect":[],"measure":[0]}"#.parse::<Sidecar>().unwrap_err();
//! assert!(error.to_string().starts_with("sidecar JSON, line 1 column 16: in `squares`: `a9` is not a square"), "{error}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod wire;

use std::fmt;
use std::str::FromStr;

use qchess_circuit::compiler::Register;
use qchess_circuit::ir::{PostSelection, Qubit};
use qchess_core::{AlgebraicMove, Bitboard, Square, StartPosition, TypedMove};

/// How to read an exported circuit's results as a board: see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
pub struct Sidecar {
    /// Every square with a qubit, and the qubit, in square order.
    pub squares: Vec<(Square, Qubit)>,
    /// Occupancy of the squares without a qubit.
    pub classical: Bitboard,
    /// The recorded outcomes of the deferred measurements, in the order they were made.
    pub postselect: Vec<PostSelection>,
    /// The qubits measured at the end, in the order of the `meas` register.
    pub measure: Vec<Qubit>,
    /// How the circuit was made, when known.
    pub setup: Option<Setup>,
}

/// How an exported circuit was made, so that it can be made again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Setup {
    /// Typed moves on an occupancy board (`qchess board`, `qchess compile --init`).
    Board {
        /// The occupancy the board started from.
        init: Bitboard,
        /// The moves, each with the outcome its measurement had.
        moves: Vec<TypedMove>,
        /// Seed of the outcomes that were drawn.
        seed: u64,
    },
    /// Moves in official notation in a game (`qchess game`, `qchess compile --position`).
    Game {
        /// Where the game started.
        start: StartPosition,
        /// The moves, each with the outcome its measurement had (when it could go either way).
        moves: Vec<AlgebraicMove>,
        /// Seed of the game's draws.
        seed: u64,
    },
}

/// Why a text is not a valid sidecar.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SidecarError {
    /// The text is not JSON of the sidecar's shape: a field missing or unknown, a value of the
    /// wrong type, a bad square name, a post-selected value other than 0 or 1, a bad setup.
    #[error("sidecar JSON, line {line} column {column}: {}", qchess_core::text::excerpt_line(.message))]
    Json {
        /// Line of the problem, from 1.
        line: usize,
        /// Column of the problem, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Two squares claim the same qubit.
    #[error("sidecar: squares {first} and {second} both claim qubit {qubit}")]
    SharedQubit {
        /// The qubit.
        qubit: u32,
        /// The first square naming it.
        first: Square,
        /// The second square naming it.
        second: Square,
    },
    /// A square has a qubit and a set bit in `classical` as well.
    #[error("sidecar: square {square} has a qubit, so its bit in `classical` must be 0")]
    ClassicalQuantumSquare {
        /// The square.
        square: Square,
    },
    /// A qubit or classical bit is post-selected twice.
    #[error("sidecar: postselect[{index}] repeats the {what} of an earlier entry")]
    RepeatedPostSelection {
        /// Index in `postselect`.
        index: usize,
        /// `qubit` or `clbit`.
        what: &'static str,
    },
    /// A post-selected qubit is also a square's qubit, which later moves would touch.
    #[error("sidecar: qubit {qubit} is post-selected but is also the qubit of square {square}")]
    PostSelectedSquare {
        /// The qubit.
        qubit: u32,
        /// The square.
        square: Square,
    },
    /// A qubit is measured twice at the end.
    #[error("sidecar: qubit {qubit} appears twice in `measure`")]
    RepeatedMeasurement {
        /// The qubit.
        qubit: u32,
    },
    /// A square's qubit is not measured at the end, so runs cannot tell its occupancy.
    #[error("sidecar: the qubit {qubit} of square {square} is missing from `measure`")]
    UnmeasuredSquare {
        /// The square.
        square: Square,
        /// Its qubit.
        qubit: u32,
    },
}

impl Sidecar {
    /// The sidecar of a register's accumulated circuit, measuring every square qubit at the end.
    pub fn from_register(register: &Register) -> Sidecar {
        let squares: Vec<(Square, Qubit)> = register.square_qubits().collect();
        Sidecar {
            measure: squares.iter().map(|&(_, qubit)| qubit).collect(),
            squares,
            classical: register.classical_occupancy(),
            postselect: register.circuit().postselect.clone(),
            setup: None,
        }
    }

    /// This sidecar with a setup.
    #[must_use]
    pub fn with_setup(self, setup: Setup) -> Sidecar {
        Sidecar { setup: Some(setup), ..self }
    }

    /// The qubit of `square`, if it has one.
    pub fn qubit_of(&self, square: Square) -> Option<Qubit> {
        self.squares.iter().find(|(sq, _)| *sq == square).map(|&(_, qubit)| qubit)
    }

    /// Whether a run whose qubits read `reads` (qubit `i` = bit `i`) satisfies every
    /// post-selection.
    pub fn keeps(&self, reads: impl Fn(Qubit) -> bool) -> bool {
        self.postselect.iter().all(|selection| reads(selection.qubit) == selection.value)
    }

    /// The board of a run whose qubits read `reads`: quantum squares from their qubits, the
    /// others from `classical`.
    pub fn board(&self, reads: impl Fn(Qubit) -> bool) -> Bitboard {
        self.squares.iter().filter(|&&(_, qubit)| reads(qubit)).fold(self.classical, |board, &(sq, _)| board.with(sq))
    }

    /// The sidecar as compact JSON, keys in the documented order.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The sidecar as indented JSON, keys in the documented order, without a final newline.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Checks what the JSON shape cannot: see [`SidecarError`].
    fn validate(&self) -> Result<(), SidecarError> {
        for (i, &(square, qubit)) in self.squares.iter().enumerate() {
            if let Some(&(first, _)) = self.squares[..i].iter().find(|(_, q)| *q == qubit) {
                return Err(SidecarError::SharedQubit { qubit: qubit.0, first, second: square });
            }
            if self.classical.contains(square) {
                return Err(SidecarError::ClassicalQuantumSquare { square });
            }
            if !self.measure.contains(&qubit) {
                return Err(SidecarError::UnmeasuredSquare { square, qubit: qubit.0 });
            }
        }
        for (index, selection) in self.postselect.iter().enumerate() {
            let earlier = &self.postselect[..index];
            if earlier.iter().any(|s| s.qubit == selection.qubit) {
                return Err(SidecarError::RepeatedPostSelection { index, what: "qubit" });
            }
            if earlier.iter().any(|s| s.clbit == selection.clbit) {
                return Err(SidecarError::RepeatedPostSelection { index, what: "clbit" });
            }
            if let Some(&(square, _)) = self.squares.iter().find(|(_, q)| *q == selection.qubit) {
                return Err(SidecarError::PostSelectedSquare { qubit: selection.qubit.0, square });
            }
        }
        for (i, qubit) in self.measure.iter().enumerate() {
            if self.measure[..i].contains(qubit) {
                return Err(SidecarError::RepeatedMeasurement { qubit: qubit.0 });
            }
        }
        Ok(())
    }
}

impl FromStr for Sidecar {
    type Err = SidecarError;

    fn from_str(text: &str) -> Result<Sidecar, SidecarError> {
        let wire: wire::Wire = serde_json::from_str(text).map_err(|error| SidecarError::Json {
            line: error.line(),
            column: error.column(),
            message: wire::message(&error),
        })?;
        let sidecar = wire.into_sidecar();
        sidecar.validate()?;
        Ok(sidecar)
    }
}

impl serde::Serialize for Sidecar {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        wire::Wire::from(self).serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Sidecar {
    /// Reads and checks a sidecar; a failed check is a custom error with its message.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Sidecar, D::Error> {
        let sidecar = wire::Wire::deserialize(deserializer)?.into_sidecar();
        sidecar.validate().map_err(serde::de::Error::custom)?;
        Ok(sidecar)
    }
}

impl fmt::Display for Setup {
    /// `init 0x... moves ...` or `position ... moves ...`, for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (start, moves): (String, Vec<String>) = match self {
            Setup::Board { init, moves, .. } => {
                (format!("init {:#x}", init.0), moves.iter().map(ToString::to_string).collect())
            }
            Setup::Game { start, moves, .. } => {
                (format!("position {}", wire::start_text(start)), moves.iter().map(ToString::to_string).collect())
            }
        };
        f.write_str(&start)?;
        if !moves.is_empty() {
            write!(f, " moves {}", moves.join(" "))?;
        }
        Ok(())
    }
}
