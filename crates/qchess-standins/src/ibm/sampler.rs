//! Sampler V2 pubs: each bound ISA circuit runs as a [`Schedule`] over the qubits it uses,
//! through the device's noise when there is a [`Calibration`], and its shots are read per
//! classical register.

use std::collections::BTreeSet;

use qchess_route::{IsaOp, NativeGate};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::bound::SamplerPub;
use super::components;
use super::isa::IsaCircuit;
use super::noise::Calibration;
use super::runtime;
use super::trajectories::{GateNoise, SampleError, Schedule, Step};
use crate::stop::Stop;

/// The most qubits a circuit may use (its state is over them; sparse states go past the
/// dense limit as long as they stay small).
pub const MAX_USED_QUBITS: usize = 64;

/// The qubits a circuit touches plus `extra`, in increasing order.
pub fn used_qubits(circuit: &IsaCircuit, extra: impl IntoIterator<Item = u32>) -> Vec<u32> {
    let set: BTreeSet<u32> = circuit.ops.iter().flat_map(IsaOp::qubits).chain(extra).collect();
    set.into_iter().collect()
}

/// The schedule of `circuit` over `used` (qubit `used[i]` is state position `i`).
pub fn schedule(circuit: &IsaCircuit, used: &[u32], calibration: Option<&Calibration>) -> Result<Schedule, String> {
    if used.len() > MAX_USED_QUBITS {
        return Err(format!("it uses {} qubits; this stand-in simulates at most {MAX_USED_QUBITS}", used.len()));
    }
    let position = |q: u32| used.binary_search(&q).unwrap_or(0);
    let mut schedule = Schedule { qubits: used.len(), steps: Vec::with_capacity(circuit.ops.len()) };
    for (index, (op, condition)) in circuit.ops.iter().zip(&circuit.conditions).enumerate() {
        idle(circuit, index, used, calibration, &mut schedule);
        let noise = calibration.and_then(|c| c.noise(op)).map(|n| GateNoise {
            qubits: n.qubits.iter().map(|&q| position(q)).collect(),
            depolarizing: n.depolarizing,
            relaxation: n.relaxation.iter().map(|r| (position(r.qubit), r.jump, r.dephasing)).collect(),
        });
        let step = match *op {
            IsaOp::One { gate, qubit } => Step::One {
                qubit: position(qubit),
                matrix: gate.matrix2().ok_or("a one-qubit gate without a matrix")?,
                noise,
            },
            IsaOp::Two { gate, a, b } => Step::Two {
                a: position(a),
                b: position(b),
                matrix: gate.matrix4().ok_or("a two-qubit gate without a matrix")?,
                noise,
            },
            IsaOp::Measure { qubit, clbit } => Step::Measure {
                qubit: position(qubit),
                clbit,
                readout: calibration.map_or(0.0, |c| c.readout_error(qubit)),
            },
            IsaOp::Reset { qubit } => Step::Reset { qubit: position(qubit) },
        };
        schedule.steps.push((step, condition.clone()));
    }
    idle(circuit, circuit.ops.len(), used, calibration, &mut schedule);
    Ok(schedule)
}

/// The relaxation of the qubits that the delays before operation `index` idle (an identity
/// with its noise); qubits no operation uses stay |0>, where relaxation does nothing.
fn idle(circuit: &IsaCircuit, index: usize, used: &[u32], calibration: Option<&Calibration>, schedule: &mut Schedule) {
    let Some(calibration) = calibration else { return };
    for wait in circuit.waits.iter().filter(|w| w.before == index) {
        for &qubit in &wait.qubits {
            let (Ok(position), Some(r)) = (used.binary_search(&qubit), calibration.idle(qubit, wait.duration)) else {
                continue;
            };
            let noise = GateNoise {
                qubits: vec![position],
                depolarizing: 0.0,
                relaxation: vec![(position, r.jump, r.dephasing)],
            };
            schedule
                .steps
                .push((Step::One { qubit: position, matrix: IDENTITY, noise: Some(noise) }, wait.condition.clone()));
        }
    }
}

/// The one-qubit identity.
const IDENTITY: qchess_circuit::ir::Matrix2 = {
    use num_complex::Complex64;
    let (zero, one) = (Complex64::new(0.0, 0.0), Complex64::new(1.0, 0.0));
    [[one, zero], [zero, one]]
};

