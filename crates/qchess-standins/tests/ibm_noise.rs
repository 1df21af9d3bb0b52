//! `--ibm-noise device` on the IBM stand-in against predictions derived here by hand from the
//! published calibration of ibm_fez (its properties file): populations of circuits whose noise
//! keeps diagonal states diagonal, through qiskit-aer's depolarizing parameter, thermal
//! relaxation over each gate's length and readout errors.

mod ibm_common;

use std::time::Duration;

use ibm_common::{KEY, start_with, submit};
use qchess_standins::{ServerKey, ibm};

/// Register `c`'s samples of a results body.
fn samples(results: &serde_json::Value) -> Vec<u64> {
    let register = results["results"][0]["data"]["c"]["samples"].as_array().expect("samples");
    register
        .iter()
        .map(|s| u64::from_str_radix(s.as_str().expect("hex").trim_start_matches("0x"), 16).expect("hex"))
        .collect()
}

/// A calibrated figure of ibm_fez's published properties, read here straight from the file:
/// a gate's `gate_error` or `gate_length` (seconds), or a qubit's `readout_error`, `T1` or `T2`
/// (seconds).
fn fez_figure(gate: &str, qubits: &[u32], name: &str) -> f64 {
    let properties: serde_json::Value =
        serde_json::from_str(qchess_route::target::presets::FEZ_PROPS).expect("published properties");
    let scale = |figure: &serde_json::Value| match figure["unit"].as_str().unwrap_or("") {
        "us" => 1e-6,
        "ns" => 1e-9,
        _ => 1.0,
    };
    let parameters = if gate == "qubit" {
        properties["qubits"][qubits[0] as usize].as_array().expect("qubit figures").clone()
    } else {
        properties["gates"]
            .as_array()
            .expect("gates")
            .iter()
            .find(|g| g["gate"] == gate && g["qubits"] == serde_json::json!(qubits))
            .unwrap_or_else(|| panic!("no {gate} on {qubits:?}"))["parameters"]
            .as_array()
            .expect("parameters")
            .clone()
    };
    let figure = parameters.iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("no {name}"));
    figure["value"].as_f64().expect("a number") * scale(figure)
}

/// What a gate on ibm_fez does to populations (its noise keeps diagonal states diagonal):
/// qiskit-aer's depolarizing parameter, from the gate error and the relaxation's average gate
/// fidelity, and each qubit's decay probability over the gate.
fn fez_gate(gate: &str, qubits: &[u32]) -> (f64, Vec<f64>) {
    let t = fez_figure(gate, qubits, "gate_length");
    let mut process_fidelity = 1.0;
    let mut decay = Vec::new();
    for &q in qubits {
        let t1 = fez_figure("qubit", &[q], "T1");
        let t2 = fez_figure("qubit", &[q], "T2").min(2.0 * t1);
        let (gamma, coherence) = (1.0 - (-t / t1).exp(), (-t / t2).exp());
        process_fidelity *= (2.0 + 2.0 * coherence - gamma) / 4.0;
        decay.push(gamma);
    }
    let d = f64::from(1u32 << qubits.len());
    let fidelity = (d * process_fidelity + 1.0) / (d + 1.0);
    let error = fez_figure(gate, qubits, "gate_error");
    let p = if error > 1.0 - fidelity { d * (error - (1.0 - fidelity)) / (d * fidelity - 1.0) } else { 0.0 };
    (p, decay)
}

