//! The working form every pass reads and writes: one-qubit matrices, CX, SWAP and native
//! two-qubit gates, measurements and resets over numbered qubits (logical before routing,
//! physical after).

use qchess_circuit::ir::{Circuit, GateKind, Matrix2, Op, Qubit};
use std::f64::consts::{FRAC_PI_2, PI};

use qchess_qasm::lower::{GateSet, LowerError, lower_gate};

use crate::error::RouteError;
use crate::native::NativeGate;

/// One instruction of a [`Program`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Instr {
    /// Any one-qubit unitary.
    One {
        /// The qubit.
        qubit: u32,
        /// Its matrix.
        matrix: Matrix2,
    },
    /// CNOT.
    Cx {
        /// Control.
        control: u32,
        /// Target.
        target: u32,
    },
    /// `iSWAP^power`, followed by a SWAP of the pair when `swapped` (a routing SWAP merged into it);
    /// kept whole until after routing so that merge can happen.
    ISwap {
        /// The power `t`.
        power: f64,
        /// First operand.
        a: u32,
        /// Second operand.
        b: u32,
        /// Whether a SWAP of `a` and `b` follows.
        swapped: bool,
    },
    /// Exchange of two qubits (inserted by routing).
    Swap {
        /// One qubit.
        a: u32,
        /// The other.
        b: u32,
    },
    /// A native two-qubit gate (after translation).
    Native {
        /// The gate.
        gate: NativeGate,
        /// First operand.
        a: u32,
        /// Second operand.
        b: u32,
    },
    /// Measurement into a classical bit.
    Measure {
        /// The qubit.
        qubit: u32,
        /// The classical bit.
        clbit: u32,
    },
    /// Reset to |0>.
    Reset {
        /// The qubit.
        qubit: u32,
    },
}

impl Instr {
    /// The qubits it touches: one or two.
    pub fn qubits(&self) -> (u32, Option<u32>) {
        match *self {
            Instr::One { qubit, .. } | Instr::Measure { qubit, .. } | Instr::Reset { qubit } => (qubit, None),
            Instr::Cx { control, target } => (control, Some(target)),
            Instr::Swap { a, b } | Instr::Native { a, b, .. } | Instr::ISwap { a, b, .. } => (a, Some(b)),
        }
    }

    /// Whether it acts on two qubits.
    pub fn is_two_qubit(&self) -> bool {
        self.qubits().1.is_some()
    }

    /// The same instruction on other qubits.
    #[must_use]
    pub fn remapped(&self, map: impl Fn(u32) -> u32) -> Instr {
        match *self {
            Instr::One { qubit, matrix } => Instr::One { qubit: map(qubit), matrix },
            Instr::Cx { control, target } => Instr::Cx { control: map(control), target: map(target) },
            Instr::Swap { a, b } => Instr::Swap { a: map(a), b: map(b) },
            Instr::ISwap { power, a, b, swapped } => Instr::ISwap { power, a: map(a), b: map(b), swapped },
            Instr::Native { gate, a, b } => Instr::Native { gate, a: map(a), b: map(b) },
            Instr::Measure { qubit, clbit } => Instr::Measure { qubit: map(qubit), clbit },
            Instr::Reset { qubit } => Instr::Reset { qubit: map(qubit) },
        }
    }
}

/// Instructions over `num_qubits` qubits and `num_clbits` classical bits.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Program {
    /// Number of qubits.
    pub num_qubits: u32,
    /// Number of classical bits.
    pub num_clbits: u32,
    /// The instructions in order.
    pub instrs: Vec<Instr>,
}

impl Program {
    /// Number of two-qubit instructions.
    pub fn two_qubit_count(&self) -> usize {
        self.instrs.iter().filter(|i| i.is_two_qubit()).count()
    }

    /// Takes the measurements out, as `(qubit, clbit)` in order, for a device that measures at
    /// the end only (put them back with [`crate::Compiled::measure_at_end`]). The circuits qchess
    /// builds defer their measurements (no gate touches a measured qubit afterwards), so reading
    /// a measured qubit at the end gives the same bit.
    pub fn take_measurements(&mut self) -> Vec<(u32, u32)> {
        let mut taken = Vec::new();
        self.instrs.retain(|instr| match *instr {
            Instr::Measure { qubit, clbit } => {
                taken.push((qubit, clbit));
                false
            }
            _ => true,
        });
        taken
    }
}

