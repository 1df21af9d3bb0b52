//! Amazon Braket's device capabilities JSON (what `GetDevice` answers in `deviceCapabilities`),
//! read as a target, and the devices qchess knows by a short name.
//!
//! * **Qubits and couplers** come from `paradigm.connectivity`: every pair of its
//!   `connectivityGraph` is coupled both ways, or every pair when `fullyConnected`. Qubits keep
//!   the device's own numbers (IQM counts from 1; Rigetti's devices skip the numbers of qubits
//!   taken out of service), so a target has `1 + the largest number` qubits and every number the
//!   graph does not mention is marked not operational.
//! * **The gate set** follows `paradigm.nativeGateSet`: `prx` and `cz` are IQM's
//!   ([`Basis::Prx`]); `rx`, `rz` and `iswap` Rigetti Ankaa's ([`Basis::RigettiIswap`]); `rx`,
//!   `rz` and `cz` Rigetti's other devices' ([`Basis::RigettiCz`]); `gpi`, `gpi2` and `zz`
//!   IonQ Forte's ([`Basis::IonqZz`]); `gpi`, `gpi2` and `ms` IonQ Aria's ([`Basis::IonqNative`]).
//! * **Error rates** come from the standardized properties, as Braket's own local emulator reads
//!   them: per qubit, one minus the `RANDOMIZED_BENCHMARKING` fidelity (else
//!   `SIMULTANEOUS_RANDOMIZED_BENCHMARKING`) for every one-qubit gate and one minus the `READOUT`
//!   fidelity for a measurement; per coupler, one minus the fidelity of the native two-qubit gate
//!   (`gateName` `CZ`, `ISWAP`, ...). Version 3 (IonQ) gives one figure for the whole device; the
//!   one-qubit figure then comes from `provider.fidelity["1Q"]`. Rigetti marks qubits and couplers
//!   out of service with a fidelity of 0.5, which counts as broken
//!   ([`super::calibration::BROKEN_ERROR`]). The calibration's date is `service.updatedAt`.
//!
//! ```
//! use qchess_route::target::braket::{device, target_of};
//! use qchess_route::target::Basis;
//!
//! let garnet = target_of(device("iqm-garnet").expect("known"))?.expect("a snapshot");
//! assert_eq!((garnet.num_qubits, garnet.basis), (21, Basis::Prx));
//! assert!(garnet.is_qubit_broken(0), "IQM numbers its qubits from 1");
//! assert!(garnet.is_coupled(1, 2) && !garnet.is_coupled(1, 3));
//! # Ok::<(), qchess_route::target::TargetError>(())
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{Basis, Calibration, Target, TargetError};

/// A Braket device qchess knows by a short name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BraketDevice {
    /// The short name (`iqm-garnet`).
    pub name: &'static str,
    /// The device's ARN.
    pub arn: &'static str,
    /// A published capabilities snapshot checked into `data/` (see `data/SOURCES.md`).
    pub snapshot: Option<&'static str>,
}

impl BraketDevice {
    /// Whether it is one of Braket's managed simulators (which take any gate on any qubits and
    /// no verbatim box).
    pub fn is_simulator(&self) -> bool {
        is_simulator_arn(self.arn)
    }
}

/// Whether an ARN names one of Braket's managed simulators.
pub fn is_simulator_arn(arn: &str) -> bool {
    arn.contains(":device/quantum-simulator/")
}

