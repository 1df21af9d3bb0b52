//! Every golden OpenQASM 3 circuit (`circuits/*.qasm3`, as `qchess compile` writes them) reads
//! to the same circuit as its OpenQASM 2 sibling: the same qubits, bits and registers, and the
//! same exact probabilities over every qubit, to 1e-12.

use std::path::PathBuf;

use qchess_qasm::parse::{parse_file, v3};
use qchess_sim::auto::{AutoLimits, probabilities};

fn circuits() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../circuits")
}

#[test]
fn every_golden_qasm3_circuit_runs_as_its_qasm2_sibling() {
    let mut checked = 0;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(circuits())
        .expect("the circuits directory")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "qasm3"))
        .collect();
    paths.sort();
    for path in paths {
        let three = parse_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let two = parse_file(&path.with_extension("qasm")).unwrap_or_else(|e| panic!("{e}"));
        let name = path.display();
        assert_eq!(three.num_qubits(), two.num_qubits(), "{name}");
        assert_eq!(three.clbits, two.clbits, "{name}");
        assert_eq!(three.registers, two.registers, "{name}");
        let p3 = probabilities(&three, &AutoLimits::default()).expect("simulates");
        let p2 = probabilities(&two, &AutoLimits::default()).expect("simulates");
        assert_eq!(p3.probabilities.len(), p2.probabilities.len(), "{name}");
        for (&(o3, x3), &(o2, x2)) in p3.probabilities.iter().zip(&p2.probabilities) {
            assert_eq!(o3, o2, "{name}");
            assert!((x3 - x2).abs() < 1e-12, "{name}: outcome {o3}: {x3} vs {x2}");
        }
        // The program keeps every top-level call by name, as consumers judging gates see them.
        let program = v3::read_file(&path).expect("reads");
        assert!(!program.body.is_empty(), "{name}");
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} circuits found");
}