/// The measurement noise of one extra sx on `qubit` (a basis change before measuring).
pub fn basis_change_noise(calibration: Option<&Calibration>, qubit: u32, position: usize) -> Option<GateNoise> {
    let noise = calibration?.noise(&IsaOp::One { gate: NativeGate::Sx, qubit })?;
    Some(GateNoise {
        qubits: vec![position],
        depolarizing: noise.depolarizing,
        relaxation: noise.relaxation.iter().map(|r| (position, r.jump, r.dephasing)).collect(),
    })
}

/// Why a pub did not run.
#[derive(Debug, Clone, PartialEq)]
pub enum PubError {
    /// The pub cannot run here (a 400 at submission, or a failure while running).
    Invalid(String),
    /// The job was stopped (time limit or cancel).
    Stopped(String),
}

impl From<SampleError> for PubError {
    fn from(error: SampleError) -> PubError {
        match error {
            SampleError::TooLarge(t) => PubError::Invalid(format!("its state grew past {} basis states", t.states)),
            SampleError::Stopped(reason) => PubError::Stopped(reason),
        }
    }
}

/// A Sampler pub's shots: per binding, each shot's classical bits; and the bound circuits'
/// registers. The pub's circuits write at most 128 bits ([`MAX_CLBITS`](super::bound::MAX_CLBITS)).
pub fn run(
    pub_: &SamplerPub,
    target: &qchess_route::Target,
    calibration: Option<&Calibration>,
    rng: &mut ChaCha8Rng,
    stop: &Stop,
) -> Result<(Vec<super::isa::Register>, Vec<Vec<u128>>), PubError> {
    let (registers, shots) = run_words(pub_, target, calibration, rng, stop)?;
    let first_words = shots.into_iter().map(|binding| binding.into_iter().map(|words| words[0]).collect()).collect();
    Ok((registers, first_words))
}

/// One shot's classical bits, in words of 128 (bit `i` in word `i / 128`).
pub type Words = Vec<u128>;

/// A pub's shots as [`run`] gives them, each shot's bits in words of 128 (bit `i` in word
/// `i / 128`), so that circuits of more bits run. A circuit of independent parts (see `components`)
/// runs part by part, each with its bits renumbered from 0.
pub fn run_words(
    pub_: &SamplerPub,
    target: &qchess_route::Target,
    calibration: Option<&Calibration>,
    rng: &mut ChaCha8Rng,
    stop: &Stop,
) -> Result<(Vec<super::isa::Register>, Vec<Vec<Words>>), PubError> {
    let mut registers = Vec::new();
    let mut shots = Vec::with_capacity(pub_.bindings.rows.len());
    for values in &pub_.bindings.rows {
        let circuit = pub_.circuit.bind(values, target).map_err(PubError::Invalid)?;
        let bits = circuit.registers.iter().map(|r| r.start + r.len).max().unwrap_or(0).max(1);
        let mut combined = vec![vec![0u128; bits.div_ceil(128) as usize]; pub_.shots as usize];
        let parts = match components::split(&circuit) {
            Some(parts) => parts.iter().map(components::compact).collect(),
            None if bits > 128 => {
                return Err(PubError::Invalid(format!(
                    "it writes {bits} bits in one entangled part; at most 128 are read"
                )));
            }
            None => vec![(circuit.clone(), (0..bits).collect())],
        };
        for (part, originals) in &parts {
            if originals.len() > 128 {
                return Err(PubError::Invalid(format!(
                    "one part of it writes {} bits; at most 128 are read",
                    originals.len()
                )));
            }
            let used = used_qubits(part, []);
            let schedule = schedule(part, &used, calibration).map_err(PubError::Invalid)?;
            for (words, part_bits) in combined.iter_mut().zip(schedule.sample(pub_.shots, rng, stop)?) {
                for (j, &original) in originals.iter().enumerate() {
                    if (part_bits >> j) & 1 == 1 {
                        words[original as usize / 128] |= 1 << (original % 128);
                    }
                }
            }
        }
        shots.push(combined);
        registers = circuit.registers;
    }
    Ok((registers, shots))
}

/// A register's value in each shot.
fn register_values(register: &super::isa::Register, shots: &[u128]) -> Vec<u128> {
    let mask = if register.len >= 128 { u128::MAX } else { (1u128 << register.len) - 1 };
    shots.iter().map(|&bits| (bits >> register.start.min(127)) & mask).collect()
}

