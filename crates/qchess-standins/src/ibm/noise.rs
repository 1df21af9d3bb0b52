//! The IBM stand-in's noise (`qchess serve --ibm-noise`): `ideal` samples a job's exact
//! distribution; `device` applies the device's published calibration (the properties kept
//! beside the Heron and Eagle presets, served at `/api/v1/backends/{name}/properties`) locally,
//! operation by operation, as qiskit-aer's `NoiseModel.from_backend` builds it:
//!
//! * after each gate, a depolarizing channel on the gate's qubits and thermal relaxation of each
//!   of them over the gate's `gate_length`, from the qubit's `T1` and `T2` (`T2` capped at
//!   `2 T1`, no excited population). The depolarizing parameter is chosen so that the pair has
//!   the calibrated `gate_error` as average gate infidelity: with `F` the average gate fidelity
//!   of the relaxation alone and `d = 2^n`, `p = d (gate_error - (1 - F)) / (d F - 1)` (none
//!   when relaxation alone exceeds the error; capped at `4^n / (4^n - 1)`);
//! * `rz` is a frame change (no length, no error); resets and barriers take none, and a
//!   reset's relaxation acts on |0>, where it does nothing;
//! * a `delay` relaxes each of its qubits over its length as idling does (a delay in `dt`
//!   counts the sample time of the device's configuration);
//! * each measurement reads the wrong value with the qubit's `readout_error`.
//!
//! Relaxation is applied as a trajectory: a jump to |0> with probability `gamma P(1)`
//! (`gamma = 1 - exp(-t/T1)`), otherwise the no-jump operator `diag(1, sqrt(1 - gamma))`, then a
//! phase flip with probability `(1 - exp(-t/T2 + t/(2 T1))) / 2`, which together give the
//! channel's populations and coherence exactly. A gate or qubit the calibration does not list
//! is noiseless.
//!
//! ```
//! use qchess_route::{IsaOp, NativeGate, Target};
//! use qchess_route::target::presets::{FEZ_CONF, FEZ_PROPS};
//! use qchess_standins::ibm::noise::Calibration;
//!
//! let target = Target::from_json(FEZ_CONF, "ibm_fez")?;
//! let calibration = Calibration::from_properties(target, FEZ_PROPS, "ibm_fez").expect("published");
//! let cz = IsaOp::Two { gate: NativeGate::Cz, a: 87, b: 88 };
//! let rz = IsaOp::One { gate: NativeGate::Rz(0.5), qubit: 87 };
//! assert!(calibration.gate_error(&cz) > 0.0 && calibration.gate_error(&rz) == 0.0);
//! let noise = calibration.noise(&cz).expect("the CZ is noisy");
//! assert!(noise.depolarizing > 0.0 && noise.relaxation.len() == 2);
//! assert!(calibration.noise(&rz).is_none());
//! assert!(calibration.readout_error(87) > 0.0);
//! # Ok::<(), qchess_route::TargetError>(())
//! ```

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use qchess_route::{IsaOp, NativeGate, Target};
use serde::Deserialize;

/// How the IBM stand-in samples its jobs. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IbmNoise {
    /// The exact distribution: results agree with the local simulator within sampling error.
    #[default]
    Ideal,
    /// The device's calibrated gate errors, relaxation and readout errors.
    Device,
}

impl FromStr for IbmNoise {
    type Err = String;

    fn from_str(text: &str) -> Result<IbmNoise, String> {
        match text {
            "ideal" => Ok(IbmNoise::Ideal),
            "device" => Ok(IbmNoise::Device),
            _ => Err(format!("IBM noise `{text}`: expected device or ideal")),
        }
    }
}

impl fmt::Display for IbmNoise {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IbmNoise::Ideal => "ideal",
            IbmNoise::Device => "device",
        })
    }
}

/// The parts of an IBM properties file read here.
#[derive(Debug, Deserialize)]
struct Properties {
    qubits: Vec<Vec<Figure>>,
    gates: Vec<GateProperties>,
}

#[derive(Debug, Deserialize)]
struct GateProperties {
    gate: String,
    qubits: Vec<u32>,
    parameters: Vec<Figure>,
}

#[derive(Debug, Deserialize)]
struct Figure {
    name: String,
    value: f64,
    #[serde(default)]
    unit: String,
}

