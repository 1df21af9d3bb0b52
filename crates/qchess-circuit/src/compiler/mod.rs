//! The move compiler: typed moves become fragments of one accumulated [`Circuit`](crate::ir::Circuit).
//!
//! A [`Register`] is the quantum side of an occupancy board. It keeps
//! * the classical occupancy of every square that has no qubit (authoritative for those squares),
//! * the current qubit of every quantum square (allocated lazily, prepared with `X` when the
//!   square was classically full: "place piece"),
//! * the accumulated circuit, with the post-selections of every deferred measurement.
//!
//! Compiling a move is a two-step protocol, so that the same compiler serves an exact local
//! simulator (which applies each new op and measures exactly) and a remote sampler (which keeps
//! the circuit and draws outcomes from shots):
//!
//! 1. [`Register::begin`] appends the ops up to and including the move's one measurement and
//!    returns [`Step::Measure`]; or, when the move measures nothing or only classical squares,
//!    appends everything and returns [`Step::Done`].
//! 2. After [`Step::Measure`], the driver decides the outcome (`true` = m1 = the move proceeds)
//!    and calls [`Register::resolve`], which records the post-selection, unhooks the measured
//!    square and appends the rest of the move. [`Register::abort`] drops the pending move instead.
//!
//! A measured qubit (and any qubit of a square known to be empty) is *unhooked*: it stays in the
//! circuit as an ancilla that no later op touches, and its square becomes classical with the
//! known value; if the square re-enters superposition it gets a new qubit (the next generation).
//!
//! ```
//! use qchess_circuit::compiler::{Measurement, Register, Step};
//! use qchess_core::{Bitboard, Square, TypedMove};
//!
//! let mut register = Register::new(Bitboard::from_square(Square::B1));
//! let split: TypedMove = "b1^a3c3:SPLIT_JUMP:BASIC".parse()?;
//! let Step::Done(result) = register.begin(&split)? else { unreachable!("a split measures nothing") };
//! assert!(result.proceeded && result.measurement == Measurement::None);
//! assert_eq!(register.quantum_squares().count(), 2); // a3 and c3; b1 was unhooked empty
//!
//! // Capturing on a3 measures whether the attacker's source is occupied: c3 is quantum.
//! let capture: TypedMove = "c3a4:JUMP:CAPTURE".parse()?;
//! let Step::Measure(request) = register.begin(&capture)? else { unreachable!("c3 is quantum") };
//! assert_eq!(Some(request.qubit), register.square_qubit(Square::C3));
//! let result = register.resolve(true)?; // the driver decided m1: c3 was occupied
//! assert!(result.proceeded);
//! assert!(register.classical_occupancy().contains(Square::A4));
//! assert_eq!(register.circuit().postselect.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod castle;
mod error;
mod pawn;
mod register;
mod split_merge;
mod standard;

use qchess_core::{MoveType, MoveVariant, Square, TypedMove};

use crate::ir::{Clbit, PostSelection, Qubit};

pub use error::CompileError;
pub use register::{Checkpoint, Register};

/// The one measurement a move makes, waiting for the driver to decide its outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeasurementRequest {
    /// The measured qubit (a square's qubit, or a condition ancilla).
    pub qubit: Qubit,
    /// The classical bit the qubit is measured into.
    pub clbit: Clbit,
    /// The value of `qubit` that means "the move proceeds" (m1): `false` when the move needs an
    /// empty target, `true` when it needs an occupied source or a computed condition.
    pub proceed_value: bool,
    /// The outcome the typed move forces (`.m0` / `.m1`), if any; the driver must honour it.
    pub forced: Option<bool>,
}

impl MeasurementRequest {
    /// The value the measured qubit has when the move's outcome is `outcome` (`true` = m1).
    pub const fn qubit_value(&self, outcome: bool) -> bool {
        outcome == self.proceed_value
    }
}

/// What [`Register::begin`] left to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The move is fully compiled.
    Done(MoveResult),
    /// The move waits for the outcome of this measurement: call [`Register::resolve`].
    Measure(MeasurementRequest),
}

