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

use std::fmt;

use num_complex::Complex64;
use qchess_core::Square;
use smallvec::{SmallVec, smallvec};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QubitInfo {
    /// What the qubit stands for.
    pub role: QubitRole,
    /// Name used in debug output and in the header comments of exported circuits.
    pub name: String,
}

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

/// The unitary a gate applies to its targets (before controls).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GateKind {
    /// Pauli X (NOT).
    X,
    /// Pauli Y.
    Y,
    /// Pauli Z.
    Z,
    /// Hadamard.
    H,
    /// sqrt(Z).
    S,
    /// S dagger.
    Sdg,
    /// sqrt(S).
    T,
    /// T dagger.
    Tdg,
    /// sqrt(X).
    Sx,
    /// sqrt(X) dagger.
    Sxdg,
    /// `exp(-i theta/2 X)`.
    Rx(f64),
    /// `exp(-i theta/2 Y)`.
    Ry(f64),
    /// `exp(-i theta/2 Z)`.
    Rz(f64),
    /// `diag(1, e^{i lambda})`.
    Phase(f64),
    /// OpenQASM 3 `U(theta, phi, lambda)`.
    U(f64, f64, f64),
    /// Exchange of two qubits.
    Swap,
    /// `iSWAP^t = exp(+i pi t/4 (XX + YY))`; the compiler uses t = +-1 and +-1/2.
    ISwap(f64),
    /// `exp(-i theta/2 X(x)X)`.
    Rxx(f64),
    /// `exp(-i theta/2 Y(x)Y)`.
    Ryy(f64),
    /// `exp(-i theta/2 Z(x)Z)`.
    Rzz(f64),
}

/// A 2x2 unitary, row-major.
pub type Matrix2 = [[Complex64; 2]; 2];
/// A 4x4 unitary, row-major, index bit 0 = first target.
pub type Matrix4 = [[Complex64; 4]; 4];

fn c(re: f64, im: f64) -> Complex64 {
    Complex64::new(re, im)
}

impl GateKind {
    /// Number of target qubits: 1 or 2.
    pub const fn arity(self) -> usize {
        match self {
            GateKind::Swap | GateKind::ISwap(_) | GateKind::Rxx(_) | GateKind::Ryy(_) | GateKind::Rzz(_) => 2,
            _ => 1,
        }
    }

    /// The inverse gate.
    pub fn inverse(self) -> GateKind {
        use GateKind::*;
        match self {
            X | Y | Z | H | Swap => self,
            S => Sdg,
            Sdg => S,
            T => Tdg,
            Tdg => T,
            Sx => Sxdg,
            Sxdg => Sx,
            Rx(a) => Rx(-a),
            Ry(a) => Ry(-a),
            Rz(a) => Rz(-a),
            Phase(a) => Phase(-a),
            U(theta, phi, lambda) => U(-theta, -lambda, -phi),
            ISwap(t) => ISwap(-t),
            Rxx(a) => Rxx(-a),
            Ryy(a) => Ryy(-a),
            Rzz(a) => Rzz(-a),
        }
    }

    /// Whether the gate maps basis states to basis states (times a phase): then a sparse
    /// state never grows under it.
    pub fn is_permutation(self) -> bool {
        use GateKind::*;
        match self {
            X | Y | Z | S | Sdg | T | Tdg | Rz(_) | Phase(_) | Swap | Rzz(_) => true,
            ISwap(t) => (t.rem_euclid(2.0) - 1.0).abs() < 1e-15 || t.rem_euclid(2.0) < 1e-15,
            _ => false,
        }
    }