impl Figure {
    /// The value in seconds, for a time (`us`, `ns`, ...).
    fn seconds(&self) -> Option<f64> {
        let scale = match self.unit.as_str() {
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        Some(self.value * scale).filter(|t| t.is_finite() && *t >= 0.0)
    }
}

/// One qubit's figures.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct QubitFigures {
    t1: Option<f64>,
    t2: Option<f64>,
    readout: f64,
}

/// One gate's figures on its qubits.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct GateFigures {
    error: Option<f64>,
    length: Option<f64>,
}

/// Thermal relaxation of one qubit over one gate, as a trajectory applies it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relaxation {
    /// The physical qubit.
    pub qubit: u32,
    /// `1 - exp(-t/T1)`: a shot in |1> jumps to |0> with this probability.
    pub jump: f64,
    /// Probability of a phase flip after the jump-or-damping step.
    pub dephasing: f64,
}

/// The noise that follows one operation.
#[derive(Debug, Clone, PartialEq)]
pub struct OpNoise {
    /// The gate's qubits (one or two), in operand order.
    pub qubits: Vec<u32>,
    /// The depolarizing parameter `p` of `(1 - p) rho + p I/d` on those qubits.
    pub depolarizing: f64,
    /// Relaxation of each of them (qubits with `T1` and a gate length only).
    pub relaxation: Vec<Relaxation>,
}

/// A device's calibration: readout errors, gate errors and lengths, `T1` and `T2`.
#[derive(Debug, Clone)]
pub struct Calibration {
    qubits: Vec<QubitFigures>,
    gates: HashMap<(String, Vec<u32>), GateFigures>,
    name: String,
    /// The device's sample time in seconds (what a delay in `dt` counts), when known.
    dt: Option<f64>,
}

impl Calibration {
    /// The calibration of `target` in the properties file `text` (of the same device).
    pub fn from_properties(target: Target, text: &str, source_name: &str) -> Result<Calibration, String> {
        // The route crate's reading checks the file names the same device.
        let target =
            qchess_route::target::ibm::with_properties(target, text, source_name).map_err(|e| e.to_string())?;
        let properties: Properties = serde_json::from_str(text).map_err(|e| format!("{source_name}: {e}"))?;
        let qubits = properties
            .qubits
            .iter()
            .map(|figures| {
                let find = |name: &str| figures.iter().find(|f| f.name == name);
                QubitFigures {
                    t1: find("T1").and_then(Figure::seconds).filter(|&t| t > 0.0),
                    t2: find("T2").and_then(Figure::seconds).filter(|&t| t > 0.0),
                    readout: find("readout_error").map_or(0.0, |f| f.value).clamp(0.0, 0.5),
                }
            })
            .collect();
        let mut gates = HashMap::new();
        for gate in &properties.gates {
            let find = |name: &str| gate.parameters.iter().find(|p| p.name == name);
            let figures = GateFigures {
                error: find("gate_error").map(|f| f.value).filter(|e| e.is_finite() && *e >= 0.0),
                length: find("gate_length").and_then(Figure::seconds),
            };
            gates.insert((gate.gate.clone(), gate.qubits.clone()), figures);
        }
        Ok(Calibration { qubits, gates, name: target.name, dt: None })
    }

    /// The calibration with the device's sample time read from its configuration (`dt`, in
    /// nanoseconds, as IBM publishes it).
    pub fn with_configuration(mut self, configuration: &str) -> Calibration {
        let conf: Option<serde_json::Value> = serde_json::from_str(configuration).ok();
        self.dt = conf.and_then(|c| c["dt"].as_f64()).filter(|&ns| ns > 0.0).map(|ns| ns * 1e-9);
        self
    }

    /// Relaxation of `qubit` idling for `duration` (a `delay`), if it has a `T1` (and, for a
    /// delay in `dt`, the device its sample time).
    pub fn idle(&self, qubit: u32, duration: qchess_qasm::program::Duration) -> Option<Relaxation> {
        let seconds = match duration {
            qchess_qasm::program::Duration::Seconds(s) => s,
            qchess_qasm::program::Duration::Dt(samples) => samples * self.dt?,
        };
        if seconds > 0.0 { self.relaxation(qubit, seconds) } else { None }
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        &self.name
    }