/// How a move's measurement went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measurement {
    /// The move's type and variant make no measurement.
    None,
    /// The measured squares were classical, so the outcome was certain and nothing was emitted.
    Classical {
        /// `true` = m1 = the move proceeded.
        outcome: bool,
    },
    /// A qubit was measured into a classical bit and its value recorded as a post-selection.
    Quantum {
        /// `true` = m1 = the move proceeded.
        outcome: bool,
        /// The measured qubit.
        qubit: Qubit,
        /// The bit it was measured into.
        clbit: Clbit,
    },
}

impl Measurement {
    /// The outcome (`true` = m1), unless the move measured nothing.
    pub const fn outcome(self) -> Option<bool> {
        match self {
            Measurement::None => None,
            Measurement::Classical { outcome } | Measurement::Quantum { outcome, .. } => Some(outcome),
        }
    }
}

/// A fully compiled move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveResult {
    /// Whether the move went ahead: its measurement said m1, or it measured nothing.
    pub proceeded: bool,
    /// The measurement the move made.
    pub measurement: Measurement,
}

impl MoveResult {
    const fn unmeasured() -> MoveResult {
        MoveResult { proceeded: true, measurement: Measurement::None }
    }
}

/// Whether a move of this type and variant decides by a measurement (which may turn out to be
/// on classical squares, and so certain).
pub const fn makes_measurement(move_type: MoveType, variant: MoveVariant) -> bool {
    match move_type {
        MoveType::Jump | MoveType::PawnStep | MoveType::Slide | MoveType::PawnTwoStep | MoveType::PawnEp => {
            !matches!(variant, MoveVariant::Basic)
        }
        MoveType::PawnCapture => true,
        MoveType::KsCastle | MoveType::QsCastle => matches!(variant, MoveVariant::Excluded),
        MoveType::SplitJump | MoveType::SplitSlide | MoveType::MergeJump | MoveType::MergeSlide => false,
    }
}

/// Where a measurement stands once it has been emitted (or found classical).
enum Probe {
    /// The measured squares are classical: `true` = m1.
    Certain(bool),
    /// A qubit was measured; `square` is its square when it is a square's qubit.
    Pending { request: MeasurementRequest, square: Option<Square> },
}

/// What a move does after its measurement says m1.
#[derive(Debug, Clone, PartialEq, Eq)]
enum After {
    /// A jump (or pawn step), with the target now known empty if it was measured.
    Jump { from: Square, to: Square },
    /// A capture jump: the source is occupied.
    CaptureJump { from: Square, to: Square },
    /// A basic slide along the given quantum path squares (at least one).
    Slide { from: Square, to: Square, path: Vec<Square> },
    /// A capture slide: the source is occupied and the path clear.
    CaptureSlide { from: Square, to: Square, path: Vec<Square> },
    /// A pawn capture: the source is occupied.
    PawnCapture { from: Square, to: Square },
    /// A basic en passant (the excluded variant after its target was found empty).
    EnPassant { from: Square, to: Square, victim: Square },
    /// A capture en passant: the source is occupied.
    EnPassantCapture { from: Square, to: Square, victim: Square },
    /// An excluded castle whose king and rook targets were found empty.
    Castle(castle::Castle),
}

/// How far a move got in [`Register::begin`] before returning.
enum Flow {
    /// No measurement; the move is compiled.
    Unmeasured,
    /// The measurement was classical with this outcome; on m1 the rest is compiled too.
    Decided(bool),
    /// A qubit measurement waits for its outcome; `then` runs on m1.
    Pending { request: MeasurementRequest, square: Option<Square>, then: After },
}

impl Flow {
    /// A move done on classical bits alone: a measuring variant counts as a certain m1.
    fn classical(variant: MoveVariant) -> Flow {
        match variant {
            MoveVariant::Basic => Flow::Unmeasured,
            MoveVariant::Excluded | MoveVariant::Capture => Flow::Decided(true),
        }
    }
}

/// A move waiting in [`Register::resolve`].
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    mv: TypedMove,
    request: MeasurementRequest,
    square: Option<Square>,
    then: After,
    start: Checkpoint,
}