/// The devices qchess knows by name.
pub const DEVICES: [BraketDevice; 8] = [
    BraketDevice {
        name: "iqm-garnet",
        arn: "arn:aws:braket:eu-north-1::device/qpu/iqm/Garnet",
        snapshot: Some(include_str!("../../data/braket_iqm_garnet.json")),
    },
    BraketDevice {
        name: "iqm-emerald",
        arn: "arn:aws:braket:eu-north-1::device/qpu/iqm/Emerald",
        snapshot: Some(include_str!("../../data/braket_iqm_emerald.json")),
    },
    BraketDevice {
        name: "rigetti-ankaa-3",
        arn: "arn:aws:braket:us-west-1::device/qpu/rigetti/Ankaa-3",
        snapshot: Some(include_str!("../../data/braket_rigetti_ankaa_3.json")),
    },
    BraketDevice {
        name: "rigetti-cepheus-1-108q",
        arn: "arn:aws:braket:us-west-1::device/qpu/rigetti/Cepheus-1-108Q",
        snapshot: Some(include_str!("../../data/braket_rigetti_cepheus_1_108q.json")),
    },
    BraketDevice {
        name: "ionq-forte-enterprise-1",
        arn: "arn:aws:braket:us-east-1::device/qpu/ionq/Forte-Enterprise-1",
        snapshot: Some(include_str!("../../data/braket_ionq_forte_enterprise_1.json")),
    },
    BraketDevice { name: "ionq-forte-1", arn: "arn:aws:braket:us-east-1::device/qpu/ionq/Forte-1", snapshot: None },
    BraketDevice { name: "sv1", arn: "arn:aws:braket:::device/quantum-simulator/amazon/sv1", snapshot: None },
    BraketDevice { name: "dm1", arn: "arn:aws:braket:::device/quantum-simulator/amazon/dm1", snapshot: None },
];

/// The device of a short name (case-insensitive) or of an ARN qchess knows.
pub fn device(name_or_arn: &str) -> Option<&'static BraketDevice> {
    DEVICES.iter().find(|d| d.name.eq_ignore_ascii_case(name_or_arn) || d.arn == name_or_arn)
}

/// The target of a known device's checked-in snapshot (`None`: the device has none; fetch its
/// capabilities with `GetDevice`).
pub fn target_of(device: &BraketDevice) -> Result<Option<Target>, TargetError> {
    let Some(text) = device.snapshot else { return Ok(None) };
    let value: Value = serde_json::from_str(text)
        .map_err(|e| TargetError::Json { source_name: device.name.to_owned(), message: e.to_string() })?;
    capabilities(&value, &format!("braket:{}", device.name)).map(Some)
}

/// A target from parsed device capabilities: see the [module docs](self). `source_name` names
/// the target and the text in errors.
pub fn capabilities(value: &Value, source_name: &str) -> Result<Target, TargetError> {
    let bad = |message: String| TargetError::Json { source_name: source_name.to_owned(), message };
    let paradigm =
        value.get("paradigm").ok_or_else(|| bad("no `paradigm` (not a gate-model QPU's capabilities)".into()))?;
    let qubit_count = paradigm
        .get("qubitCount")
        .and_then(Value::as_u64)
        .ok_or_else(|| bad("`paradigm.qubitCount` is missing or not a number".into()))?;
    let gates: Vec<String> = paradigm
        .get("nativeGateSet")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("`paradigm.nativeGateSet` is missing".into()))?
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_ascii_lowercase)
        .collect();
    let basis = basis_of(&gates)
        .ok_or_else(|| TargetError::NoTwoQubitGate { source_name: source_name.to_owned(), gates: gates.clone() })?;
    let connectivity = paradigm.get("connectivity").ok_or_else(|| bad("`paradigm.connectivity` is missing".into()))?;
    let fully = connectivity.get("fullyConnected").and_then(Value::as_bool).unwrap_or(false);
    let (num_qubits, coupling, present) = if fully {
        (qubit_count, super::ibm::all_pairs(qubit_count.min(u64::from(super::MAX_QUBITS)) as u32), None)
    } else {
        let graph = connectivity
            .get("connectivityGraph")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("`connectivityGraph` is missing and the device is not fully connected".into()))?;
        let number = |text: &str| {
            text.parse::<u32>().map_err(|_| bad(format!("qubit `{text}` of the connectivity graph is not a number")))
        };
        let mut coupling = BTreeSet::new();
        let mut present = BTreeSet::new();
        for (from, to) in graph {
            let a = number(from)?;
            present.insert(a);
            for b in to.as_array().ok_or_else(|| bad(format!("the neighbours of qubit {from} are not a list")))? {
                let b = number(b.as_str().ok_or_else(|| bad(format!("a neighbour of qubit {from} is not a string")))?)?;
                present.insert(b);
                coupling.extend([(a, b), (b, a)]);
            }
        }
        let size = present.iter().next_back().map_or(0, |&q| u64::from(q) + 1);
        (size, coupling.into_iter().collect(), Some(present))
    };
    let mut target = Target::new(source_name, num_qubits, basis, coupling)?;
    let n = target.num_qubits;
    let mut calibration = Calibration {
        date: value.pointer("/service/updatedAt").and_then(Value::as_str).map(str::to_owned),
        down_qubits: match &present {
            Some(present) => (0..n).filter(|q| !present.contains(q)).collect(),
            None => BTreeSet::new(),
        },
        ..Calibration::default()
    };
    let standardized = value.get("standardized").filter(|s| !s.is_null());
    match standardized {
        Some(s) if s.get("oneQubitProperties").is_some() => {
            per_element(s, &mut target, &mut calibration, source_name)?;
        }
        Some(s) => whole_device(s, value, &mut target, &mut calibration),
        None => {}
    }
    target.calibration = calibration;
    Ok(target)
}