    fn figures(&self, op: &IsaOp) -> Option<(&'static str, Vec<u32>, GateFigures)> {
        let (gate, qubits) = match *op {
            IsaOp::One { gate, qubit } => (gate, vec![qubit]),
            IsaOp::Two { gate, a, b } => (gate, vec![a, b]),
            _ => return None,
        };
        if matches!(gate, NativeGate::Rz(_)) {
            return None;
        }
        let figures = self.gates.get(&(gate.name().to_string(), qubits.clone())).copied()?;
        Some((gate.name(), qubits, figures))
    }

    /// The calibrated error of one operation (0 for measurements, resets and frame changes).
    pub fn gate_error(&self, op: &IsaOp) -> f64 {
        self.figures(op).and_then(|(_, _, f)| f.error).unwrap_or(0.0).clamp(0.0, 1.0)
    }

    /// The calibrated readout error of a physical qubit.
    pub fn readout_error(&self, qubit: u32) -> f64 {
        self.qubits.get(qubit as usize).map_or(0.0, |q| q.readout)
    }

    /// The noise after `op`, or `None` when it has none.
    pub fn noise(&self, op: &IsaOp) -> Option<OpNoise> {
        let (_, qubits, figures) = self.figures(op)?;
        let relaxation: Vec<Relaxation> = match figures.length {
            Some(t) if t > 0.0 => qubits.iter().filter_map(|&q| self.relaxation(q, t)).collect(),
            _ => Vec::new(),
        };
        // Process fidelity multiplies over the independent qubits' channels.
        let process_fidelity: f64 = qubits
            .iter()
            .map(|&q| {
                relaxation.iter().find(|r| r.qubit == q).map_or(1.0, |r| {
                    let coherence = (1.0 - 2.0 * r.dephasing) * (1.0 - r.jump).sqrt();
                    (2.0 + 2.0 * coherence - r.jump) / 4.0
                })
            })
            .product();
        let dim = f64::from(1u32 << qubits.len());
        let relaxation_fidelity = (dim * process_fidelity + 1.0) / (dim + 1.0);
        let depolarizing = match figures.error {
            Some(error) if error > 1.0 - relaxation_fidelity => {
                let error = error.min(dim / (dim + 1.0));
                let p = dim * (error - (1.0 - relaxation_fidelity)) / (dim * relaxation_fidelity - 1.0);
                p.min(dim * dim / (dim * dim - 1.0))
            }
            _ => 0.0,
        };
        if depolarizing == 0.0 && relaxation.is_empty() {
            return None;
        }
        Some(OpNoise { qubits, depolarizing, relaxation })
    }

    /// Relaxation of `qubit` over `seconds`, if it has a `T1`.
    fn relaxation(&self, qubit: u32, seconds: f64) -> Option<Relaxation> {
        let figures = self.qubits.get(qubit as usize)?;
        let t1 = figures.t1?;
        let t2 = figures.t2.map_or(2.0 * t1, |t2| t2.min(2.0 * t1));
        let jump = 1.0 - (-seconds / t1).exp();
        // Coherence after damping is sqrt(1 - jump); the rest of exp(-t/T2) is pure dephasing.
        let remaining = (-seconds / t2 + seconds / (2.0 * t1)).exp().min(1.0);
        Some(Relaxation { qubit, jump, dephasing: (1.0 - remaining) / 2.0 })
    }
}

#[cfg(test)]
mod tests {
    use qchess_route::target::presets::{BRISBANE_CONF, BRISBANE_PROPS, FEZ_CONF, FEZ_PROPS};

    use super::*;

    #[test]
    fn noise_names_round_trip() {
        for noise in [IbmNoise::Ideal, IbmNoise::Device] {
            assert_eq!(noise.to_string().parse::<IbmNoise>(), Ok(noise));
        }
        assert!("noisy".parse::<IbmNoise>().is_err());
    }

    fn figure(props: &serde_json::Value, gate: &str, qubits: &[u32], name: &str) -> f64 {
        props["gates"]
            .as_array()
            .expect("gates")
            .iter()
            .find(|g| g["gate"] == gate && g["qubits"] == serde_json::json!(qubits))
            .and_then(|g| g["parameters"].as_array().expect("params").iter().find(|p| p["name"] == name))
            .and_then(|p| p["value"].as_f64())
            .expect("a figure")
    }

