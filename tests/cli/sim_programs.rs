//! `qchess sim` on the OpenQASM 3 programs of `examples/openqasm3`: one per construct of the
//! classical and control layer and one per kind of algorithm, each against values worked out
//! by hand (the programs' comments derive them).

use qchess_compare::stats::chi_squared::goodness_of_fit;

use crate::common::qchess;

fn example(name: &str) -> String {
    format!("{}/../../examples/openqasm3/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `qchess sim examples/openqasm3/NAME --json ARGS...`, which must succeed.
fn sim(name: &str, args: &[&str]) -> serde_json::Value {
    let path = example(name);
    let run = qchess(&[&["sim", path.as_str(), "--json"], args].concat());
    assert_eq!(run.code, Some(0), "{name} {args:?}: {}", run.stderr);
    run.json()
}

/// The exact distribution as `(outcome, probability)` pairs.
fn exact(json: &serde_json::Value) -> Vec<(u64, f64)> {
    let map = json["probabilities"].as_object().expect("probabilities");
    let mut pairs: Vec<(u64, f64)> =
        map.iter().map(|(k, v)| (k.parse().expect("a number"), v.as_f64().expect("a probability"))).collect();
    pairs.sort_by_key(|&(k, _)| k);
    pairs
}

fn assert_exact(json: &serde_json::Value, expected: &[(u64, f64)]) {
    let got = exact(json);
    assert_eq!(got.len(), expected.len(), "{got:?} against {expected:?}");
    for ((k, p), (ek, ep)) in got.iter().zip(expected) {
        assert_eq!(k, ek, "{got:?} against {expected:?}");
        assert!((p - ep).abs() < 1e-12, "P({k}) = {p}, expected {ep}");
    }
}

/// The counts of a shot run as `(key, count)` pairs.
fn counts(json: &serde_json::Value) -> Vec<(u64, u64)> {
    let map = json["counts"].as_object().expect("counts");
    let mut pairs: Vec<(u64, u64)> =
        map.iter().map(|(k, v)| (k.parse().expect("a number"), v.as_u64().expect("a count"))).collect();
    pairs.sort_by_key(|&(k, _)| k);
    pairs
}

#[test]
fn classical_values_follow_their_widths() {
    // Outputs, low bits first: product 144 (8 bits), wrapped -8 = 1000 (4), quarter 0100 (4),
    // rotated 00111110 (8), ones 3 (4), checks true (1).
    let key = 144 | 0b1000 << 8 | 0b0100 << 12 | 0b0011_1110 << 16 | 3 << 24 | 1 << 28;
    let json = sim("classical.qasm", &["--shots", "3", "--seed", "1"]);
    assert_eq!(json["clbits"], 29);
    assert_eq!(counts(&json), [(key, 3)]);
}

#[test]
fn loops_ranges_sets_bits_arrays_while_break_continue() {
    // total = 26 = 00011010 on q (qubits 1, 3, 4); r[3] and r[5] are qubits 11 and 13.
    assert_exact(&sim("loops.qasm", &[]), &[(2 + 8 + 16 + (1 << 11) + (1 << 13), 1.0)]);
}

#[test]
fn subroutines_recursion_and_arrays_by_reference() {
    // fib(7) = 13 on q (qubits 0, 2, 3); its parity 1 flips p (qubit 4).
    assert_exact(&sim("subroutines.qasm", &[]), &[(13 + 16, 1.0)]);
}

#[test]
fn arrays_slices_and_aliases() {
    // a[0], a[2], b[0], b[1]: qubits 0, 2, 3, 4.
    assert_exact(&sim("arrays.qasm", &[]), &[(1 + 4 + 8 + 16, 1.0)]);
}

#[test]
fn timing_is_checked_and_idle() {
    assert_exact(&sim("timing.qasm", &[]), &[(1, 0.5), (2, 0.5)]);
}

#[test]
fn inputs_come_from_the_command_line_or_are_listed() {
    let json = sim("inputs.qasm", &["--input", "theta=pi/2", "--input", "which=1"]);
    assert_exact(&json, &[(0, 0.5), (2, 0.5)]);
    let path = example("inputs.qasm");
    let run = qchess(&["sim", path.as_str()]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("`input` variables need values (`--input name=value`): `theta`, `which`"),
        "{}",
        run.stderr
    );
    let run = qchess(&["sim", path.as_str(), "--input", "theta=1", "--input", "which=x + 1"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("the value `x + 1` given for input `which`: `x` is not declared"), "{}", run.stderr);
    let run = qchess(&["sim", path.as_str(), "--input", "theta"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("expected NAME=VALUE"), "{}", run.stderr);
}

#[test]
fn externs_run_their_bindings_or_are_refused() {
    let binding = example("majority.qasm");
    // q = 101: the majority is 1, so `out` (qubit 3) flips.
    assert_exact(&sim("extern.qasm", &["--extern", &binding]), &[(1 + 4 + 8, 1.0)]);
    let run = qchess(&["sim", example("extern.qasm").as_str()]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("extern.qasm:5:1: `extern` function `majority` has no binding"), "{}", run.stderr);
}

#[test]
fn the_adder_adds() {
    for (a, b) in [(9, 13), (15, 15), (0, 0), (7, 8), (15, 1)] {
        let (a_in, b_in) = (format!("a_in={a}"), format!("b_in={b}"));
        let json = sim("adder.qasm", &["--input", &a_in, "--input", &b_in, "--shots", "5", "--seed", "1"]);
        assert_eq!(counts(&json), [(a + b, 5)], "{a} + {b}");
    }
}

#[test]
fn iterative_phase_estimation_reads_the_phase() {
    for k in [0, 5, 11, 15] {
        let json = sim("ipe.qasm", &["--input", &format!("k={k}"), "--shots", "5", "--seed", "2"]);
        assert_eq!(counts(&json), [(k, 5)], "k = {k}");
    }
    // Exactly: r stays |1>, q holds the last bit read (k = 11 = 1011: 1).
    assert_exact(&sim("ipe.qasm", &["--input", "k=11"]), &[(3, 1.0)]);
}

#[test]
fn repeat_until_success_ends_in_zero_after_geometric_rounds() {
    // Exactly: out reads 0 (and psi, the ancillas are 0), the loop's tail of weight below 1e-20
    // being dropped.
    assert_exact(&sim("rus.qasm", &[]), &[(0, 1.0)]);
    // Shots: key = out + 2 rounds; P(rounds = r) = (3/8)^(r-1) 5/8.
    let json = sim("rus.qasm", &["--shots", "4000", "--seed", "3"]);
    let seen = counts(&json);
    assert!(seen.iter().all(|&(key, _)| key % 2 == 0 && key >= 2), "{seen:?}");
    let last = seen.iter().map(|&(k, _)| k / 2).max().unwrap_or(1) as usize;
    let mut observed = vec![0u64; last + 1];
    let mut expected = vec![0.0; last + 1];
    for &(key, n) in &seen {
        observed[(key / 2 - 1) as usize] += n;
    }
    for (r, p) in expected.iter_mut().enumerate() {
        *p = 0.375f64.powi(r as i32) * 0.625;
    }
    // The last bin holds every longer run.
    expected[last] = 0.375f64.powi(last as i32);
    let test = goodness_of_fit(&observed, &expected, 5.0);
    assert!(test.p_value > 1e-6, "{test:?} {observed:?}");
}

#[test]
fn a_syndrome_round_corrects_each_single_error() {
    // The ancillas keep the syndrome: none 00, data[0] 01, data[1] 11, data[2] 10 (qubits 3, 4).
    let theta: f64 = 1.2;
    let one = (theta / 2.0).sin().powi(2);
    for (error, syndrome) in [(0u64, 0u64), (1, 1), (2, 3), (3, 2)] {
        let json = sim("qec.qasm", &["--input", "theta=1.2", "--input", &format!("error={error}")]);
        assert_exact(&json, &[(syndrome << 3, 1.0 - one), ((syndrome << 3) + 1, one)]);
    }
}

#[test]
fn teleportation_with_a_switch_brings_the_state_over() {
    // q[2] comes back to |0>; the measured q[0] and q[1] are uniform.
    assert_exact(&sim("teleport.qasm", &[]), &[(0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)]);
    assert_eq!(counts(&sim("teleport.qasm", &["--shots", "50", "--seed", "4"])), [(0, 50)]);
}

#[test]
fn runtime_errors_are_placed_in_the_program() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("oob.qasm");
    std::fs::write(
        &path,
        "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit b;\nint[8] i = 2;\nb = measure q[0];\nif (b) { i = 5; }\nx q[i];\n",
    )
    .expect("write");
    let run = qchess(&["sim", path.to_str().expect("utf-8"), "--shots", "10"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("oob.qasm:8:5: index 2 is out of range for `q` of size 2"), "{}", run.stderr);
}