/// The typed result of a pub (`SamplerPubResult` of a `DataBin` of `BitArray`s).
pub fn typed_result(pub_: &SamplerPub, registers: &[super::isa::Register], shots: &[Vec<u128>]) -> Value {
    let fields = registers
        .iter()
        .map(|register| {
            let values: Vec<u128> = shots.iter().flat_map(|binding| register_values(register, binding)).collect();
            (
                register.name.clone(),
                runtime::bit_array(&pub_.bindings.shape, pub_.shots as usize, register.len, &values),
            )
        })
        .collect();
    let data = runtime::data_bin(&pub_.bindings.shape, fields);
    runtime::pub_result("SamplerPubResult", data, json!({ "circuit_metadata": {}, "shots": pub_.shots }))
}

/// The plain result of a pub, as IBM's REST guides read it: per register, each shot as a hex
/// string (a list per binding when the pub has a shape).
pub fn plain_result(pub_: &SamplerPub, registers: &[super::isa::Register], shots: &[Vec<u128>]) -> Value {
    let data: serde_json::Map<String, Value> = registers
        .iter()
        .map(|register| {
            let hex = |binding: &Vec<u128>| -> Value {
                register_values(register, binding).iter().map(|v| Value::String(format!("{v:#x}"))).collect()
            };
            let samples = if pub_.bindings.shape.is_empty() {
                shots.first().map_or(Value::Array(Vec::new()), hex)
            } else {
                Value::Array(shots.iter().map(hex).collect())
            };
            (register.name.clone(), json!({ "samples": samples, "num_bits": register.len }))
        })
        .collect();
    json!({ "data": data, "metadata": { "shots": pub_.shots, "circuit_metadata": {} } })
}

#[cfg(test)]
mod tests {
    use qchess_qasm::program::Duration;
    use qchess_route::Target;
    use qchess_route::target::presets::{FEZ_CONF, FEZ_PROPS};

    use super::*;

    /// Qubit 0's `T1` in seconds, as the published properties give it (in microseconds).
    fn t1_of_qubit_0() -> f64 {
        let props: Value = serde_json::from_str(FEZ_PROPS).expect("JSON");
        let figures = props["qubits"][0].as_array().expect("qubit 0");
        let t1 = figures.iter().find(|f| f["name"] == "T1").expect("a T1");
        assert_eq!(t1["unit"], "us");
        t1["value"].as_f64().expect("a number") * 1e-6
    }

    #[test]
    fn a_delay_relaxes_its_qubit_over_its_length() {
        let target = Target::from_json(FEZ_CONF, "ibm_fez").expect("preset");
        let calibration = Calibration::from_properties(target.clone(), FEZ_PROPS, "ibm_fez")
            .expect("published")
            .with_configuration(FEZ_CONF);
        let text = "OPENQASM 3.0;\nbit[1] c;\nx $0;\ndelay[100us] $0;\ndelay[250dt] $0;\nc[0] = measure $0;\n";
        let circuit = super::super::isa::read(text, &target).expect("an ISA circuit");
        assert_eq!(circuit.waits.len(), 2);
        let schedule = schedule(&circuit, &[0], Some(&calibration)).expect("schedules");
        // x, the two idles, the measurement.
        assert_eq!(schedule.steps.len(), 4);
        let t1 = t1_of_qubit_0();
        // Fez samples every 4 ns: 250 dt are 1 us.
        for (step, seconds) in [(1, 100e-6), (2, 1e-6)] {
            let (Step::One { matrix, noise: Some(noise), .. }, None) = &schedule.steps[step] else {
                panic!("an idle step: {:?}", schedule.steps[step])
            };
            assert_eq!(*matrix, IDENTITY);
            let (_, jump, _) = noise.relaxation[0];
            assert!((jump - (1.0 - (-seconds / t1).exp())).abs() < 1e-12, "{jump}");
        }
        // Ideal: no noise, no idle steps.
        assert_eq!(schedule_len(&circuit), 2);
        assert_eq!(calibration.idle(0, Duration::Seconds(0.0)), None);
    }

    fn schedule_len(circuit: &IsaCircuit) -> usize {
        schedule(circuit, &[0], None).expect("schedules").steps.len()
    }
}
