//! Devices to compile for: qubits, coupling map, native gate set and optional error rates.
//!
//! A [`Target`] comes from IBM's backend configuration JSON as the service serves it (with its
//! properties file for error rates, see [`ibm`]), from Amazon Braket's device capabilities JSON
//! (see [`braket`]), from a small JSON format of our own (see [`Target::from_json`]), or from a
//! preset name (see [`presets`]): `ibm-torino`, `ibm-fez` (`ibm-heron`), `ibm-brisbane`
//! (`ibm-eagle`), `braket:iqm-garnet` and the other Braket devices with a published snapshot,
//! `sycamore`, `line:N`, `grid:RxC`, `all:N`, each optionally followed by `@BASIS` to change the
//! native gate set (`line:5@ecr`). The calibration
//! (error rates, broken elements, date) is described in [`calibration`]; routing removes broken
//! elements from a copy of the target before it places anything (`crate::usable`).
//!
//! ```
//! use qchess_route::target::{Basis, Target};
//!
//! let heron = Target::resolve("ibm-heron")?;
//! assert_eq!((heron.name.as_str(), heron.num_qubits, heron.basis), ("ibm_fez", 156, Basis::Cz));
//! assert!(heron.is_coupled(0, 1) && !heron.is_coupled(0, 2));
//! let grid = Target::resolve("grid:2x3@ecr")?;
//! assert_eq!((grid.num_qubits, grid.basis, grid.distance(0, 5)), (6, Basis::Ecr, 3));
//! # Ok::<(), qchess_route::target::TargetError>(())
//! ```

pub mod braket;
pub mod calibration;
pub mod ibm;
pub mod presets;

pub use calibration::Calibration;

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::Deserialize;

/// The native gate set of a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Basis {
    /// CZ plus `rz`, `sx`, `x` (IBM Heron).
    Cz,
    /// ECR plus `rz`, `sx`, `x` (IBM Eagle); ECR is directed.
    Ecr,
    /// sqrt-iSWAP plus `rz` and `rx` (Google Sycamore-style).
    SqrtIswap,
    /// IonQ's native gates: `gpi`, `gpi2` and `ms`.
    IonqNative,
    /// IonQ Forte's native gates: `gpi`, `gpi2` and `zz`.
    IonqZz,
    /// IQM's native gates: `prx` and CZ (no Z rotation: frame changes are folded into `prx`).
    Prx,
    /// Rigetti's native gates with CZ: `rx` (by +-pi/2 and pi only), `rz` and `cz`.
    RigettiCz,
    /// Rigetti Ankaa's native gates: `rx` (by +-pi/2 and pi only), `rz` and `iswap`.
    RigettiIswap,
}

impl Basis {
    /// Every basis.
    pub const ALL: [Basis; 8] = [
        Basis::Cz,
        Basis::Ecr,
        Basis::SqrtIswap,
        Basis::IonqNative,
        Basis::IonqZz,
        Basis::Prx,
        Basis::RigettiCz,
        Basis::RigettiIswap,
    ];

    /// The name used in target specs and our JSON format: `cz`, `ecr`, `sqrt-iswap`, `ionq`,
    /// `ionq-zz`, `prx`, `rigetti-cz`, `rigetti-iswap`.
    pub const fn name(self) -> &'static str {
        match self {
            Basis::Cz => "cz",
            Basis::Ecr => "ecr",
            Basis::SqrtIswap => "sqrt-iswap",
            Basis::IonqNative => "ionq",
            Basis::IonqZz => "ionq-zz",
            Basis::Prx => "prx",
            Basis::RigettiCz => "rigetti-cz",
            Basis::RigettiIswap => "rigetti-iswap",
        }
    }

    /// The two-qubit gate as OpenQASM (and calibration files) name it.
    pub const fn two_qubit_gate(self) -> &'static str {
        match self {
            Basis::Cz | Basis::Prx | Basis::RigettiCz => "cz",
            Basis::Ecr => "ecr",
            Basis::SqrtIswap => "sqrt_iswap",
            Basis::IonqNative => "ms",
            Basis::IonqZz => "zz",
            Basis::RigettiIswap => "iswap",
        }
    }

    /// Whether Z rotations are frame changes (error-free, and free to move across the
    /// two-qubit gate) on this gate set.
    pub const fn virtual_z(self) -> bool {
        matches!(self, Basis::Cz | Basis::RigettiCz | Basis::RigettiIswap)
    }

    /// Whether the two-qubit gate acts the same with its operands exchanged, so either
    /// direction of a coupled pair may carry it.
    pub const fn symmetric(self) -> bool {
        !matches!(self, Basis::Ecr)
    }

    /// The gate names of the basis as written in OpenQASM.
    pub fn gate_names(self) -> &'static [&'static str] {
        match self {
            Basis::Cz => &["cz", "rz", "sx", "x"],
            Basis::Ecr => &["ecr", "rz", "sx", "x"],
            Basis::SqrtIswap => &["sqrt_iswap", "rz", "rx"],
            Basis::IonqNative => &["ms", "gpi", "gpi2"],
            Basis::IonqZz => &["zz", "gpi", "gpi2"],
            Basis::Prx => &["cz", "prx"],
            Basis::RigettiCz => &["cz", "rx", "rz"],
            Basis::RigettiIswap => &["iswap", "rx", "rz"],
        }
    }
}