/// The gate set a native gate list names (lower case), if we target it.
fn basis_of(gates: &[String]) -> Option<Basis> {
    let has = |name: &str| gates.iter().any(|g| g == name);
    if has("prx") && has("cz") {
        Some(Basis::Prx)
    } else if has("rx") && has("rz") && has("iswap") {
        Some(Basis::RigettiIswap)
    } else if has("rx") && has("rz") && has("cz") {
        Some(Basis::RigettiCz)
    } else if has("gpi") && has("gpi2") && has("zz") {
        Some(Basis::IonqZz)
    } else if has("gpi") && has("gpi2") && has("ms") {
        Some(Basis::IonqNative)
    } else {
        None
    }
}

/// The first of `names` among a list of `{fidelityType: {name}, fidelity}`.
fn fidelity(list: &[Value], names: &[&str]) -> Option<f64> {
    names.iter().find_map(|wanted| {
        list.iter()
            .find(|f| f.pointer("/fidelityType/name").and_then(Value::as_str) == Some(*wanted))
            .and_then(|f| f.get("fidelity"))
            .and_then(Value::as_f64)
    })
}

/// Per-qubit and per-coupler figures (standardized properties, versions 1 and 2).
fn per_element(
    standardized: &Value,
    target: &mut Target,
    calibration: &mut Calibration,
    source_name: &str,
) -> Result<(), TargetError> {
    let n = target.num_qubits as usize;
    let (mut readout, mut gate) = (vec![0.0; n], vec![0.0; n]);
    let one = standardized.get("oneQubitProperties").and_then(Value::as_object).into_iter().flatten();
    for (qubit, properties) in one {
        let Some(q) = qubit.parse::<usize>().ok().filter(|&q| q < n) else { continue };
        let list = properties.get("oneQubitFidelity").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        if let Some(f) = fidelity(list, &["RANDOMIZED_BENCHMARKING", "SIMULTANEOUS_RANDOMIZED_BENCHMARKING"]) {
            gate[q] = 1.0 - f;
        }
        if let Some(f) = fidelity(list, &["READOUT"]) {
            readout[q] = 1.0 - f;
        }
    }
    let two_qubit = target.basis.two_qubit_gate();
    let pairs: BTreeMap<String, Value> = standardized
        .get("twoQubitProperties")
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    for (pair, properties) in &pairs {
        let Some((a, b)) =
            pair.split_once('-').and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)))
        else {
            return Err(TargetError::Json {
                source_name: source_name.to_owned(),
                message: format!("two-qubit properties of `{pair}`: expected `A-B` with qubit numbers"),
            });
        };
        let list = properties.get("twoQubitGateFidelity").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let native = list
            .iter()
            .find(|f| f.get("gateName").and_then(Value::as_str).is_some_and(|g| g.eq_ignore_ascii_case(two_qubit)));
        if let Some(f) = native.and_then(|f| f.get("fidelity")).and_then(Value::as_f64) {
            target.pair_error.insert((a, b), 1.0 - f);
            target.pair_error.insert((b, a), 1.0 - f);
        }
    }
    target.qubit_error = Some(readout);
    calibration.sx_error = Some(gate);
    Ok(())
}