    /// The 2x2 matrix of a one-qubit gate, or `None` for a two-qubit gate.
    pub fn matrix2(self) -> Option<Matrix2> {
        use GateKind::*;
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let phase = |a: f64| Complex64::from_polar(1.0, a);
        let zero = c(0.0, 0.0);
        let one = c(1.0, 0.0);
        Some(match self {
            X => [[zero, one], [one, zero]],
            Y => [[zero, c(0.0, -1.0)], [c(0.0, 1.0), zero]],
            Z => [[one, zero], [zero, -one]],
            H => [[c(h, 0.0), c(h, 0.0)], [c(h, 0.0), c(-h, 0.0)]],
            S => [[one, zero], [zero, c(0.0, 1.0)]],
            Sdg => [[one, zero], [zero, c(0.0, -1.0)]],
            T => [[one, zero], [zero, phase(std::f64::consts::FRAC_PI_4)]],
            Tdg => [[one, zero], [zero, phase(-std::f64::consts::FRAC_PI_4)]],
            Sx => [[c(0.5, 0.5), c(0.5, -0.5)], [c(0.5, -0.5), c(0.5, 0.5)]],
            Sxdg => [[c(0.5, -0.5), c(0.5, 0.5)], [c(0.5, 0.5), c(0.5, -0.5)]],
            Rx(a) => {
                let (s, co) = (a / 2.0).sin_cos();
                [[c(co, 0.0), c(0.0, -s)], [c(0.0, -s), c(co, 0.0)]]
            }
            Ry(a) => {
                let (s, co) = (a / 2.0).sin_cos();
                [[c(co, 0.0), c(-s, 0.0)], [c(s, 0.0), c(co, 0.0)]]
            }
            Rz(a) => [[phase(-a / 2.0), zero], [zero, phase(a / 2.0)]],
            Phase(a) => [[one, zero], [zero, phase(a)]],
            U(theta, phi, lambda) => {
                let (s, co) = (theta / 2.0).sin_cos();
                [[c(co, 0.0), -phase(lambda) * s], [phase(phi) * s, phase(phi + lambda) * co]]
            }
            Swap | ISwap(_) | Rxx(_) | Ryy(_) | Rzz(_) => return None,
        })
    }

    /// The 4x4 matrix of a two-qubit gate, or `None` for a one-qubit gate.
    pub fn matrix4(self) -> Option<Matrix4> {
        use GateKind::*;
        let zero = c(0.0, 0.0);
        let one = c(1.0, 0.0);
        let mut m = [[zero; 4]; 4];
        match self {
            Swap => {
                m[0][0] = one;
                m[1][2] = one;
                m[2][1] = one;
                m[3][3] = one;
            }
            ISwap(t) => {
                let (s, co) = (std::f64::consts::FRAC_PI_2 * t).sin_cos();
                m[0][0] = one;
                m[3][3] = one;
                m[1][1] = c(co, 0.0);
                m[2][2] = c(co, 0.0);
                m[1][2] = c(0.0, s);
                m[2][1] = c(0.0, s);
            }
            Rxx(a) => {
                let (s, co) = (a / 2.0).sin_cos();
                for (k, row) in m.iter_mut().enumerate() {
                    row[k] = c(co, 0.0);
                    row[3 - k] = c(0.0, -s);
                }
            }
            Ryy(a) => {
                let (s, co) = (a / 2.0).sin_cos();
                for (k, row) in m.iter_mut().enumerate() {
                    row[k] = c(co, 0.0);
                }
                // Y(x)Y maps |00> -> -|11>, |01> -> |10>.
                m[0][3] = c(0.0, s);
                m[3][0] = c(0.0, s);
                m[1][2] = c(0.0, -s);
                m[2][1] = c(0.0, -s);
            }
            Rzz(a) => {
                let minus = Complex64::from_polar(1.0, -a / 2.0);
                let plus = Complex64::from_polar(1.0, a / 2.0);
                m[0][0] = minus;
                m[1][1] = plus;
                m[2][2] = plus;
                m[3][3] = minus;
            }
            _ => return None,
        }
        Some(m)
    }