impl fmt::Display for Basis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Basis {
    type Err = TargetError;

    fn from_str(text: &str) -> Result<Basis, TargetError> {
        Basis::ALL.into_iter().find(|b| b.name() == text).ok_or_else(|| TargetError::UnknownBasis(text.to_owned()))
    }
}

/// Why a target could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TargetError {
    /// The JSON text is malformed or lacks a field.
    #[error("{source_name}: {message}")]
    Json {
        /// Where the text came from (a file name or a preset).
        source_name: String,
        /// The parser's message, with line and column.
        message: String,
    },
    /// The basis gates name no two-qubit gate we can target.
    #[error("{source_name}: basis gates {gates:?} have no two-qubit gate among cz, ecr, sqrt_iswap, ms, zz, iswap")]
    NoTwoQubitGate {
        /// Where the description came from.
        source_name: String,
        /// The basis gates it lists.
        gates: Vec<String>,
    },
    /// An unknown basis name.
    #[error("unknown basis `{0}`: expected cz, ecr, sqrt-iswap, ionq, ionq-zz, prx, rigetti-cz or rigetti-iswap")]
    UnknownBasis(String),
    /// A coupling names a qubit the device does not have, or a qubit with itself.
    #[error("{source_name}: coupling [{a}, {b}] is not a pair of distinct qubits below {num_qubits}")]
    BadCoupling {
        /// Where the description came from.
        source_name: String,
        /// First qubit.
        a: u32,
        /// Second qubit.
        b: u32,
        /// The device's qubit count.
        num_qubits: u32,
    },
    /// A device with no qubits, or more than we route onto.
    #[error("{source_name}: {num_qubits} qubits; a target has 1 to {MAX_QUBITS}")]
    BadSize {
        /// Where the description came from.
        source_name: String,
        /// The qubit count given.
        num_qubits: u64,
    },
    /// A preset name we do not know, or one with a malformed size.
    #[error(
        "unknown target `{0}`: expected ibm-torino, ibm-fez, ibm-brisbane (ibm-heron, ibm-eagle), braket:iqm-garnet, \
         braket:iqm-emerald, braket:rigetti-ankaa-3, braket:rigetti-cepheus-1-108q, braket:ionq-forte-enterprise-1, \
         sycamore, line:N, grid:RxC or all:N (optionally @BASIS: cz, ecr, sqrt-iswap, ionq, ionq-zz, prx, \
         rigetti-cz or rigetti-iswap), or a JSON file"
    )]
    UnknownPreset(String),
    /// A target file could not be read.
    #[error("reading {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The system's message.
        message: String,
    },
    /// The properties file belongs to another device.
    #[error("properties of `{properties}` do not match the configuration of `{configuration}`")]
    PropertiesMismatch {
        /// The configuration's backend name.
        configuration: String,
        /// The properties' backend name.
        properties: String,
    },
}

/// The most qubits a target may have.
pub const MAX_QUBITS: u32 = 4096;

