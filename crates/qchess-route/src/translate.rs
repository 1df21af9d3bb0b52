//! Basis translation: SWAP into CX, CX into each target's two-qubit gate (in a direction the
//! coupling map allows), and one-qubit matrices into each target's Euler form:
//!
//! * CZ and ECR targets: `rz . sx . rz . sx . rz` (one `sx` at `theta = pi/2`, `x` at `pi`, a
//!   lone `rz` for diagonal gates); Rigetti's the same with `rx(pi/2)` for `sx` and `rx(pi)` for
//!   `x`, the only `rx` angles its devices run;
//! * sqrt-iSWAP targets: `rz . rx . rz`;
//! * IonQ native: two `gpi2` and, unless the remaining Z rotation vanishes, two `gpi`;
//! * IQM: one `prx`, the Z rotations around it folded into later `prx` phases (see
//!   [`crate::frames`]).

use std::f64::consts::{FRAC_PI_2, PI};

use qchess_circuit::ir::{Gate, GateKind, Matrix2, Qubit};
use qchess_qasm::lower::{GateSet, lower_gate};

use crate::error::RouteError;
use crate::frames::fold_into_prx;
use crate::linalg::{EPS, is_zero_angle, wrap, zyz_angles};
use crate::native::{IsaOp, NativeGate};
use crate::program::{Instr, Program, iswap_power, one};
use crate::target::{Basis, Target};

/// Replaces every SWAP by three CX, oriented so that a CX of a neighbouring instruction on the
/// same pair can cancel against it and, on a directed target, two of the three run natively; a
/// SWAP whose pair last met in an iSWAP power (only one-qubit gates on the pair since, which
/// move across the SWAP) is merged into it instead (see [`lower_iswaps`]).
pub fn expand_swaps(program: &mut Program, target: &Target) {
    let mut out: Vec<Instr> = Vec::with_capacity(program.instrs.len() + 2 * program.two_qubit_count());
    for instr in &program.instrs {
        let Instr::Swap { a, b } = *instr else {
            out.push(*instr);
            continue;
        };
        let touches = |i: &Instr| {
            let (x, y) = i.qubits();
            [a, b].contains(&x) || y.is_some_and(|y| [a, b].contains(&y))
        };
        let last_two = out.iter().rposition(|i| i.is_two_qubit() && touches(i));
        if let Some(k) = last_two
            && let Instr::ISwap { a: x, b: y, swapped: false, .. } = out[k]
            && ([x, y] == [a, b] || [y, x] == [a, b])
            && !out[k + 1..].iter().any(|i| touches(i) && !matches!(i, Instr::One { .. }))
        {
            let Instr::ISwap { power, a: x, b: y, .. } = out[k] else { unreachable!("matched above") };
            out[k] = Instr::ISwap { power, a: x, b: y, swapped: true };
            for later in &mut out[k + 1..] {
                if let Instr::One { qubit, matrix } = *later
                    && (qubit == a || qubit == b)
                {
                    *later = Instr::One { qubit: if qubit == a { b } else { a }, matrix };
                }
            }
            continue;
        }
        let previous = out.iter().rev().find(|i| touches(i));
        let (first, second) = match previous {
            Some(Instr::Cx { control, target: t }) if (*control, *t) == (b, a) => (b, a),
            Some(Instr::Cx { control, target: t }) if (*control, *t) == (a, b) => (a, b),
            _ if !target.allows(a, b) && target.allows(b, a) => (b, a),
            _ => (a, b),
        };
        out.extend([
            Instr::Cx { control: first, target: second },
            Instr::Cx { control: second, target: first },
            Instr::Cx { control: first, target: second },
        ]);
    }
    program.instrs = out;
}