    /// One gate of every kind, with parameters that avoid special cases, plus every iSWAP
    /// power the move compiler emits: what exhaustive tests of simulators, emitters and
    /// lowerings run through.
    pub fn samples() -> Vec<GateKind> {
        use GateKind::*;
        vec![
            X,
            Y,
            Z,
            H,
            S,
            Sdg,
            T,
            Tdg,
            Sx,
            Sxdg,
            Rx(0.37),
            Ry(-1.21),
            Rz(2.5),
            Phase(0.81),
            U(0.3, -1.1, 2.2),
            Swap,
            ISwap(1.0),
            ISwap(0.5),
            ISwap(-0.5),
            ISwap(-1.0),
            ISwap(0.3),
            Rxx(0.7),
            Ryy(-0.4),
            Rzz(1.3),
        ]
    }

    /// Lower-case name for debug output (`iswap^0.5`, `rz(1.5708)`).
    pub fn name(self) -> String {
        use GateKind::*;
        match self {
            X => "x".into(),
            Y => "y".into(),
            Z => "z".into(),
            H => "h".into(),
            S => "s".into(),
            Sdg => "sdg".into(),
            T => "t".into(),
            Tdg => "tdg".into(),
            Sx => "sx".into(),
            Sxdg => "sxdg".into(),
            Rx(a) => format!("rx({a})"),
            Ry(a) => format!("ry({a})"),
            Rz(a) => format!("rz({a})"),
            Phase(a) => format!("p({a})"),
            U(t, p, l) => format!("u({t},{p},{l})"),
            Swap => "swap".into(),
            ISwap(t) => format!("iswap^{t}"),
            Rxx(a) => format!("rxx({a})"),
            Ryy(a) => format!("ryy({a})"),
            Rzz(a) => format!("rzz({a})"),
        }
    }
}

/// A control on a qubit: the gate acts only where the qubit is |1> (`on: true`) or, for an
/// anti-control, |0> (`on: false`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Control {
    /// The control qubit.
    pub qubit: Qubit,
    /// The value the control qubit must have.
    pub on: bool,
}

/// A unitary gate on one or two targets with any number of controls.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    /// The unitary applied to the targets.
    pub kind: GateKind,
    /// One or two target qubits (see [`GateKind::arity`]).
    pub targets: SmallVec<[Qubit; 2]>,
    /// Controls; the gate acts where every control has its value.
    pub controls: SmallVec<[Control; 3]>,
}

impl Gate {
    /// An uncontrolled one-qubit gate.
    pub fn one(kind: GateKind, target: Qubit) -> Gate {
        debug_assert_eq!(kind.arity(), 1);
        Gate { kind, targets: smallvec![target], controls: SmallVec::new() }
    }

    /// An uncontrolled two-qubit gate.
    pub fn two(kind: GateKind, a: Qubit, b: Qubit) -> Gate {
        debug_assert_eq!(kind.arity(), 2);
        Gate { kind, targets: smallvec![a, b], controls: SmallVec::new() }
    }

    /// Pauli X on `target`.
    pub fn x(target: Qubit) -> Gate {
        Gate::one(GateKind::X, target)
    }

    /// CNOT: X on `target` controlled by `control`.
    pub fn cx(control: Qubit, target: Qubit) -> Gate {
        Gate::x(target).controlled(control)
    }

    /// `iSWAP^power` on `a` and `b`.
    pub fn iswap(a: Qubit, b: Qubit, power: f64) -> Gate {
        Gate::two(GateKind::ISwap(power), a, b)
    }

    /// This gate with one more control, active on |1>.
    #[must_use]
    pub fn controlled(mut self, qubit: Qubit) -> Gate {
        self.controls.push(Control { qubit, on: true });
        self
    }

    /// This gate with one more anti-control, active on |0>.
    #[must_use]
    pub fn anti_controlled(mut self, qubit: Qubit) -> Gate {
        self.controls.push(Control { qubit, on: false });
        self
    }

    /// This gate with the given controls added.
    #[must_use]
    pub fn with_controls(mut self, controls: impl IntoIterator<Item = Control>) -> Gate {
        self.controls.extend(controls);
        self
    }

