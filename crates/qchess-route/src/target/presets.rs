//! Named targets.
//!
//! * `ibm-fez` (or `ibm-heron`): IBM's `ibm_fez` (Heron r2, 156 qubits, CZ), configuration and
//!   calibration as published in `qiskit-ibm-runtime` (see `data/SOURCES.md`);
//! * `ibm-torino`: IBM's `ibm_torino` (Heron r1, 133 qubits, CZ), likewise;
//! * `ibm-brisbane` (or `ibm-eagle`): IBM's `ibm_brisbane` (Eagle r3, 127 qubits, directed ECR),
//!   likewise;
//! * `braket:NAME`: an Amazon Braket device whose capabilities were published (see
//!   [`super::braket::DEVICES`] and `data/SOURCES.md`): `braket:iqm-garnet`, `braket:iqm-emerald`,
//!   `braket:rigetti-ankaa-3`, `braket:rigetti-cepheus-1-108q`, `braket:ionq-forte-enterprise-1`;
//! * `sycamore`: Google's 54-qubit Sycamore lattice (a diagonal grid: each qubit couples to up to
//!   four neighbours), sqrt-iSWAP;
//! * `line:N`, `grid:RxC` (row-major numbering): nearest neighbours, CZ;
//! * `all:N`: every pair coupled (a trapped-ion device), IonQ native gates.
//!
//! Any of them takes `@BASIS` to change the gate set: `line:4@ecr` (ECR on a line is coupled both
//! ways), `all:6@cz`.

use super::{Basis, Target, TargetError, braket, ibm};

/// IBM's published configuration of `ibm_fez` (Heron r2), as the service serves it.
pub const FEZ_CONF: &str = include_str!("../../data/conf_fez.json");
/// IBM's published calibration (properties) of `ibm_fez`, as the service serves it.
pub const FEZ_PROPS: &str = include_str!("../../data/props_fez.json");
/// IBM's published configuration of `ibm_brisbane` (Eagle r3), as the service serves it.
pub const BRISBANE_CONF: &str = include_str!("../../data/conf_brisbane.json");
/// IBM's published calibration (properties) of `ibm_brisbane`, as the service serves it.
pub const BRISBANE_PROPS: &str = include_str!("../../data/props_brisbane.json");
/// IBM's published configuration of `ibm_torino` (Heron r1), as the service serves it.
pub const TORINO_CONF: &str = include_str!("../../data/conf_torino.json");
/// IBM's published calibration (properties) of `ibm_torino`, as the service serves it.
pub const TORINO_PROPS: &str = include_str!("../../data/props_torino.json");

/// The Sycamore lattice as Google publishes it: `#` is a qubit at (row, column); qubits in the
/// same row or column next to each other are coupled.
const SYCAMORE: [&str; 10] = [
    "-----##---",
    "----####--",
    "---######-",
    "--########",
    "-#########",
    "#########-",
    "-#######--",
    "--#####---",
    "---###----",
    "----#-----",
];

/// The largest `line`, `grid` or `all` preset.
const MAX_PRESET_QUBITS: u64 = 1024;

/// The published configuration and properties (as the service serves them) behind an IBM preset
/// name (`ibm-torino`, `ibm-fez`, `ibm-heron`, `ibm-brisbane`, `ibm-eagle`).
pub fn published(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        "ibm-heron" | "ibm-fez" => Some((FEZ_CONF, FEZ_PROPS)),
        "ibm-eagle" | "ibm-brisbane" => Some((BRISBANE_CONF, BRISBANE_PROPS)),
        "ibm-torino" => Some((TORINO_CONF, TORINO_PROPS)),
        _ => None,
    }
}