/// Lowers iSWAP powers: on a sqrt-iSWAP target natively for powers +-1/2 and +-1; otherwise in two
/// CX ([`iswap_power`]); merged with a SWAP, `SWAP . iSWAP^(+-1) = (S (x) S)^(+-1) CZ` takes one
/// CX, other powers the two of the power and three of the SWAP.
pub fn lower_iswaps(program: &mut Program, target: &Target) -> Result<(), RouteError> {
    let mut out = Vec::with_capacity(program.instrs.len() * 2);
    for instr in &program.instrs {
        let Instr::ISwap { power, a, b, swapped } = *instr else {
            out.push(*instr);
            continue;
        };
        let whole = power == 1.0 || power == -1.0;
        let half = power == 0.5 || power == -0.5;
        if swapped && whole {
            let s = if power > 0.0 { GateKind::S } else { GateKind::Sdg };
            out.extend([
                one(b, GateKind::H),
                Instr::Cx { control: a, target: b },
                one(b, GateKind::H),
                one(a, s),
                one(b, s),
            ]);
            continue;
        }
        if target.basis == Basis::RigettiIswap && whole && !swapped {
            // iSWAP^-1 = (Z (x) 1) iSWAP (Z (x) 1).
            let z = || one(a, GateKind::Z);
            if power < 0.0 {
                out.push(z());
            }
            out.push(Instr::Native { gate: NativeGate::ISwap, a, b });
            if power < 0.0 {
                out.push(z());
            }
            continue;
        }
        if target.basis == Basis::SqrtIswap && (whole || half) {
            for gate in lower_gate(&Gate::iswap(Qubit(a), Qubit(b), power), GateSet::SqrtIswap)? {
                match (gate.kind, gate.targets.as_slice()) {
                    (GateKind::ISwap(_), &[x, y]) => {
                        out.push(Instr::Native { gate: NativeGate::SqrtIswap, a: x.0, b: y.0 })
                    }
                    (kind, &[q]) => out.push(one(q.0, kind)),
                    _ => {
                        return Err(RouteError::Internal(
                            "the sqrt-iSWAP lowering of an iSWAP power left another gate",
                        ));
                    }
                }
            }
        } else {
            out.extend(iswap_power(power, a, b));
        }
        if swapped {
            out.extend([
                Instr::Cx { control: a, target: b },
                Instr::Cx { control: b, target: a },
                Instr::Cx { control: a, target: b },
            ]);
        }
    }
    program.instrs = out;
    Ok(())
}

/// Replaces every CX by the target's two-qubit gate with one-qubit corrections.
pub fn cx_to_native(program: &mut Program, target: &Target) -> Result<(), RouteError> {
    let mut out = Vec::with_capacity(program.instrs.len() * 2);
    for instr in &program.instrs {
        match *instr {
            Instr::Cx { control, target: t } => cx(control, t, target, &mut out)?,
            Instr::Swap { .. } | Instr::ISwap { .. } => {
                return Err(RouteError::Internal("a SWAP or iSWAP reached basis translation"));
            }
            other => out.push(other),
        }
    }
    program.instrs = out;
    Ok(())
}

