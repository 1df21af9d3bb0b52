//! Gates the emitters define in the file because the standard includes lack them.
//!
//! Every definition is exact, global phase included, when read with OpenQASM 3 semantics
//! (where `rz` is `exp(-i theta/2 Z)`), because `ctrl @` of a defined gate controls its whole
//! body. OpenQASM 2's `qelib1.inc` has `rz = u1`, a different global phase, which is harmless
//! there: OpenQASM 2 cannot control a defined gate.

use std::f64::consts::PI;

use qchess_circuit::ir::GateKind;

use crate::ast::{BinaryOp, Expr, GateCall, GateDefinition, Operand, Version};

/// The name and real arguments of an uncontrolled gate of `kind` in `version`'s vocabulary
/// (standard gates plus this library).
pub(crate) fn base_call(kind: GateKind, version: Version) -> (String, Vec<Expr>) {
    use GateKind::*;
    let name = |n: &str| n.to_string();
    match kind {
        X => (name("x"), vec![]),
        Y => (name("y"), vec![]),
        Z => (name("z"), vec![]),
        H => (name("h"), vec![]),
        S => (name("s"), vec![]),
        Sdg => (name("sdg"), vec![]),
        T => (name("t"), vec![]),
        Tdg => (name("tdg"), vec![]),
        Sx => (name("sx"), vec![]),
        Sxdg => (name("sxdg"), vec![]),
        Rx(a) => (name("rx"), vec![angle(a)]),
        Ry(a) => (name("ry"), vec![angle(a)]),
        Rz(a) => (name("rz"), vec![angle(a)]),
        Phase(a) => (name(if version == Version::V2 { "u1" } else { "p" }), vec![angle(a)]),
        U(theta, phi, lambda) => {
            (name(if version == Version::V2 { "u3" } else { "U" }), vec![angle(theta), angle(phi), angle(lambda)])
        }
        Swap => (name("swap"), vec![]),
        ISwap(1.0) => (name("iswap"), vec![]),
        ISwap(-1.0) => (name("iswap_dg"), vec![]),
        ISwap(0.5) => (name("sqrt_iswap"), vec![]),
        ISwap(-0.5) => (name("sqrt_iswap_dg"), vec![]),
        ISwap(t) => {
            // The matrix reads sin and cos of pi t/2: reduce that angle, as for rotations.
            let t = if t.abs() >= HUGE {
                let x = std::f64::consts::FRAC_PI_2 * t;
                x.sin().atan2(x.cos()) / std::f64::consts::FRAC_PI_2
            } else {
                t
            };
            (name("iswap_pow"), vec![Expr::Number(t)])
        }
        Rxx(a) => (name("rxx"), vec![angle(a)]),
        Ryy(a) => (name("ryy"), vec![angle(a)]),
        Rzz(a) => (name("rzz"), vec![angle(a)]),
    }
}

/// Angles this large would print as long integers. Every angle parameter is `4 pi`-periodic,
/// so they are reduced first, through sine and cosine of the half angle: `rem_euclid` by an
/// inexact `4 pi` would be far off for huge values.
const HUGE: f64 = 1_048_576.0;

fn angle(value: f64) -> Expr {
    let half = value / 2.0;
    Expr::angle(if value.abs() >= HUGE { 2.0 * half.sin().atan2(half.cos()) } else { value })
}

fn call(name: &str, qubits: &[&str]) -> GateCall {
    GateCall::new(name, qubits.iter().map(|q| Operand::name(*q)))
}

fn call_with(name: &str, args: Vec<Expr>, qubits: &[&str]) -> GateCall {
    call(name, qubits).with_args(args)
}

fn definition(name: &str, params: &[&str], qubits: &[&str], body: Vec<GateCall>) -> GateDefinition {
    GateDefinition {
        name: name.into(),
        params: params.iter().map(|p| p.to_string()).collect(),
        qubits: qubits.iter().map(|q| q.to_string()).collect(),
        body,
    }
}

/// `-pi*t/2` for the parameter `t`.
fn minus_pi_t_over_two() -> Expr {
    Expr::binary(BinaryOp::Div, Expr::binary(BinaryOp::Mul, Expr::Pi, Expr::param("t")), Expr::Number(2.0)).negated()
}