/// `ops[from..]` of `circuit` as instructions: uncontrolled iSWAP powers as they are (lowered
/// after routing, see [`iswap_power`]), singly controlled ones in six CX, everything else through
/// the exact CX lowering of `qchess_qasm::lower`; then `measure` (qubits measured at the end into
/// the bits after the circuit's own).
pub fn from_circuit(circuit: &Circuit, from: usize, measure: &[Qubit]) -> Result<Program, RouteError> {
    let mut instrs = Vec::with_capacity(circuit.ops.len() * 4 + measure.len());
    for (index, op) in circuit.ops.iter().enumerate().skip(from) {
        if let Op::Gate { gate, condition: None } = op
            && gate.controls.is_empty()
            && let (GateKind::ISwap(t), &[a, b]) = (gate.kind, gate.targets.as_slice())
        {
            gate.check_shape(circuit.num_qubits()).map_err(|source| LowerError::InvalidGate { op: index, source })?;
            instrs.push(Instr::ISwap { power: t, a: a.0, b: b.0, swapped: false });
            continue;
        }
        if let Op::Gate { gate, condition: None } = op
            && let (GateKind::ISwap(t), &[a, b], &[control]) =
                (gate.kind, gate.targets.as_slice(), gate.controls.as_slice())
        {
            gate.check_shape(circuit.num_qubits()).map_err(|source| LowerError::InvalidGate { op: index, source })?;
            instrs.extend(controlled_iswap_power(t, control.qubit.0, control.on, a.0, b.0));
            continue;
        }
        match op {
            Op::Gate { gate, condition: None } => {
                gate.check_shape(circuit.num_qubits())
                    .map_err(|source| LowerError::InvalidGate { op: index, source })?;
                for gate in lower_gate(gate, GateSet::CxSingleQubit).map_err(|e| renumber(e, index))? {
                    lower_op(&Op::Gate { gate, condition: None }, index, &mut instrs)?;
                }
            }
            other => lower_op(other, index, &mut instrs)?,
        }
    }
    for (j, qubit) in measure.iter().enumerate() {
        instrs.push(Instr::Measure { qubit: qubit.0, clbit: circuit.clbits + j as u32 });
    }
    Ok(Program { num_qubits: circuit.num_qubits() as u32, num_clbits: circuit.clbits + measure.len() as u32, instrs })
}

/// A lowering error of a one-operation circuit, naming the operation's index in the whole one.
fn renumber(error: LowerError, index: usize) -> LowerError {
    match error {
        LowerError::InvalidGate { source, .. } => LowerError::InvalidGate { op: index, source },
        LowerError::TooManyControls { gate, controls, .. } => LowerError::TooManyControls { op: index, gate, controls },
    }
}

/// A one-qubit gate of `kind` (a constant kind with a 2x2 matrix; the identity otherwise).
pub(crate) fn one(qubit: u32, kind: GateKind) -> Instr {
    Instr::One { qubit, matrix: kind.matrix2().unwrap_or_else(crate::linalg::identity2) }
}

/// `iSWAP^t = exp(+i pi t/4 (XX + YY))` with two CX: the XX+YY rotation (Qiskit's
/// `XXPlusYYGate` construction with beta = 0) diagonalised by a basis change on each qubit.
pub fn iswap_power(t: f64, a: u32, b: u32) -> Vec<Instr> {
    let theta = -PI * t;
    vec![
        one(b, GateKind::Rz(-FRAC_PI_2)),
        one(b, GateKind::Sx),
        one(b, GateKind::Rz(FRAC_PI_2)),
        one(a, GateKind::S),
        Instr::Cx { control: b, target: a },
        one(b, GateKind::Ry(-theta / 2.0)),
        one(a, GateKind::Ry(-theta / 2.0)),
        Instr::Cx { control: b, target: a },
        one(a, GateKind::Sdg),
        one(b, GateKind::Rz(-FRAC_PI_2)),
        one(b, GateKind::Sxdg),
        one(b, GateKind::Rz(FRAC_PI_2)),
    ]
}

/// `iSWAP^t` on `a`, `b` where `control` reads `on`, with six CX. As in the general lowering,
/// `C-iSWAP^t = CX(a,b) . H_a . [phase -pi t on c.b.a, phase pi t/2 on c.b] . H_a . CX(a,b)`;
/// expanded as a phase polynomial the two phases leave only the parities `a`, `a^b`, `a^b^c`
/// and `a^c`, which one Gray-code walk of four CX visits on `a` alone.
pub fn controlled_iswap_power(t: f64, control: u32, on: bool, a: u32, b: u32) -> Vec<Instr> {
    let quarter = PI * t / 4.0;
    let flip: Vec<Instr> = if on { Vec::new() } else { vec![one(control, GateKind::X)] };
    let mut out = flip.clone();
    out.extend([
        Instr::Cx { control: a, target: b },
        one(a, GateKind::H),
        one(a, GateKind::Phase(-quarter)),
        Instr::Cx { control: b, target: a },
        one(a, GateKind::Phase(quarter)),
        Instr::Cx { control, target: a },
        one(a, GateKind::Phase(-quarter)),
        Instr::Cx { control: b, target: a },
        one(a, GateKind::Phase(quarter)),
        Instr::Cx { control, target: a },
        one(a, GateKind::H),
        Instr::Cx { control: a, target: b },
    ]);
    out.extend(flip);
    out
}