fn cx(c: u32, t: u32, target: &Target, out: &mut Vec<Instr>) -> Result<(), RouteError> {
    if !target.is_coupled(c, t) {
        return Err(RouteError::Internal("a CX on an uncoupled pair reached basis translation"));
    }
    match target.basis {
        Basis::Cz | Basis::Prx | Basis::RigettiCz => {
            let (a, b) = if target.allows(c, t) { (c, t) } else { (t, c) };
            out.extend([one(t, GateKind::H), Instr::Native { gate: NativeGate::Cz, a, b }, one(t, GateKind::H)]);
        }
        Basis::Ecr if target.allows(c, t) => out.extend([
            one(c, GateKind::Rz(-FRAC_PI_2)),
            one(t, GateKind::Rz(PI)),
            one(t, GateKind::Sx),
            one(t, GateKind::Rz(PI)),
            Instr::Native { gate: NativeGate::Ecr, a: c, b: t },
            one(c, GateKind::X),
        ]),
        Basis::Ecr => {
            // CX(c, t) = (H (x) H) CX(t, c) (H (x) H).
            out.extend([one(c, GateKind::H), one(t, GateKind::H)]);
            cx(t, c, target, out)?;
            out.extend([one(c, GateKind::H), one(t, GateKind::H)]);
        }
        Basis::SqrtIswap => {
            let gates = lower_gate(&Gate::cx(Qubit(c), Qubit(t)), GateSet::SqrtIswap)?;
            for gate in gates {
                match (gate.kind, gate.targets.as_slice()) {
                    (GateKind::ISwap(_), &[a, b]) => {
                        out.push(Instr::Native { gate: NativeGate::SqrtIswap, a: a.0, b: b.0 })
                    }
                    (kind, &[q]) => out.push(one(q.0, kind)),
                    _ => return Err(RouteError::Internal("the sqrt-iSWAP lowering of CX left another gate")),
                }
            }
        }
        Basis::RigettiIswap => {
            // iSWAP = (S (x) S) SWAP CZ, so iSWAP (S^-1 (x) Rx(pi/2) S^-1) iSWAP =
            // (S (x) S) CZ (Rx(pi/2) (x) 1) CZ = (S (x) S) exp(-i pi/4 X_t Z_c), and CX is that
            // rotation with one-qubit gates around it.
            out.extend([
                one(t, GateKind::X),
                one(c, GateKind::Z),
                Instr::Native { gate: NativeGate::ISwap, a: t, b: c },
                one(t, GateKind::Sdg),
                one(c, GateKind::Sdg),
                one(c, GateKind::Rx(FRAC_PI_2)),
                Instr::Native { gate: NativeGate::ISwap, a: t, b: c },
                one(t, GateKind::Sdg),
                one(c, GateKind::Sdg),
                one(t, GateKind::Rx(FRAC_PI_2)),
                one(c, GateKind::Rz(FRAC_PI_2)),
            ]);
        }
        Basis::IonqZz => {
            // CZ = (Rz(-pi/2) (x) Rz(-pi/2)) ZZ(pi/2) up to phase.
            out.extend([
                one(t, GateKind::H),
                Instr::Native { gate: NativeGate::Zz, a: c, b: t },
                one(c, GateKind::Rz(-FRAC_PI_2)),
                one(t, GateKind::Rz(-FRAC_PI_2)),
                one(t, GateKind::H),
            ]);
        }
        Basis::IonqNative => {
            // CZ = Rzz(pi/2) (Rz(-pi/2) (x) Rz(-pi/2)) up to phase, Rzz(pi/2) = (H (x) H) MS (H (x) H).
            out.extend([
                one(t, GateKind::H),
                one(c, GateKind::Rz(-FRAC_PI_2)),
                one(t, GateKind::Rz(-FRAC_PI_2)),
                one(c, GateKind::H),
                one(t, GateKind::H),
                Instr::Native { gate: NativeGate::Ms, a: c, b: t },
                one(c, GateKind::H),
                one(t, GateKind::H),
                one(t, GateKind::H),
            ]);
        }
    }
    Ok(())
}

/// The ISA operations of a program whose two-qubit instructions are all native.
pub fn synthesize(program: &Program, basis: Basis) -> Result<Vec<IsaOp>, RouteError> {
    let mut out = Vec::with_capacity(program.instrs.len() * 3);
    for instr in &program.instrs {
        match *instr {
            // On IQM's gates each Z rotation becomes a frame change, folded below.
            Instr::One { qubit, matrix } if basis == Basis::Prx => {
                out.extend(prx_with_frames(&matrix).into_iter().map(|gate| IsaOp::One { gate, qubit }))
            }
            Instr::One { qubit, matrix } => {
                out.extend(one_qubit(&matrix, basis).into_iter().map(|gate| IsaOp::One { gate, qubit }))
            }
            Instr::Native { gate, a, b } => out.push(IsaOp::Two { gate, a, b }),
            Instr::Measure { qubit, clbit } => out.push(IsaOp::Measure { qubit, clbit }),
            Instr::Reset { qubit } => out.push(IsaOp::Reset { qubit }),
            Instr::Cx { .. } | Instr::Swap { .. } | Instr::ISwap { .. } => {
                return Err(RouteError::Internal("a CX or SWAP reached one-qubit synthesis"));
            }
        }
    }
    if basis == Basis::Prx {
        out = fold_into_prx(&out, program.num_qubits);
    }
    Ok(out)
}