/// `rxx(angle) a, b; ryy(angle) a, b;`: iSWAP^t with angle `-pi t/2`.
fn xx_yy(name: &str, params: &[&str], angle: Expr) -> GateDefinition {
    definition(
        name,
        params,
        &["a", "b"],
        vec![call_with("rxx", vec![angle.clone()], &["a", "b"]), call_with("ryy", vec![angle], &["a", "b"])],
    )
}

/// The definition of library gate `name` in `version`, with the library gates it calls; `None`
/// if `name` is a standard gate of that version (or unknown).
pub(crate) fn library_definition(name: &str, version: Version) -> Option<(GateDefinition, &'static [&'static str])> {
    let theta = || vec![Expr::param("theta")];
    let ab = ["a", "b"];
    let rzz_core = |body: &mut Vec<GateCall>| {
        body.push(call("cx", &ab));
        body.push(call_with("rz", theta(), &["b"]));
        body.push(call("cx", &ab));
    };
    Some(match (name, version) {
        ("sx", Version::V2) => (
            definition(
                "sx",
                &[],
                &["a"],
                vec![call_with(
                    "u3",
                    vec![Expr::angle(PI / 2.0), Expr::angle(-PI / 2.0), Expr::angle(PI / 2.0)],
                    &["a"],
                )],
            ),
            &[],
        ),
        ("sxdg", Version::V2) => (
            definition(
                "sxdg",
                &[],
                &["a"],
                vec![call_with(
                    "u3",
                    vec![Expr::angle(PI / 2.0), Expr::angle(PI / 2.0), Expr::angle(-PI / 2.0)],
                    &["a"],
                )],
            ),
            &[],
        ),
        // sqrt(X)^dagger = H S^dagger H exactly.
        ("sxdg", Version::V3) => {
            (definition("sxdg", &[], &["a"], vec![call("h", &["a"]), call("sdg", &["a"]), call("h", &["a"])]), &[])
        }
        ("swap", Version::V2) => (
            definition(
                "swap",
                &[],
                &ab,
                vec![call("cx", &["a", "b"]), call("cx", &["b", "a"]), call("cx", &["a", "b"])],
            ),
            &[],
        ),
        ("rzz", _) => {
            let mut body = Vec::new();
            rzz_core(&mut body);
            (definition("rzz", &["theta"], &ab, body), &[])
        }
        ("rxx", _) => {
            let mut body = vec![call("h", &["a"]), call("h", &["b"])];
            rzz_core(&mut body);
            body.extend([call("h", &["a"]), call("h", &["b"])]);
            (definition("rxx", &["theta"], &ab, body), &[])
        }
        ("ryy", _) => {
            // Y (x) Y = (S (x) S)(X (x) X)(S (x) S)^dagger.
            let mut body = vec![call("sdg", &["a"]), call("sdg", &["b"]), call("h", &["a"]), call("h", &["b"])];
            rzz_core(&mut body);
            body.extend([call("h", &["a"]), call("h", &["b"]), call("s", &["a"]), call("s", &["b"])]);
            (definition("ryy", &["theta"], &ab, body), &[])
        }
        ("iswap", _) => (
            definition(
                "iswap",
                &[],
                &ab,
                vec![
                    call("s", &["a"]),
                    call("s", &["b"]),
                    call("h", &["a"]),
                    call("cx", &["a", "b"]),
                    call("cx", &["b", "a"]),
                    call("h", &["b"]),
                ],
            ),
            &[],
        ),
        ("iswap_dg", _) => (xx_yy("iswap_dg", &[], Expr::angle(PI / 2.0)), &["rxx", "ryy"]),
        ("sqrt_iswap", _) => (xx_yy("sqrt_iswap", &[], Expr::angle(-PI / 4.0)), &["rxx", "ryy"]),
        ("sqrt_iswap_dg", _) => (xx_yy("sqrt_iswap_dg", &[], Expr::angle(PI / 4.0)), &["rxx", "ryy"]),
        ("iswap_pow", _) => (xx_yy("iswap_pow", &["t"], minus_pi_t_over_two()), &["rxx", "ryy"]),
        _ => return None,
    })
}