    /// The inverse gate (same targets and controls).
    #[must_use]
    pub fn inverse(&self) -> Gate {
        Gate { kind: self.kind.inverse(), targets: self.targets.clone(), controls: self.controls.clone() }
    }

    /// Every qubit the gate touches, targets first.
    pub fn qubits(&self) -> impl Iterator<Item = Qubit> + '_ {
        self.targets.iter().copied().chain(self.controls.iter().map(|c| c.qubit))
    }
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

    /// Adds a qubit with a generated name (`e4`, `e4_1` for a later generation, `anc3_path`).
    pub fn add_qubit(&mut self, role: QubitRole) -> Qubit {
        let index = self.qubits.len() as u32;
        let name = match role {
            QubitRole::Square { square, generation: 0 } => square.to_string(),
            QubitRole::Square { square, generation } => format!("{square}_{generation}"),
            QubitRole::Path => format!("anc{index}_path"),
            QubitRole::Condition => format!("anc{index}_cond"),
            QubitRole::Captured => format!("anc{index}_captured"),
            QubitRole::EnPassant => format!("anc{index}_ep"),
            QubitRole::Scratch => format!("anc{index}_scratch"),
            QubitRole::General => format!("q{index}"),
        };
        self.add_named_qubit(role, name)
    }

    /// Adds a qubit with an explicit name.
    pub fn add_named_qubit(&mut self, role: QubitRole, name: String) -> Qubit {
        self.qubits.push(QubitInfo { role, name });
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

    /// Number of qubits.
    pub fn num_qubits(&self) -> usize {
        self.qubits.len()
    }

    /// The qubits that hold square occupancies, with their squares, in qubit order.
    pub fn square_qubits(&self) -> impl Iterator<Item = (Qubit, Square)> + '_ {
        self.qubits.iter().enumerate().filter_map(|(i, q)| q.role.as_square().map(|sq| (Qubit(i as u32), sq)))
    }
}

/// Why a gate does not fit a circuit (see [`Gate::check_shape`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GateShapeError {
    /// The number of targets differs from the kind's arity.
    #[error("{kind} needs {expected} target(s), got {actual}")]
    WrongArity {
        /// The gate kind's name.
        kind: String,
        /// Targets the kind needs.
        expected: usize,
        /// Targets the gate has.
        actual: usize,
    },
    /// A target or control does not exist.
    #[error("qubit {qubit} does not exist (the circuit has {qubits})")]
    QubitOutOfRange {
        /// The missing qubit.
        qubit: u32,
        /// Qubits of the circuit.
        qubits: usize,
    },
    /// The same qubit appears twice among the targets and controls.
    #[error("qubit {qubit} is used twice")]
    RepeatedQubit {
        /// The repeated qubit.
        qubit: u32,
    },
    /// A parameter is NaN or infinite.
    #[error("parameter {value} is not a finite number")]
    NonFiniteParameter {
        /// The parameter.
        value: f64,
    },
}

impl GateKind {
    /// The kind's real parameters (angles, or the power of `ISwap`), in declaration order.
    pub fn parameters(self) -> SmallVec<[f64; 3]> {
        use GateKind::*;
        match self {
            Rx(a) | Ry(a) | Rz(a) | Phase(a) | ISwap(a) | Rxx(a) | Ryy(a) | Rzz(a) => smallvec![a],
            U(theta, phi, lambda) => smallvec![theta, phi, lambda],
            X | Y | Z | H | S | Sdg | T | Tdg | Sx | Sxdg | Swap => SmallVec::new(),
        }
    }
}