impl Register {
    /// Compiles `mv` up to and including its measurement (see the [module docs](self)).
    ///
    /// Nothing is appended when this returns an error. A forced outcome (`mv.outcome`) on a move
    /// that makes no measurement is [`CompileError::NoMeasurement`]; one that contradicts a
    /// classical (certain) measurement is [`CompileError::ImpossibleOutcome`].
    pub fn begin(&mut self, mv: &TypedMove) -> Result<Step, CompileError> {
        if let Some(pending) = &self.pending {
            return Err(CompileError::MeasurementPending { pending: pending.mv.to_string(), mv: mv.to_string() });
        }
        if mv.outcome.is_some() && !makes_measurement(mv.move_type, mv.variant) {
            return Err(CompileError::NoMeasurement { mv: mv.to_string() });
        }
        let start = self.checkpoint();
        let flow = match self.compile_move(mv) {
            Ok(flow) => flow,
            Err(error) => {
                self.rollback(&start);
                return Err(error);
            }
        };
        match flow {
            Flow::Unmeasured => Ok(Step::Done(MoveResult::unmeasured())),
            Flow::Decided(outcome) => {
                if mv.outcome.is_some_and(|forced| forced != outcome) {
                    self.rollback(&start);
                    return Err(CompileError::ImpossibleOutcome { mv: mv.to_string(), outcome: !outcome });
                }
                Ok(Step::Done(MoveResult { proceeded: outcome, measurement: Measurement::Classical { outcome } }))
            }
            Flow::Pending { request, square, then } => {
                let request = MeasurementRequest { forced: mv.outcome, ..request };
                self.pending = Some(Pending { mv: *mv, request, square, then, start });
                Ok(Step::Measure(request))
            }
        }
    }

    /// Finishes the pending move with the measurement's `outcome` (`true` = m1 = proceeds):
    /// records the post-selection, unhooks the measured square and appends the rest of the move.
    pub fn resolve(&mut self, outcome: bool) -> Result<MoveResult, CompileError> {
        let Some(pending) = self.pending.take() else {
            return Err(CompileError::NothingPending);
        };
        if pending.request.forced.is_some_and(|forced| forced != outcome) {
            let mv = pending.mv.to_string();
            self.pending = Some(pending);
            return Err(CompileError::ContradictsForcedOutcome { mv, outcome });
        }
        let Pending { request, square, then, .. } = pending;
        let value = request.qubit_value(outcome);
        self.circuit.postselect.push(PostSelection { qubit: request.qubit, clbit: request.clbit, value });
        if let Some(square) = square {
            self.unhook(square, value);
        }
        if outcome {
            self.run_after(then);
        }
        Ok(MoveResult {
            proceeded: outcome,
            measurement: Measurement::Quantum { outcome, qubit: request.qubit, clbit: request.clbit },
        })
    }

    /// Drops the pending move, removing everything it appended. Returns whether one was pending.
    pub fn abort(&mut self) -> bool {
        match self.pending.take() {
            Some(pending) => {
                self.rollback(&pending.start);
                true
            }
            None => false,
        }
    }

    /// The measurement a pending move waits for, if any.
    pub fn pending(&self) -> Option<&MeasurementRequest> {
        self.pending.as_ref().map(|p| &p.request)
    }

    fn compile_move(&mut self, mv: &TypedMove) -> Result<Flow, CompileError> {
        let squares = self.check_geometry(mv)?;
        match (mv.move_type, squares) {
            (MoveType::Jump | MoveType::PawnStep, Squares::Standard(from, to)) => Ok(self.jump(from, to, mv.variant)),
            (MoveType::Slide | MoveType::PawnTwoStep, Squares::Standard(from, to)) => {
                Ok(self.slide(from, to, mv.variant))
            }
            (MoveType::PawnCapture, Squares::Standard(from, to)) => Ok(self.pawn_capture(from, to)),
            (MoveType::PawnEp, Squares::Standard(from, to)) => Ok(self.en_passant(from, to, mv.variant)),
            (MoveType::KsCastle | MoveType::QsCastle, Squares::Standard(from, to)) => {
                self.castle(mv, from, to).map_err(|reason| CompileError::InvalidMove { mv: mv.to_string(), reason })
            }
            (MoveType::SplitJump, Squares::Split(from, to1, to2)) => {
                self.split_jump(from, to1, to2);
                Ok(Flow::Unmeasured)
            }
            (MoveType::SplitSlide, Squares::Split(from, to1, to2)) => {
                self.split_slide(from, to1, to2);
                Ok(Flow::Unmeasured)
            }
            (MoveType::MergeJump, Squares::Merge(from1, from2, to)) => {
                self.merge_jump(from1, from2, to);
                Ok(Flow::Unmeasured)
            }
            (MoveType::MergeSlide, Squares::Merge(from1, from2, to)) => {
                self.merge_slide(from1, from2, to);
                Ok(Flow::Unmeasured)
            }
            _ => Err(CompileError::InvalidMove {
                mv: mv.to_string(),
                reason: format!("{} does not take these squares", mv.move_type),
            }),
        }
    }