/// A device: qubits `0..num_qubits`, coupled pairs, native gate set and error rates.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// Device name (`ibm_fez`, `grid:3x3`).
    pub name: String,
    /// Number of physical qubits.
    pub num_qubits: u32,
    /// Native gate set.
    pub basis: Basis,
    /// Directed pairs that carry the two-qubit gate, as listed (`[control, target]` for ECR).
    pub coupling: Vec<(u32, u32)>,
    /// Readout (or one-qubit) error per qubit, when known.
    pub qubit_error: Option<Vec<f64>>,
    /// Two-qubit gate error per directed pair, when known.
    pub pair_error: HashMap<(u32, u32), f64>,
    /// One-qubit gate errors, elements marked not operational, and the calibration's date.
    pub calibration: Calibration,
    /// Qubits no logical qubit may occupy (broken, or outside the part routing uses).
    excluded: Vec<bool>,
    /// `directed[a * n + b]`: whether `(a, b)` is listed.
    directed: Vec<bool>,
    neighbours: Vec<Vec<u32>>,
    distance: Vec<u16>,
}

/// Our own JSON format: `{"name": "...", "qubits": N, "basis": "cz", "coupling": [[a, b], ...]}`
/// with optional `"qubit_errors": [e0, e1, ...]` and `"pair_errors": [[a, b, e], ...]`; a
/// coupling lists one direction, and both directions are coupled unless `"directed": true`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OwnFormat {
    name: String,
    qubits: u64,
    basis: String,
    coupling: Vec<(u32, u32)>,
    #[serde(default)]
    directed: bool,
    #[serde(default)]
    qubit_errors: Option<Vec<f64>>,
    #[serde(default)]
    pair_errors: Vec<(u32, u32, f64)>,
}

impl Target {
    /// A target from its parts; checks every coupling and computes distances.
    pub fn new(
        name: impl Into<String>,
        num_qubits: u64,
        basis: Basis,
        coupling: Vec<(u32, u32)>,
    ) -> Result<Target, TargetError> {
        let name = name.into();
        if num_qubits == 0 || num_qubits > u64::from(MAX_QUBITS) {
            return Err(TargetError::BadSize { source_name: name, num_qubits });
        }
        let n = num_qubits as u32;
        if let Some(&(a, b)) = coupling.iter().find(|&&(a, b)| a >= n || b >= n || a == b) {
            return Err(TargetError::BadCoupling { source_name: name, a, b, num_qubits: n });
        }
        let mut directed = vec![false; n as usize * n as usize];
        for &(a, b) in &coupling {
            directed[a as usize * n as usize + b as usize] = true;
        }
        let listed = |a: u32, b: u32| directed[a as usize * n as usize + b as usize];
        let neighbours: Vec<Vec<u32>> =
            (0..n).map(|a| (0..n).filter(|&b| listed(a, b) || listed(b, a)).collect()).collect();
        let distance = all_pairs_distance(&neighbours);
        Ok(Target {
            name,
            num_qubits: n,
            basis,
            coupling,
            qubit_error: None,
            pair_error: HashMap::new(),
            calibration: Calibration::default(),
            excluded: vec![false; n as usize],
            directed,
            neighbours,
            distance,
        })
    }

    /// A target from JSON text: IBM's backend configuration (recognised by `n_qubits`), Braket's
    /// device capabilities (recognised by `braketSchemaHeader`) or our own format (see the
    /// module docs). `source_name` names the text in errors.
    pub fn from_json(text: &str, source_name: &str) -> Result<Target, TargetError> {
        let json_error =
            |e: serde_json::Error| TargetError::Json { source_name: source_name.to_owned(), message: e.to_string() };
        let value: serde_json::Value = serde_json::from_str(text).map_err(json_error)?;
        if value.get("n_qubits").is_some() {
            return ibm::configuration(value, source_name);
        }
        if value.get("braketSchemaHeader").is_some() {
            return braket::capabilities(&value, source_name);
        }
        let own: OwnFormat = serde_json::from_value(value).map_err(json_error)?;
        let basis: Basis = own.basis.parse()?;
        let mut coupling = own.coupling;
        if !own.directed {
            let reversed: Vec<(u32, u32)> = coupling.iter().map(|&(a, b)| (b, a)).collect();
            coupling.extend(reversed);
        }
        let mut target = Target::new(source_name, own.qubits, basis, coupling)?;
        target.name = own.name;
        target.qubit_error = own.qubit_errors;
        for (a, b, e) in own.pair_errors {
            target.pair_error.insert((a, b), e);
            if !own.directed {
                target.pair_error.insert((b, a), e);
            }
        }
        Ok(target)
    }