/// The preset named by `spec`, or `None` when `spec` names none (then it may be a file).
pub fn preset(spec: &str) -> Option<Result<Target, TargetError>> {
    let (name, basis) = match spec.split_once('@') {
        Some((name, basis)) => (name, Some(basis)),
        None => (spec, None),
    };
    let bad = || Some(Err(TargetError::UnknownPreset(spec.to_owned())));
    let target = match name {
        ibm if published(ibm).is_some() => {
            let (conf, props) = published(ibm)?;
            ibm_device(conf, props, name)
        }
        "sycamore" => sycamore(),
        _ if name.starts_with("braket:") => match braket::device(&name["braket:".len()..]).map(braket::target_of) {
            Some(Ok(Some(target))) => Ok(target),
            Some(Err(error)) => Err(error),
            Some(Ok(None)) | None => return bad(),
        },
        _ => {
            let (kind, size) = name.split_once(':')?;
            let parse = |text: &str| text.parse::<u64>().ok().filter(|&n| (1..=MAX_PRESET_QUBITS).contains(&n));
            match kind {
                "line" => match parse(size) {
                    Some(n) => line(n as u32),
                    None => return bad(),
                },
                "all" => match parse(size) {
                    Some(n) => Target::new(name, n, Basis::IonqNative, ibm::all_pairs(n as u32)),
                    None => return bad(),
                },
                "grid" => match size.split_once('x').map(|(r, c)| (parse(r), parse(c))) {
                    Some((Some(r), Some(c))) if r * c <= MAX_PRESET_QUBITS => grid(r as u32, c as u32),
                    _ => return bad(),
                },
                _ => return None,
            }
        }
    };
    Some(match basis {
        None => target,
        Some(basis) => basis.parse().and_then(|basis| Ok(symmetric(target?).with_basis(basis))),
    })
}

/// Both directions of every pair, so that a directed gate set may use any of them.
fn symmetric(target: Target) -> Target {
    if target.basis.symmetric() {
        let mut coupling = target.coupling.clone();
        coupling.extend(target.coupling.iter().map(|&(a, b)| (b, a)));
        coupling.sort_unstable();
        coupling.dedup();
        let mut symmetric = Target::new(target.name.clone(), target.num_qubits.into(), target.basis, coupling)
            .unwrap_or_else(|_| target.clone());
        symmetric.qubit_error = target.qubit_error;
        symmetric.pair_error = target.pair_error;
        symmetric.calibration = target.calibration;
        symmetric
    } else {
        target
    }
}

fn ibm_device(conf: &str, props: &str, name: &str) -> Result<Target, TargetError> {
    let target = Target::from_json(conf, name)?;
    ibm::with_properties(target, props, name)
}

fn line(n: u32) -> Result<Target, TargetError> {
    let coupling = (1..n).flat_map(|q| [(q - 1, q), (q, q - 1)]).collect();
    Target::new(format!("line:{n}"), n.into(), Basis::Cz, coupling)
}

fn grid(rows: u32, columns: u32) -> Result<Target, TargetError> {
    let mut coupling = Vec::new();
    for r in 0..rows {
        for c in 0..columns {
            let q = r * columns + c;
            if c + 1 < columns {
                coupling.extend([(q, q + 1), (q + 1, q)]);
            }
            if r + 1 < rows {
                coupling.extend([(q, q + columns), (q + columns, q)]);
            }
        }
    }
    Target::new(format!("grid:{rows}x{columns}"), (rows * columns).into(), Basis::Cz, coupling)
}

fn sycamore() -> Result<Target, TargetError> {
    let mut index = std::collections::HashMap::new();
    for (r, row) in SYCAMORE.iter().enumerate() {
        for (c, cell) in row.bytes().enumerate() {
            if cell == b'#' {
                let next = index.len() as u32;
                index.insert((r, c), next);
            }
        }
    }
    let mut coupling = Vec::new();
    for (&(r, c), &q) in &index {
        for neighbour in [(r + 1, c), (r, c + 1)] {
            if let Some(&p) = index.get(&neighbour) {
                coupling.extend([(q, p), (p, q)]);
            }
        }
    }
    coupling.sort_unstable();
    Target::new("sycamore", index.len() as u64, Basis::SqrtIswap, coupling)
}