    /// Re-checks what [`TypedMove::new`] checks (its fields are public) plus what only the
    /// compiler needs: slide lines, en passant ranks, castle variants.
    fn check_geometry(&self, mv: &TypedMove) -> Result<Squares, CompileError> {
        use qchess_core::MoveSquares;
        let invalid = |reason: &str| CompileError::InvalidMove { mv: mv.to_string(), reason: reason.to_owned() };
        let squares = match mv.squares {
            MoveSquares::Standard { from, to } => Squares::Standard(from, to),
            MoveSquares::Split { from, to1, to2 } => Squares::Split(from, to1, to2),
            MoveSquares::Merge { from1, from2, to } => Squares::Merge(from1, from2, to),
        };
        let named = match squares {
            Squares::Standard(a, b) => [Some(a), Some(b), None],
            Squares::Split(a, b, c) | Squares::Merge(a, b, c) => [Some(a), Some(b), Some(c)],
        };
        for (i, sq) in named.iter().enumerate().filter_map(|(i, sq)| sq.map(|sq| (i, sq))) {
            if named[i + 1..].contains(&Some(sq)) {
                return Err(invalid(&format!("{sq} is named twice")));
            }
        }
        if mv.move_type.shape() != mv.squares.shape() {
            return Err(invalid(&format!("{} does not take these squares", mv.move_type)));
        }
        if mv.move_type.shape() != qchess_core::Shape::Standard && mv.variant != MoveVariant::Basic {
            return Err(invalid("split and merge moves have only the BASIC variant"));
        }
        let on_line = |a: Square, b: Square| a.direction_to(b).is_some();
        match (mv.move_type, squares) {
            (MoveType::Slide | MoveType::PawnTwoStep, Squares::Standard(from, to)) if !on_line(from, to) => {
                Err(invalid("source and target are not on one rank, file or diagonal"))
            }
            (MoveType::SplitSlide, Squares::Split(from, to1, to2)) if !on_line(from, to1) || !on_line(from, to2) => {
                Err(invalid("each target must be on a rank, file or diagonal through the source"))
            }
            (MoveType::MergeSlide, Squares::Merge(from1, from2, to)) if !on_line(from1, to) || !on_line(from2, to) => {
                Err(invalid("each source must be on a rank, file or diagonal through the target"))
            }
            (MoveType::PawnEp, Squares::Standard(from, to))
                if from.file().abs_diff(to.file()) != 1 || !matches!((from.rank(), to.rank()), (4, 5) | (3, 2)) =>
            {
                Err(invalid(
                    "en passant goes one square diagonally from the fifth rank to the sixth (or fourth to third)",
                ))
            }
            _ => Ok(squares),
        }
    }

    /// Emits or decides a measurement: runs `then` at once when the outcome is certainly m1.
    fn branch(&mut self, probe: Probe, then: After) -> Flow {
        match probe {
            Probe::Certain(true) => {
                self.run_after(then);
                Flow::Decided(true)
            }
            Probe::Certain(false) => Flow::Decided(false),
            Probe::Pending { request, square } => Flow::Pending { request, square, then },
        }
    }

    fn run_after(&mut self, then: After) {
        match then {
            After::Jump { from, to } => self.basic_jump(from, to),
            After::CaptureJump { from, to } => self.capture_jump(from, to),
            After::Slide { from, to, path } => self.controlled_slide(from, to, &path, 1.0),
            After::CaptureSlide { from, to, path } => self.capture_slide(from, to, &path),
            After::PawnCapture { from, to } => self.finish_pawn_capture(from, to),
            After::EnPassant { from, to, victim } => self.basic_en_passant(from, to, victim),
            After::EnPassantCapture { from, to, victim } => self.capture_en_passant(from, to, victim),
            After::Castle(castle) => self.finish_castle(castle),
        }
    }
}

/// A move's squares by shape, unpacked.
#[derive(Debug, Clone, Copy)]
enum Squares {
    Standard(Square, Square),
    Split(Square, Square, Square),
    Merge(Square, Square, Square),
}
