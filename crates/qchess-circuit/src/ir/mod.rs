//! The circuit intermediate representation shared by the move compiler, the simulators, the
//! OpenQASM emitters and parser, and the hardware lowerings.
//!
//! A [`Circuit`] is a list of [`Op`]s over numbered qubits and classical bits. Every qubit has a
//! [`QubitRole`] (a square's occupancy or one kind of ancilla) and a name used in printed output.
//! Gates may carry any number of controls, each on |1> or (anti-control) on |0>.
//!
//! Conventions, fixed for every consumer:
//! * qubit `i` is bit `i` of every basis-state index and every result (little-endian);
//! * for a two-qubit gate on `[a, b]`, matrix row/column index `k` has `a` as bit 0 and `b` as bit 1;
//! * `ISwap(t)` is `exp(+i*pi*t/4 (XX + YY))`, so `ISwap(1.0)` is
//!   `[[1,0,0,0],[0,0,i,0],[0,i,0,0],[0,0,0,1]]` and `ISwap(0.5)` is the square root of iSWAP;
//! * `U(theta, phi, lambda)` is the OpenQASM 3 / Qiskit `U` gate (no extra global phase).
//!
//! ```
//! use qchess_circuit::ir::{Circuit, Gate, QubitRole};
//! use qchess_core::Square;
//!
//! let mut circuit = Circuit::new();
//! let b1 = circuit.add_qubit(QubitRole::square(Square::B1));
//! let c3 = circuit.add_qubit(QubitRole::square(Square::C3));
//! circuit.push_gate(Gate::x(b1));
//! circuit.push_gate(Gate::iswap(b1, c3, 0.5));
//! assert_eq!(circuit.to_string().lines().count(), 2 + 2);
//! ```

mod gate;
mod gate_kind;

use std::borrow::Cow;
use std::fmt;

use qchess_core::Square;

pub use gate::{Control, Gate, GateShapeError};
pub use gate_kind::{GateKind, Matrix2, Matrix4};

/// A qubit: an index into [`Circuit::qubits`]. Qubit `i` is bit `i` of results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Qubit(pub u32);

/// A classical bit: an index into the circuit's classical bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Clbit(pub u32);

impl Qubit {
    /// The index as `usize`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl Clbit {
    /// The index as `usize`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a qubit stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QubitRole {
    /// The occupancy of a square. A square gets a new qubit (the next `generation`) each time it
    /// re-enters superposition after its previous qubit was unhooked (measured or emptied).
    Square {
        /// The square.
        square: Square,
        /// 0 for the square's first qubit, 1 for the next, and so on.
        generation: u32,
    },
    /// A path-clear flag: computed, used as a control, and uncomputed within one move.
    Path,
    /// A measurement condition computed into a fresh qubit (capture slide, excluded castle).
    Condition,
    /// The occupancy of a captured piece, kept entangled and never touched again.
    Captured,
    /// The en passant record (whether the capture happened), kept entangled.
    EnPassant,
    /// Scratch space of the general split/merge-slide circuits, returned to |0>.
    Scratch,
    /// A qubit of a general circuit (for example, one read from OpenQASM).
    General,
}

impl QubitRole {
    /// The first qubit of a square.
    pub const fn square(square: Square) -> QubitRole {
        QubitRole::Square { square, generation: 0 }
    }

    /// The square whose occupancy this qubit holds, if it is a square qubit.
    pub const fn as_square(self) -> Option<Square> {
        match self {
            QubitRole::Square { square, .. } => Some(square),
            _ => None,
        }
    }
}

/// A qubit's role and printable name.
#[derive(Debug, Clone)]
pub struct QubitInfo {
    /// What the qubit stands for.
    pub role: QubitRole,
    /// The name it was given, or `None` for one generated from the role and `number`.
    given: Option<String>,
    /// The qubit's index when it was added: generated ancilla names carry it.
    number: u32,
}

impl QubitInfo {
    /// Name used in debug output and in the header comments of exported circuits: the one
    /// given, or `e4`, `e4_1` for a later generation, `anc3_path`. Generated names are built
    /// here rather than when the qubit is added: a search adds and drops qubits by the
    /// million and prints none.
    pub fn name(&self) -> Cow<'_, str> {
        if let Some(given) = &self.given {
            return Cow::Borrowed(given);
        }
        let index = self.number;
        Cow::Owned(match self.role {
            QubitRole::Square { square, generation: 0 } => square.to_string(),
            QubitRole::Square { square, generation } => format!("{square}_{generation}"),
            QubitRole::Path => format!("anc{index}_path"),
            QubitRole::Condition => format!("anc{index}_cond"),
            QubitRole::Captured => format!("anc{index}_captured"),
            QubitRole::EnPassant => format!("anc{index}_ep"),
            QubitRole::Scratch => format!("anc{index}_scratch"),
            QubitRole::General => format!("q{index}"),
        })
    }
}

/// Qubits are equal when their roles and names are.
impl PartialEq for QubitInfo {
    fn eq(&self, other: &QubitInfo) -> bool {
        self.role == other.role && self.name() == other.name()
    }
}

impl Eq for QubitInfo {}

/// A named, contiguous classical register (OpenQASM `creg`), used by classical conditions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicalRegister {
    /// Register name.
    pub name: String,
    /// First classical bit.
    pub start: u32,
    /// Number of bits.
    pub len: u32,
}

/// A classical condition: apply only when the register, read as an integer with its first bit
/// least significant, equals `value` (OpenQASM 2 `if (c == value)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Condition {
    /// Index into [`Circuit::registers`].
    pub register: usize,
    /// The value the register must hold.
    pub value: u64,
}

