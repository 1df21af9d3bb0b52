//! The IBM stand-in's noise (`qchess serve --ibm-noise`): `ideal` samples a job's exact
//! distribution, `device` samples it through the device's published calibration (the properties
//! kept beside the Heron and Eagle presets, served at `/api/v1/backends/{name}/properties`).
//!
//! The model is the one the IonQ stand-ins use ([`ShotNoise`]), with the device's own rates:
//!
//! * each shot is, with probability `1 - prod(1 - e)` over the circuit's gates, a uniformly random
//!   outcome over the qubits the circuit uses (global depolarizing noise), where `e` is the
//!   calibrated `gate_error` of `sx` or `x` on its qubit and of `cz` or `ecr` on its pair, and 0
//!   for `rz` (a change of frame, which the devices do not play as a pulse);
//! * then each measured qubit is read wrong with its calibrated `readout_error`.
//!
//! A gate or qubit the calibration does not list counts as error-free.
//!
//! ```
//! use qchess_route::{IsaOp, NativeGate, Target};
//! use qchess_route::target::presets::{FEZ_CONF, FEZ_PROPS};
//! use qchess_server::ibm::noise::Calibration;
//!
//! let target = Target::from_json(FEZ_CONF, "ibm_fez")?;
//! let calibration = Calibration::from_properties(target, FEZ_PROPS, "ibm_fez").expect("published");
//! let cz = IsaOp::Two { gate: NativeGate::Cz, a: 87, b: 88 };
//! let rz = IsaOp::One { gate: NativeGate::Rz(0.5), qubit: 87 };
//! assert!(calibration.gate_error(&cz) > 0.0 && calibration.gate_error(&rz) == 0.0);
//! assert!(calibration.readout_error(87) > 0.0);
//! # Ok::<(), qchess_route::TargetError>(())
//! ```

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use qchess_route::{IsaOp, NativeGate, Target};
use serde::Deserialize;

use crate::simulate::ShotNoise;

/// How the IBM stand-in samples its jobs. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IbmNoise {
    /// The exact distribution: results agree with the local simulator within sampling error.
    #[default]
    Ideal,
    /// The device's calibrated gate and readout errors.
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

/// The parts of an IBM properties file read here (besides what `qchess-route` reads).
#[derive(Debug, Deserialize)]
struct Properties {
    gates: Vec<GateProperties>,
}

#[derive(Debug, Deserialize)]
struct GateProperties {
    gate: String,
    qubits: Vec<u32>,
    parameters: Vec<Parameter>,
}

#[derive(Debug, Deserialize)]
struct Parameter {
    name: String,
    value: f64,
}

/// A device's error rates: readout and two-qubit errors as `qchess-route` reads them into the
/// target, and the one-qubit gates' errors.
#[derive(Debug, Clone)]
pub struct Calibration {
    target: Target,
    /// `gate_error` of `sx` and `x`, by qubit.
    sx: HashMap<u32, f64>,
    x: HashMap<u32, f64>,
}

impl Calibration {
    /// The calibration of `target` in the properties file `text` (of the same device).
    pub fn from_properties(target: Target, text: &str, source_name: &str) -> Result<Calibration, String> {
        let target =
            qchess_route::target::ibm::with_properties(target, text, source_name).map_err(|e| e.to_string())?;
        let properties: Properties = serde_json::from_str(text).map_err(|e| format!("{source_name}: {e}"))?;
        let (mut sx, mut x) = (HashMap::new(), HashMap::new());
        for gate in &properties.gates {
            let (&[qubit], Some(error)) =
                (gate.qubits.as_slice(), gate.parameters.iter().find(|p| p.name == "gate_error"))
            else {
                continue;
            };
            match gate.gate.as_str() {
                "sx" => sx.insert(qubit, error.value),
                "x" => x.insert(qubit, error.value),
                _ => None,
            };
        }
        Ok(Calibration { target, sx, x })
    }

    /// The calibrated error of one operation (0 for measurements, resets and frame changes).
    pub fn gate_error(&self, op: &IsaOp) -> f64 {
        let error = match *op {
            IsaOp::One { gate: NativeGate::Sx, qubit } => self.sx.get(&qubit).copied(),
            IsaOp::One { gate: NativeGate::X, qubit } => self.x.get(&qubit).copied(),
            IsaOp::Two { a, b, .. } => self.target.pair_error_of(a, b),
            _ => None,
        };
        error.filter(|e| e.is_finite()).unwrap_or(0.0).clamp(0.0, 1.0)
    }

    /// The calibrated readout error of a physical qubit.
    pub fn readout_error(&self, qubit: u32) -> f64 {
        let error = self.target.qubit_error.as_ref().and_then(|errors| errors.get(qubit as usize).copied());
        error.filter(|e| e.is_finite()).unwrap_or(0.0).clamp(0.0, 0.5)
    }

    /// The noise of a circuit `ops` whose state is over the physical qubits `used` (bit `i` of
    /// an outcome is qubit `used[i]`).
    pub fn shot_noise(&self, ops: &[IsaOp], used: &[u32]) -> ShotNoise {
        let survives: f64 = ops.iter().map(|op| 1.0 - self.gate_error(op)).product();
        ShotNoise { depolarized: 1.0 - survives, readout: used.iter().map(|&q| self.readout_error(q)).collect() }
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
            let ops = [
                IsaOp::One { gate: NativeGate::Sx, qubit: a },
                IsaOp::One { gate: NativeGate::X, qubit: b },
                IsaOp::Two { gate: two, a, b },
                IsaOp::One { gate: NativeGate::Rz(1.0), qubit: a },
            ];
            let errors: Vec<f64> = ops.iter().map(|op| calibration.gate_error(op)).collect();
            assert!(errors[..3].iter().all(|&e| e > 0.0 && e < 0.5), "{name}: {errors:?}");
            assert_eq!(errors[3], 0.0);
            let noise = calibration.shot_noise(&ops, &[a, b]);
            let expected = 1.0 - errors.iter().map(|e| 1.0 - e).product::<f64>();
            assert!((noise.depolarized - expected).abs() < 1e-15, "{name}");
            assert_eq!(noise.readout, vec![calibration.readout_error(a), calibration.readout_error(b)]);
            assert!(noise.readout.iter().all(|&r| r > 0.0 && r < 0.5), "{name}: {:?}", noise.readout);
        }
    }
}