/// `matrix` as `Rz(lambda)`, `prx(theta, pi/2)` (that is, `Ry(theta)`) and `Rz(phi)`, in time
/// order, up to global phase: IQM's gate with frame changes still to fold.
fn prx_with_frames(matrix: &Matrix2) -> Vec<NativeGate> {
    let (theta, phi, lambda) = zyz_angles(matrix);
    if theta.abs() < EPS {
        return vec![NativeGate::Rz(wrap(phi + lambda))];
    }
    vec![NativeGate::Rz(wrap(lambda)), NativeGate::Prx(wrap(theta), FRAC_PI_2), NativeGate::Rz(wrap(phi))]
}

/// `matrix` as native one-qubit gates of `basis`, in time order, up to global phase.
pub fn one_qubit(matrix: &Matrix2, basis: Basis) -> Vec<NativeGate> {
    let (theta, phi, lambda) = zyz_angles(matrix);
    let rz = |angle: f64, gates: &mut Vec<NativeGate>| {
        if !is_zero_angle(angle) {
            gates.push(NativeGate::Rz(wrap(angle)));
        }
    };
    let mut gates = Vec::with_capacity(5);
    match basis {
        Basis::Prx => {
            let ops: Vec<IsaOp> =
                prx_with_frames(matrix).into_iter().map(|gate| IsaOp::One { gate, qubit: 0 }).collect();
            gates.extend(fold_into_prx(&ops, 1).into_iter().filter_map(|op| match op {
                IsaOp::One { gate, .. } => Some(gate),
                _ => None,
            }));
        }
        Basis::RigettiCz | Basis::RigettiIswap => {
            // IBM's form, with the rotations Rigetti runs.
            gates.extend(one_qubit(matrix, Basis::Cz).into_iter().map(|gate| match gate {
                NativeGate::Sx => NativeGate::Rx(FRAC_PI_2),
                NativeGate::X => NativeGate::Rx(PI),
                other => other,
            }));
        }
        Basis::Cz | Basis::Ecr => {
            if theta.abs() < EPS {
                rz(phi + lambda, &mut gates);
            } else if (theta - FRAC_PI_2).abs() < EPS {
                rz(lambda - FRAC_PI_2, &mut gates);
                gates.push(NativeGate::Sx);
                rz(phi + FRAC_PI_2, &mut gates);
            } else if (theta - PI).abs() < EPS {
                gates.push(NativeGate::X);
                rz(phi - lambda - PI, &mut gates);
            } else {
                rz(lambda, &mut gates);
                gates.push(NativeGate::Sx);
                rz(theta + PI, &mut gates);
                gates.push(NativeGate::Sx);
                rz(phi + PI, &mut gates);
            }
        }
        Basis::SqrtIswap => {
            if theta.abs() < EPS {
                rz(phi + lambda, &mut gates);
            } else {
                rz(lambda - FRAC_PI_2, &mut gates);
                gates.push(NativeGate::Rx(wrap(theta)));
                rz(phi + FRAC_PI_2, &mut gates);
            }
        }
        Basis::IonqNative | Basis::IonqZz => {
            // U = Rz(a) Rx(pi/2) Rz(b) Rx(pi/2) Rz(c) with a = phi + pi, b = theta + pi, c = lambda;
            // moving the Z rotations to the end turns each Rx(pi/2) into a gpi2.
            let (b, c) = (theta + PI, lambda);
            let residual = phi + PI + b + c;
            if theta.abs() < EPS {
                let z = phi + lambda;
                if !is_zero_angle(z) {
                    gates.extend([NativeGate::Gpi(0.0), NativeGate::Gpi(wrap(z / 2.0))]);
                }
            } else {
                gates.extend([NativeGate::Gpi2(wrap(-c)), NativeGate::Gpi2(wrap(-b - c))]);
                if !is_zero_angle(residual) {
                    gates.extend([NativeGate::Gpi(0.0), NativeGate::Gpi(wrap(residual / 2.0))]);
                }
            }
        }
    }
    gates
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::{equal_up_to_phase2, identity2, mul2};

    #[test]
    fn one_qubit_synthesis_rebuilds_every_gate_in_every_basis() {
        let mut kinds: Vec<GateKind> = GateKind::samples().into_iter().filter(|k| k.arity() == 1).collect();
        kinds.extend([
            GateKind::U(FRAC_PI_2, 0.3, -1.2),
            GateKind::U(PI, 0.3, -1.2),
            GateKind::U(1e-12, 0.3, 0.4),
            GateKind::Rz(PI),
            GateKind::U(2.0, 3.0, -3.0),
        ]);
        for basis in Basis::ALL {
            for kind in &kinds {
                let matrix = kind.matrix2().expect("1q");
                let gates = one_qubit(&matrix, basis);
                assert!(gates.iter().all(|g| g.in_basis(basis) && g.arity() == 1), "{basis} {kind:?}: {gates:?}");
                let rebuilt = gates.iter().fold(identity2(), |m, g| mul2(&g.matrix2().expect("1q"), &m));
                assert!(equal_up_to_phase2(&rebuilt, &matrix), "{basis} {kind:?}: {gates:?}");
            }
        }
    }

    /// CX both ways, a SWAP and one-qubit gates, translated for every basis and for a directed
    /// ECR pair, must act as before and use only native gates on allowed pairs.
    #[test]
    fn cx_and_swap_translate_exactly_for_every_basis() {
        let directed = r#"{"name": "pair", "qubits": 2, "basis": "ecr", "coupling": [[1, 0]], "directed": true}"#;
        let mut targets: Vec<Target> = [
            "line:2",
            "line:2@ecr",
            "line:2@sqrt-iswap",
            "all:2",
            "all:2@ionq-zz",
            "line:2@prx",
            "line:2@rigetti-cz",
            "line:2@rigetti-iswap",
        ]
        .iter()
        .map(|spec| Target::resolve(spec).expect("preset"))
        .collect();
        targets.push(Target::from_json(directed, "pair").expect("valid"));
        let logical = Program {
            num_qubits: 2,
            num_clbits: 0,
            instrs: vec![
                one(0, GateKind::U(0.3, 1.1, -0.4)),
                Instr::Cx { control: 0, target: 1 },
                one(1, GateKind::Ry(0.9)),
                Instr::Cx { control: 1, target: 0 },
                Instr::Swap { a: 0, b: 1 },
                one(0, GateKind::T),
                Instr::Cx { control: 0, target: 1 },
                Instr::ISwap { power: 1.0, a: 1, b: 0, swapped: false },
                one(1, GateKind::H),
                Instr::Swap { a: 0, b: 1 },
                Instr::ISwap { power: -0.5, a: 0, b: 1, swapped: false },
                Instr::Swap { a: 1, b: 0 },
                Instr::ISwap { power: 0.3, a: 0, b: 1, swapped: false },
            ],
        };
        for target in &targets {
            let mut program = logical.clone();
            expand_swaps(&mut program, target);
            lower_iswaps(&mut program, target).expect("lowers");
            crate::optimize::optimize(&mut program);
            cx_to_native(&mut program, target).expect("coupled");
            crate::optimize::optimize(&mut program);
            let ops = synthesize(&program, target.basis).expect("native");
            crate::verify::check_structure(&ops, target).expect("ISA");
            let found = crate::verify::check_equivalence(&logical, &ops, &[Some(0), Some(1)], &[0, 1], 7);
            assert_eq!(found, Ok(crate::verify::Equivalence::Equivalent), "{}", target.name);
        }
    }

    #[test]
    fn short_forms_are_used_where_they_exist() {
        let rz = one_qubit(&GateKind::Rz(0.3).matrix2().expect("1q"), Basis::Cz);
        assert!(matches!(rz.as_slice(), [NativeGate::Rz(a)] if (a - 0.3).abs() < 1e-12), "{rz:?}");
        assert_eq!(one_qubit(&GateKind::X.matrix2().expect("1q"), Basis::Ecr), vec![NativeGate::X]);
        assert_eq!(one_qubit(&GateKind::Sx.matrix2().expect("1q"), Basis::Cz), vec![NativeGate::Sx]);
        assert_eq!(one_qubit(&GateKind::H.matrix2().expect("1q"), Basis::Cz).len(), 3);
        assert!(one_qubit(&identity2(), Basis::IonqNative).is_empty());
    }
}