/// One operation of a CX-lowered circuit as instructions.
fn lower_op(op: &Op, index: usize, instrs: &mut Vec<Instr>) -> Result<(), RouteError> {
    match op {
        Op::Gate { condition: Some(_), .. } => return Err(RouteError::Conditional { op: index }),
        Op::Gate { gate, condition: None } => match (gate.kind, gate.controls.as_slice(), gate.targets.as_slice()) {
            (GateKind::X, [control], [target]) if control.on => {
                instrs.push(Instr::Cx { control: control.qubit.0, target: target.0 })
            }
            (kind, [], [target]) => {
                let matrix = kind.matrix2().ok_or(RouteError::Internal("a lowered gate is not one-qubit"))?;
                instrs.push(Instr::One { qubit: target.0, matrix });
            }
            _ => return Err(RouteError::Internal("the CX lowering left a gate that is neither CX nor one-qubit")),
        },
        Op::Measure { qubit, clbit } => instrs.push(Instr::Measure { qubit: qubit.0, clbit: clbit.0 }),
        Op::Reset { qubit } => instrs.push(Instr::Reset { qubit: qubit.0 }),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::{State, run_program};

    /// The unitary of a program over `n` qubits, column by column.
    fn unitary(program: &Program, n: usize) -> Vec<num_complex::Complex64> {
        let mut columns = Vec::new();
        for k in 0..1usize << n {
            let mut amps = vec![num_complex::Complex64::new(0.0, 0.0); 1 << n];
            amps[k] = num_complex::Complex64::new(1.0, 0.0);
            let mut state = State::from_amplitudes(amps);
            run_program(program, &mut state, &|q| q as usize).expect("runs");
            columns.extend_from_slice(state.amplitudes());
        }
        columns
    }

    #[test]
    fn controlled_iswap_powers_take_six_cx_and_match_the_general_lowering() {
        for t in [0.5, -0.5, 1.0, -1.0, 0.3] {
            for on in [true, false] {
                let ours = Program { num_qubits: 3, num_clbits: 0, instrs: controlled_iswap_power(t, 2, on, 1, 0) };
                assert_eq!(ours.two_qubit_count(), 6);
                let control = qchess_circuit::ir::Control { qubit: Qubit(2), on };
                let gate = qchess_circuit::ir::Gate {
                    kind: GateKind::ISwap(t),
                    targets: [Qubit(1), Qubit(0)].into_iter().collect(),
                    controls: [control].into_iter().collect(),
                };
                let mut general = Vec::new();
                for gate in lower_gate(&gate, GateSet::CxSingleQubit).expect("lowers") {
                    lower_op(&Op::Gate { gate, condition: None }, 0, &mut general).expect("CX or 1q");
                }
                let reference = Program { num_qubits: 3, num_clbits: 0, instrs: general };
                assert!(
                    crate::linalg::equal_up_to_phase(&unitary(&ours, 3), &unitary(&reference, 3)),
                    "t = {t}, on = {on}"
                );
            }
        }
    }

    #[test]
    fn iswap_powers_take_two_cx_and_are_exact() {
        for t in [0.5, -0.5, 1.0, -1.0, 0.3] {
            let program = Program { num_qubits: 2, num_clbits: 0, instrs: iswap_power(t, 0, 1) };
            assert_eq!(program.two_qubit_count(), 2);
            let expected = GateKind::ISwap(t).matrix4().expect("2q");
            let mut columns = Vec::new();
            let mut wanted = Vec::new();
            for k in 0..4 {
                let mut amps = vec![num_complex::Complex64::new(0.0, 0.0); 4];
                amps[k] = num_complex::Complex64::new(1.0, 0.0);
                let mut state = State::from_amplitudes(amps);
                run_program(&program, &mut state, &|q| q as usize).expect("runs");
                columns.extend_from_slice(state.amplitudes());
                wanted.extend((0..4).map(|r| expected[r][k]));
            }
            assert!(crate::linalg::equal_up_to_phase(&columns, &wanted), "t = {t}");
        }
    }
}