    fn qubit_figure(props: &serde_json::Value, qubit: usize, name: &str) -> f64 {
        props["qubits"][qubit].as_array().expect("figures").iter().find(|f| f["name"] == name).expect("figure")["value"]
            .as_f64()
            .expect("number")
    }

    /// The depolarizing parameter and relaxation of a CZ on ibm_fez 87-88, derived by hand from
    /// the published figures (microseconds and nanoseconds) as qiskit-aer derives them.
    #[test]
    fn a_cz_gets_aers_depolarizing_parameter_and_relaxation() {
        let props: serde_json::Value = serde_json::from_str(FEZ_PROPS).expect("JSON");
        let target = Target::from_json(FEZ_CONF, "ibm_fez").expect("target");
        let calibration = Calibration::from_properties(target, FEZ_PROPS, "ibm_fez").expect("calibration");
        let noise = calibration.noise(&IsaOp::Two { gate: NativeGate::Cz, a: 87, b: 88 }).expect("noisy");
        let t = figure(&props, "cz", &[87, 88], "gate_length") * 1e-9;
        let error = figure(&props, "cz", &[87, 88], "gate_error");
        let mut fidelity = 1.0;
        for (i, q) in [87usize, 88].into_iter().enumerate() {
            let t1 = qubit_figure(&props, q, "T1") * 1e-6;
            let t2 = (qubit_figure(&props, q, "T2") * 1e-6).min(2.0 * t1);
            let (gamma, coherence) = (1.0 - (-t / t1).exp(), (-t / t2).exp());
            let r = noise.relaxation[i];
            assert_eq!(r.qubit, q as u32);
            assert!((r.jump - gamma).abs() < 1e-15);
            // Damping then dephasing leaves exactly exp(-t/T2) of the coherence.
            assert!(((1.0 - 2.0 * r.dephasing) * (1.0 - gamma).sqrt() - coherence).abs() < 1e-15);
            fidelity *= (2.0 + 2.0 * coherence - gamma) / 4.0;
        }
        let average = (4.0 * fidelity + 1.0) / 5.0;
        let expected = 4.0 * (error - (1.0 - average)) / (4.0 * average - 1.0);
        assert!((noise.depolarizing - expected).abs() < 1e-15, "{} vs {expected}", noise.depolarizing);
        assert!(noise.depolarizing > 0.0 && noise.depolarizing < error * 4.0 / 3.0);
    }

    #[test]
    fn both_devices_have_every_rate_the_model_uses() {
        for (conf, props, name, two) in [
            (FEZ_CONF, FEZ_PROPS, "ibm_fez", NativeGate::Cz),
            (BRISBANE_CONF, BRISBANE_PROPS, "ibm_brisbane", NativeGate::Ecr),
        ] {
            let target = Target::from_json(conf, name).expect("a target");
            let coupling = target.coupling.clone();
            let calibration = Calibration::from_properties(target, props, name).expect("calibrated");
            let (a, b) = coupling[0];
            for op in [
                IsaOp::One { gate: NativeGate::Sx, qubit: a },
                IsaOp::One { gate: NativeGate::X, qubit: b },
                IsaOp::Two { gate: two, a, b },
            ] {
                let noise = calibration.noise(&op).unwrap_or_else(|| panic!("{name}: {op:?} is noisy"));
                // Depolarizing makes up what relaxation leaves of the error; none when relaxation
                // alone exceeds it.
                assert!(noise.depolarizing >= 0.0 && noise.depolarizing < 0.5, "{name}: {noise:?}");
                assert_eq!(noise.relaxation.len(), noise.qubits.len(), "{name}: {noise:?}");
                assert!(noise.relaxation.iter().all(|r| r.jump > 0.0 && r.jump < 0.01), "{name}: {noise:?}");
            }
            assert!(calibration.noise(&IsaOp::One { gate: NativeGate::Rz(1.0), qubit: a }).is_none());
            assert!(calibration.readout_error(a) > 0.0 && calibration.readout_error(a) < 0.5);
        }
    }
}