/// Populations (index bit i = qubit i) after a noisy gate on `qubits` whose noise keeps
/// diagonal states diagonal: X on the `flip` qubits, then depolarizing (`p` of the population
/// spread evenly over the gate's qubits' values), then each gate qubit decays from 1 to 0.
fn evolve(populations: &mut [f64], qubits: &[usize], flip: usize, p: f64, decay: &[f64]) {
    let d = populations.len();
    let mask = qubits.iter().fold(0, |m, &q| m | 1 << q);
    let flipped: Vec<f64> = (0..d).map(|k| populations[k ^ flip]).collect();
    for (k, population) in populations.iter_mut().enumerate() {
        let block: f64 = (0..d).filter(|j| j & !mask == k & !mask).map(|j| flipped[j]).sum();
        *population = (1.0 - p) * flipped[k] + p * block / f64::from(1u32 << qubits.len());
    }
    for (&q, &gamma) in qubits.iter().zip(decay) {
        for k in 0..d {
            if k >> q & 1 == 1 {
                let moved = gamma * populations[k];
                populations[k] -= moved;
                populations[k ^ (1 << q)] += moved;
            }
        }
    }
}

/// The probability of reading each outcome of populations through per-qubit readout errors.
fn read(populations: &[f64], readout: &[f64]) -> Vec<f64> {
    (0..populations.len())
        .map(|seen| {
            (0..populations.len())
                .map(|actual| {
                    let flips: f64 = readout
                        .iter()
                        .enumerate()
                        .map(|(q, r)| if (seen ^ actual) >> q & 1 == 1 { *r } else { 1.0 - r })
                        .product();
                    populations[actual] * flips
                })
                .sum()
        })
        .collect()
}

/// Asserts that `count` of `shots` is within 6 binomial sigmas of `expected` (a failure with
/// probability below 2e-9 when the model holds), and at least 10 sigmas from `without`, the
/// prediction without the error under test (so that the error is seen, not lost in sampling).
fn assert_predicted(what: &str, count: usize, shots: u64, expected: f64, without: f64) {
    let observed = count as f64 / shots as f64;
    let sigma = (expected * (1.0 - expected) / shots as f64).sqrt();
    assert!((observed - expected).abs() <= 6.0 * sigma, "{what}: {observed} vs predicted {expected} (sigma {sigma})");
    assert!(
        (expected - without).abs() >= 10.0 * sigma,
        "{what}: the error ({expected} vs {without}) is too small to see"
    );
}