/// One figure per kind for the whole device (standardized properties, version 3: IonQ).
fn whole_device(standardized: &Value, capabilities: &Value, target: &mut Target, calibration: &mut Calibration) {
    let n = target.num_qubits as usize;
    let first = |key: &str| {
        standardized
            .get(key)
            .and_then(Value::as_array)
            .and_then(|l| l.first())
            .and_then(|f| f.get("fidelity"))
            .and_then(Value::as_f64)
    };
    let provider = |key: &str| capabilities.pointer(&format!("/provider/fidelity/{key}/mean")).and_then(Value::as_f64);
    if let Some(f) = first("readoutFidelity").or_else(|| provider("spam")) {
        target.qubit_error = Some(vec![1.0 - f; n]);
    }
    if let Some(f) = provider("1Q") {
        calibration.sx_error = Some(vec![1.0 - f; n]);
    }
    if let Some(f) = first("twoQubitGateFidelity").or_else(|| provider("2Q")) {
        for &(a, b) in &target.coupling {
            target.pair_error.insert((a, b), 1.0 - f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_snapshot_reads_with_its_gate_set_and_calibration() {
        let expected = [
            ("iqm-garnet", Basis::Prx, 21, 20),
            ("iqm-emerald", Basis::Prx, 55, 54),
            ("rigetti-ankaa-3", Basis::RigettiIswap, 84, 82),
            ("rigetti-cepheus-1-108q", Basis::RigettiCz, 108, 107),
            ("ionq-forte-enterprise-1", Basis::IonqZz, 36, 36),
        ];
        for (name, basis, size, present) in expected {
            let target = target_of(device(name).expect("known")).expect("reads").expect("a snapshot");
            assert_eq!((target.basis, target.num_qubits), (basis, size), "{name}");
            assert_eq!(target.num_qubits as usize - target.calibration.down_qubits.len(), present, "{name}");
            assert!(target.is_calibrated() && target.calibration.date.is_some(), "{name}");
            for &(a, b) in &target.coupling {
                assert!(target.pair_error_of(a, b).is_some(), "{name}: coupler {a}-{b} has no error rate");
            }
        }
        let ankaa = target_of(device("rigetti-ankaa-3").expect("known")).expect("reads").expect("snapshot");
        assert!(ankaa.is_qubit_broken(53) && ankaa.is_qubit_broken(42), "fidelity 0.5, and a qubit out of the graph");
        assert!(ankaa.is_pair_broken(78, 79) && !ankaa.is_pair_broken(0, 1));
        // As data/SOURCES.md says.
        assert_eq!(ankaa.broken_qubits().iter().filter(|&&q| !ankaa.calibration.down_qubits.contains(&q)).count(), 4);
        assert_eq!(ankaa.broken_couplers().len(), 26);
        let forte = target_of(device("ionq-forte-enterprise-1").expect("known")).expect("reads").expect("snapshot");
        assert!(forte.is_coupled(0, 35) && (forte.two_qubit_error(0, 35) - 0.0075).abs() < 1e-12);
    }

    #[test]
    fn names_and_arns_find_devices_and_bad_capabilities_are_named() {
        assert_eq!(device("IQM-Garnet").map(|d| d.arn), Some("arn:aws:braket:eu-north-1::device/qpu/iqm/Garnet"));
        assert!(device("arn:aws:braket:::device/quantum-simulator/amazon/sv1").is_some_and(BraketDevice::is_simulator));
        assert!(device("iqm-garnet").is_some_and(|d| !d.is_simulator()));
        assert!(device("garnet").is_none());
        let cases = [
            (serde_json::json!({}), "paradigm"),
            (serde_json::json!({"paradigm": {"qubitCount": 2, "nativeGateSet": ["cz"]}}), "two-qubit gate"),
            (
                serde_json::json!({"paradigm": {"qubitCount": 2, "nativeGateSet": ["prx", "cz"],
                    "connectivity": {"fullyConnected": false, "connectivityGraph": {"a": ["1"]}}}}),
                "qubit `a`",
            ),
        ];
        for (value, says) in cases {
            let error = capabilities(&value, "x").expect_err(says).to_string();
            assert!(error.contains(says), "{error}");
        }
    }
}