    /// A preset (see [`presets`]) or, failing that, a JSON file at that path (with IBM's
    /// properties read from `props_*.json` next to a `conf_*.json`, when present).
    pub fn resolve(spec: &str) -> Result<Target, TargetError> {
        if let Some(target) = presets::preset(spec) {
            return target;
        }
        let path = Path::new(spec);
        if !path.is_file() {
            return Err(TargetError::UnknownPreset(spec.to_owned()));
        }
        let read = |path: &Path| {
            std::fs::read_to_string(path)
                .map_err(|e| TargetError::Io { path: path.display().to_string(), message: e.to_string() })
        };
        let mut target = Target::from_json(&read(path)?, spec)?;
        let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if let Some(device) = file_name.strip_prefix("conf_") {
            let properties = path.with_file_name(format!("props_{device}"));
            if properties.is_file() {
                let source_name = properties.display().to_string();
                target = ibm::with_properties(target, &read(&properties)?, &source_name)?;
            }
        }
        Ok(target)
    }

    /// Whether no logical qubit may occupy `qubit` (see [`Target::restricted`]).
    pub fn is_excluded(&self, qubit: u32) -> bool {
        self.excluded.get(qubit as usize).copied().unwrap_or(true)
    }

    /// A copy keeping only the couplings `keep` allows and with the qubits `exclude` names
    /// excluded (never occupied); error rates and calibration are kept as they are.
    pub fn restricted(&self, keep: impl Fn(u32, u32) -> bool, exclude: impl Fn(u32) -> bool) -> Target {
        let coupling =
            self.coupling.iter().copied().filter(|&(a, b)| keep(a, b) && !exclude(a) && !exclude(b)).collect();
        let mut restricted = match Target::new(self.name.clone(), self.num_qubits.into(), self.basis, coupling) {
            Ok(target) => target,
            // The couplings are a subset of valid ones and the size is unchanged.
            Err(_) => self.clone(),
        };
        restricted.qubit_error.clone_from(&self.qubit_error);
        restricted.pair_error.clone_from(&self.pair_error);
        restricted.calibration.clone_from(&self.calibration);
        restricted.excluded = (0..self.num_qubits).map(|q| exclude(q) || self.is_excluded(q)).collect();
        restricted
    }

    /// Whether `a` and `b` are coupled in either direction.
    pub fn is_coupled(&self, a: u32, b: u32) -> bool {
        self.distance(a, b) == 1
    }

    /// Whether the two-qubit gate may act with `control` first and `target` second.
    pub fn allows(&self, control: u32, target: u32) -> bool {
        if self.basis.symmetric() {
            self.is_coupled(control, target)
        } else {
            self.directed[control as usize * self.num_qubits as usize + target as usize]
        }
    }

    /// The qubits coupled to `q`, in increasing order.
    pub fn neighbours(&self, q: u32) -> &[u32] {
        &self.neighbours[q as usize]
    }

    /// Hops between `a` and `b` on the undirected coupling graph (`u16::MAX` if unreachable).
    pub fn distance(&self, a: u32, b: u32) -> u16 {
        self.distance[a as usize * self.num_qubits as usize + b as usize]
    }

    /// The error of the two-qubit gate on the pair in its best direction, when known.
    pub fn pair_error_of(&self, a: u32, b: u32) -> Option<f64> {
        match (self.pair_error.get(&(a, b)), self.pair_error.get(&(b, a))) {
            (Some(x), Some(y)) => Some(x.min(*y)),
            (Some(x), None) | (None, Some(x)) => Some(*x),
            (None, None) => None,
        }
    }

    /// A copy with another native gate set.
    #[must_use]
    pub fn with_basis(mut self, basis: Basis) -> Target {
        if basis != self.basis {
            self.name = format!("{}@{}", self.name, basis.name());
            self.basis = basis;
        }
        self
    }
}

/// Breadth-first distances from every qubit.
fn all_pairs_distance(neighbours: &[Vec<u32>]) -> Vec<u16> {
    let n = neighbours.len();
    let mut distance = vec![u16::MAX; n * n];
    let mut queue = VecDeque::new();
    for start in 0..n {
        let row = &mut distance[start * n..(start + 1) * n];
        row[start] = 0;
        queue.push_back(start);
        while let Some(q) = queue.pop_front() {
            for &next in &neighbours[q] {
                if row[next as usize] == u16::MAX {
                    row[next as usize] = row[q] + 1;
                    queue.push_back(next as usize);
                }
            }
        }
    }
    distance
}

#[cfg(test)]
mod tests;