impl Gate {
    /// Checks that the gate fits a circuit of `num_qubits` qubits: as many targets as its
    /// kind's arity, every qubit in range and used once, every parameter finite.
    pub fn check_shape(&self, num_qubits: usize) -> Result<(), GateShapeError> {
        let expected = self.kind.arity();
        if self.targets.len() != expected {
            return Err(GateShapeError::WrongArity { kind: self.kind.name(), expected, actual: self.targets.len() });
        }
        for (position, qubit) in self.qubits().enumerate() {
            if qubit.index() >= num_qubits {
                return Err(GateShapeError::QubitOutOfRange { qubit: qubit.0, qubits: num_qubits });
            }
            if self.qubits().take(position).any(|earlier| earlier == qubit) {
                return Err(GateShapeError::RepeatedQubit { qubit: qubit.0 });
            }
        }
        if let Some(&value) = self.kind.parameters().iter().find(|p| !p.is_finite()) {
            return Err(GateShapeError::NonFiniteParameter { value });
        }
        Ok(())
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for control in &self.controls {
            f.write_str(if control.on { "c" } else { "nc" })?;
        }
        f.write_str(&self.kind.name())?;
        let mut sep = " ";
        for control in &self.controls {
            write!(f, "{sep}q{}", control.qubit.0)?;
            sep = ", ";
        }
        for target in &self.targets {
            write!(f, "{sep}q{}", target.0)?;
            sep = ", ";
        }
        Ok(())
    }
}

/// Debug listing: one qubit per line (`q0 = b1 (square)`), then one operation per line.
impl fmt::Display for Circuit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, q) in self.qubits.iter().enumerate() {
            writeln!(f, "q{i} = {}", q.name)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Complex64, b: Complex64) -> bool {
        (a - b).norm() < 1e-12
    }

    fn mul4(a: &Matrix4, b: &Matrix4) -> Matrix4 {
        let mut m = [[c(0.0, 0.0); 4]; 4];
        for i in 0..4 {
            for j in 0..4 {
                m[i][j] = (0..4).map(|k| a[i][k] * b[k][j]).sum();
            }
        }
        m
    }

    #[test]
    fn sqrt_iswap_squared_is_iswap() {
        let half = GateKind::ISwap(0.5).matrix4().expect("two-qubit");
        let full = GateKind::ISwap(1.0).matrix4().expect("two-qubit");
        let squared = mul4(&half, &half);
        for i in 0..4 {
            for j in 0..4 {
                assert!(close(squared[i][j], full[i][j]), "{i},{j}");
            }
        }
        assert!(close(full[1][2], c(0.0, 1.0)));
        assert!(close(full[2][1], c(0.0, 1.0)));
    }

    #[test]
    fn rxx_ryy_compose_to_iswap() {
        // iSW^t = RXX(-pi t/2) RYY(-pi t/2) (reference notes, checked numerically there).
        for t in [1.0, 0.5, -0.5, -1.0] {
            let a = -std::f64::consts::FRAC_PI_2 * t;
            let product = mul4(&GateKind::Rxx(a).matrix4().expect("2q"), &GateKind::Ryy(a).matrix4().expect("2q"));
            let iswap = GateKind::ISwap(t).matrix4().expect("2q");
            for i in 0..4 {
                for j in 0..4 {
                    assert!(close(product[i][j], iswap[i][j]), "t={t} {i},{j}");
                }
            }
        }
    }

    #[test]
    fn inverses_multiply_to_identity() {
        let kinds = [
            GateKind::S,
            GateKind::T,
            GateKind::Sx,
            GateKind::Rx(0.3),
            GateKind::Ry(0.7),
            GateKind::Rz(1.1),
            GateKind::Phase(0.4),
            GateKind::U(0.3, 0.5, 0.9),
        ];
        for kind in kinds {
            let m = kind.matrix2().expect("1q");
            let inv = kind.inverse().matrix2().expect("1q");
            for (i, row) in m.iter().enumerate() {
                for j in 0..2 {
                    let v: Complex64 = row.iter().zip(&inv).map(|(a, inv_row)| a * inv_row[j]).sum();
                    let expected = if i == j { c(1.0, 0.0) } else { c(0.0, 0.0) };
                    assert!(close(v, expected), "{kind:?}");
                }
            }
        }
    }
}