/// `--ibm-noise device` moves results by what ibm_fez's calibration predicts, derived here by
/// hand from the published figures: 41 X gates on qubit 87 (ideally |1>), and X on 87 and 88
/// then 41 CZs (ideally |11>, which a CZ only phases), each through its depolarizing channel and
/// relaxation, then both readout errors. The ideal mode reads the ideal outcome every time, and a
/// device-noise server with the same seed gives the same samples.
#[test]
fn device_noise_moves_results_by_the_calibrated_error_rates() {
    let key = || Some(ServerKey::new(KEY).expect("a key"));
    let hour = Duration::from_secs(3600);
    let mut device = ibm::IbmOptions::new(key(), hour);
    (device.noise, device.run.seed) = (ibm::noise::IbmNoise::Device, 11);
    let (noisy, again, ideal) =
        (start_with(device.clone()), start_with(device), start_with(ibm::IbmOptions::new(key(), hour)));
    let shots = 100_000;
    let head = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\n";

    let xs = format!("{head}bit[1] c;\n{}c[0] = measure q[87];\n", "x q[87];\n".repeat(41));
    let (status, results) = submit(&noisy, &xs, shots);
    assert_eq!(status, 200, "{results}");
    let x_samples = samples(&results);
    let (p, decay) = fez_gate("x", &[87]);
    let mut populations = vec![1.0, 0.0];
    (0..41).for_each(|_| evolve(&mut populations, &[0], 1, p, &decay));
    let readout = fez_figure("qubit", &[87], "readout_error");
    let expected = read(&populations, &[readout])[0];
    let read_zero = x_samples.iter().filter(|&&s| s == 0).count();
    assert_predicted("41 X gates then a measurement read 0", read_zero, shots, expected, readout);
    let (_, clean) = submit(&ideal, &xs, shots);
    assert!(samples(&clean).iter().all(|&s| s == 1), "the ideal mode reads 1 every time");

    let czs = format!(
        "{head}bit[2] c;\nx q[87];\nx q[88];\n{}c[0] = measure q[87];\nc[1] = measure q[88];\n",
        "cz q[87], q[88];\n".repeat(41)
    );
    let (status, results) = submit(&noisy, &czs, shots);
    assert_eq!(status, 200, "{results}");
    let cz_samples = samples(&results);
    let mut populations = vec![1.0, 0.0, 0.0, 0.0];
    let (p87, d87) = fez_gate("x", &[87]);
    evolve(&mut populations, &[0], 1, p87, &d87);
    let (p88, d88) = fez_gate("x", &[88]);
    evolve(&mut populations, &[1], 2, p88, &d88);
    let (p_cz, decay_cz) = fez_gate("cz", &[87, 88]);
    (0..41).for_each(|_| evolve(&mut populations, &[0, 1], 0, p_cz, &decay_cz));
    let readouts = [fez_figure("qubit", &[87], "readout_error"), fez_figure("qubit", &[88], "readout_error")];
    let expected = read(&populations, &readouts);
    let without = read(&[0.0, 0.0, 0.0, 1.0], &readouts);
    for (outcome, &p) in expected.iter().enumerate() {
        let count = cz_samples.iter().filter(|&&s| s == outcome as u64).count();
        let observed = count as f64 / shots as f64;
        let sigma = (p * (1.0 - p) / shots as f64).sqrt();
        assert!((observed - p).abs() <= 6.0 * sigma, "{outcome:02b}: {observed} vs {p}");
    }
    let count = cz_samples.iter().filter(|&&s| s == 3).count();
    assert_predicted("X X then 41 CZs read 11", count, shots, expected[3], without[3]);
    let (_, clean) = submit(&ideal, &czs, shots);
    assert!(samples(&clean).iter().all(|&s| s == 3), "the ideal mode reads 11 only");

    // Seeded: the same seed and job number give the same samples.
    let (_, first) = submit(&again, &xs, shots);
    assert_eq!(samples(&first), x_samples, "the first job of a server seeded 11 is the same");
    let (_, second) = submit(&again, &czs, shots);
    assert_eq!(samples(&second), cz_samples, "the second job of a server seeded 11 is the same");
}

/// A circuit that measures, resets and measures again goes through the same device noise: the
/// X before the first measurement decays and depolarizes as calibrated, the reset leaves |0>,
/// and each measurement is misread at the qubit's readout error.
#[test]
fn device_noise_reaches_mid_circuit_measurements() {
    let key = || Some(ServerKey::new(KEY).expect("a key"));
    let mut device = ibm::IbmOptions::new(key(), Duration::from_secs(3600));
    (device.noise, device.run.seed) = (ibm::noise::IbmNoise::Device, 5);
    let noisy = start_with(device);
    let shots = 100_000;
    let circuit = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\nbit[2] c;\nx q[87];\n\
                   c[0] = measure q[87];\nreset q[87];\nc[1] = measure q[87];\n";
    let (status, results) = submit(&noisy, circuit, shots);
    assert_eq!(status, 200, "{results}");
    let bits = samples(&results);
    let (p, decay) = fez_gate("x", &[87]);
    let mut populations = vec![1.0, 0.0];
    evolve(&mut populations, &[0], 1, p, &decay);
    let readout = fez_figure("qubit", &[87], "readout_error");
    // Ideally c0 = 1 and c1 = 0.
    let first_wrong = bits.iter().filter(|&&s| s & 1 == 0).count();
    let second_wrong = bits.iter().filter(|&&s| s & 2 != 0).count();
    assert_predicted(
        "the measurement before the reset reads 0",
        first_wrong,
        shots,
        read(&populations, &[readout])[0],
        0.0,
    );
    assert_predicted("the measurement after the reset reads 1", second_wrong, shots, readout, 0.0);
}
