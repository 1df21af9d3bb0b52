//! Game circuits compiled for Amazon Braket's devices (their published capabilities) and written
//! as the programs Braket runs: native gates only, on coupled pairs only, inside the verbatim
//! box, and every measurement after it.

use qchess_circuit::compiler::{Register, Step};
use qchess_core::{Bitboard, Square, TypedMove};
use qchess_route::emit::{EmitInfo, to_braket};
use qchess_route::program::from_circuit;
use qchess_route::verify::{Equivalence, check_structure};
use qchess_route::{CompileOptions, Target, compile};

/// A knight split, a slide through it, a jump that measures its target, and one more slide.
fn game_register() -> Register {
    let start =
        Bitboard::from_square(Square::B1) | Bitboard::from_square(Square::A1) | Bitboard::from_square(Square::C6);
    let mut register = Register::new(start);
    for mv in ["b1^a3c3:SPLIT_JUMP:BASIC", "a1a4:SLIDE:BASIC", "c6c3.m1:JUMP:EXCLUDED", "a4a8:SLIDE:BASIC"] {
        let mv: TypedMove = mv.parse().expect("typed move");
        if let Step::Measure(request) = register.begin(&mv).expect("legal") {
            register.resolve(request.forced.unwrap_or(true)).expect("resolves");
        }
    }
    register
}

#[test]
fn game_circuits_become_verbatim_programs_of_native_gates_on_coupled_pairs() {
    let register = game_register();
    let circuit = register.circuit();
    let measure: Vec<_> = circuit.qubits.iter().enumerate().map(|(i, _)| qchess_circuit::ir::Qubit(i as u32)).collect();
    for spec in [
        "braket:iqm-garnet",
        "braket:iqm-emerald",
        "braket:rigetti-ankaa-3",
        "braket:rigetti-cepheus-1-108q",
        "braket:ionq-forte-enterprise-1",
    ] {
        let target = Target::resolve(spec).expect("snapshot");
        let mut program = from_circuit(circuit, 0, &measure).expect("lowers");
        let measurements = program.take_measurements();
        assert_eq!(measurements.len(), circuit.clbits as usize + measure.len(), "{spec}");
        let mut compiled = compile(&program, &target, &CompileOptions::default()).expect("routes");
        assert_eq!(compiled.equivalence, Equivalence::Equivalent, "{spec}");
        compiled.measure_at_end(&measurements, &target).expect("measured");
        check_structure(&compiled.ops, &target).expect("ISA");
        assert_eq!(target.broken_uses(&compiled.ops), 0, "{spec}");
        let esp = compiled.esp.expect("calibrated");
        assert!(esp > 0.0 && esp < 1.0, "{spec}: {esp}");
        let text = to_braket(&compiled, &target, &EmitInfo::default(), true).expect("a Braket program");
        let body = text.split_once("box {\n").expect("a verbatim box").1;
        let (inside, after) = body.split_once("}\n").expect("the box closes");
        assert!(text.contains("#pragma braket verbatim\nbox {"), "{spec}");
        for line in inside.lines() {
            let line = line.trim().trim_end_matches(';');
            let (call, operands) = line.split_at(line.find('$').expect("physical qubits"));
            let call = call.trim();
            let name = call.split('(').next().unwrap_or(call);
            assert!(target.basis.gate_names().contains(&name), "{spec}: {line}");
            let qubits: Vec<u32> =
                operands.split(", ").map(|q| q.trim_start_matches('$').parse().expect("$p")).collect();
            if let [a, b] = qubits[..] {
                assert!(target.is_coupled(a, b), "{spec}: {line}");
            }
            if name == "rx" {
                let angle: f64 = call["rx(".len()..call.len() - 1].parse().expect("an angle");
                let allowed = [std::f64::consts::FRAC_PI_2, -std::f64::consts::FRAC_PI_2, std::f64::consts::PI];
                assert!(
                    allowed.iter().any(|a| (a - angle).abs() < 1e-9),
                    "{spec}: Rigetti runs rx by +-pi/2 and pi only: {line}"
                );
            }
        }
        assert_eq!(after.lines().count(), measurements.len(), "{spec}: {after}");
        assert!(after.lines().all(|l| l.starts_with("c[") && l.contains("= measure $")), "{spec}");
    }
}