/// One step of a circuit.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// A unitary gate, optionally under a classical condition.
    Gate {
        /// The gate.
        gate: Gate,
        /// The classical condition, if any.
        condition: Option<Condition>,
    },
    /// Projective measurement of `qubit` in the computational basis into `clbit`.
    Measure {
        /// Measured qubit.
        qubit: Qubit,
        /// Bit that receives the result.
        clbit: Clbit,
    },
    /// Reset `qubit` to |0>.
    Reset {
        /// The qubit.
        qubit: Qubit,
    },
}

/// A recorded mid-circuit outcome of a deferred measurement: keep only the runs in which
/// `qubit` (measured into `clbit`) reads `value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostSelection {
    /// The measured qubit, never touched by a later gate.
    pub qubit: Qubit,
    /// The bit it was measured into.
    pub clbit: Clbit,
    /// The value that was recorded.
    pub value: bool,
}

/// A circuit: qubits with roles, classical bits and registers, operations, and the
/// post-selections of deferred measurements.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Circuit {
    /// Every qubit, index = [`Qubit`].
    pub qubits: Vec<QubitInfo>,
    /// Number of classical bits.
    pub clbits: u32,
    /// Classical registers over the bits (for conditions and printing).
    pub registers: Vec<ClassicalRegister>,
    /// The operations in order.
    pub ops: Vec<Op>,
    /// Recorded outcomes that a simulator of this circuit must post-select on.
    pub postselect: Vec<PostSelection>,
}

impl Circuit {
    /// An empty circuit.
    pub fn new() -> Circuit {
        Circuit::default()
    }

    /// Adds a qubit with a generated name (`e4`, `e4_1` for a later generation, `anc3_path`;
    /// see [`QubitInfo::name`]).
    pub fn add_qubit(&mut self, role: QubitRole) -> Qubit {
        let number = self.qubits.len() as u32;
        self.add_qubit_info(QubitInfo { role, given: None, number })
    }

    /// Adds a qubit with an explicit name.
    pub fn add_named_qubit(&mut self, role: QubitRole, name: String) -> Qubit {
        let number = self.qubits.len() as u32;
        self.add_qubit_info(QubitInfo { role, given: Some(name), number })
    }

    /// Adds a qubit of another circuit, keeping its role and name.
    pub fn add_qubit_info(&mut self, info: QubitInfo) -> Qubit {
        self.qubits.push(info);
        Qubit(self.qubits.len() as u32 - 1)
    }

    /// Adds a classical bit.
    pub fn add_clbit(&mut self) -> Clbit {
        self.clbits += 1;
        Clbit(self.clbits - 1)
    }

    /// Adds a classical register of `len` fresh bits and returns its index.
    pub fn add_register(&mut self, name: impl Into<String>, len: u32) -> usize {
        self.registers.push(ClassicalRegister { name: name.into(), start: self.clbits, len });
        self.clbits += len;
        self.registers.len() - 1
    }

    /// Appends an unconditional gate.
    pub fn push_gate(&mut self, gate: Gate) {
        self.ops.push(Op::Gate { gate, condition: None });
    }

    /// Appends a measurement of `qubit` into a fresh classical bit and returns the bit.
    pub fn push_measure(&mut self, qubit: Qubit) -> Clbit {
        let clbit = self.add_clbit();
        self.ops.push(Op::Measure { qubit, clbit });
        clbit
    }

    /// A circuit holding one gate of `kind` under `controls` (`true` = on |1>, `false` = on
    /// |0>): the targets on the lowest qubits in reverse order, the controls on the highest, and
    /// one spare qubit the gate leaves alone, so operand order differs from qubit order. The
    /// shape that exhaustive tests of simulators, emitters and lowerings run through.
    pub fn single_gate(kind: GateKind, controls: &[bool]) -> Circuit {
        let qubits = controls.len() + kind.arity() + 1;
        let mut circuit = Circuit::new();
        for _ in 0..qubits {
            circuit.add_qubit(QubitRole::General);
        }
        let controls =
            controls.iter().enumerate().map(|(i, &on)| Control { qubit: Qubit((qubits - 1 - i) as u32), on }).collect();
        let targets = (0..kind.arity() as u32).rev().map(Qubit).collect();
        circuit.push_gate(Gate { kind, targets, controls });
        circuit
    }

    /// Number of qubits.
    pub fn num_qubits(&self) -> usize {
        self.qubits.len()
    }

    /// The qubits that hold square occupancies, with their squares, in qubit order.
    pub fn square_qubits(&self) -> impl Iterator<Item = (Qubit, Square)> + '_ {
        self.qubits.iter().enumerate().filter_map(|(i, q)| q.role.as_square().map(|sq| (Qubit(i as u32), sq)))
    }
}

/// Debug listing: one qubit per line (`q0 = b1 (square)`), then one operation per line.
impl fmt::Display for Circuit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, q) in self.qubits.iter().enumerate() {
            writeln!(f, "q{i} = {}", q.name())?;
        }
        for op in &self.ops {
            match op {
                Op::Gate { gate, condition: None } => writeln!(f, "{gate}")?,
                Op::Gate { gate, condition: Some(cond) } => {
                    let name = self.registers.get(cond.register).map_or("?", |r| r.name.as_str());
                    writeln!(f, "if ({name} == {}) {gate}", cond.value)?
                }
                Op::Measure { qubit, clbit } => writeln!(f, "measure q{} -> c{}", qubit.0, clbit.0)?,
                Op::Reset { qubit } => writeln!(f, "reset q{}", qubit.0)?,
            }
        }
        for ps in &self.postselect {
            writeln!(f, "postselect c{} == {}", ps.clbit.0, u8::from(ps.value))?;
        }
        Ok(())
    }
}
