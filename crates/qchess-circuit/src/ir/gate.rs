//! Gates: a unitary on one or two targets under any number of controls.

use std::fmt;

use smallvec::{SmallVec, smallvec};

use super::{GateKind, Qubit};

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
