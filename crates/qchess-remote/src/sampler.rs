//! qchess circuits on IBM Quantum: each circuit is routed by `qchess-route` onto the device's
//! configuration (fetched once per runner), written as an OpenQASM 3 ISA circuit that measures
//! every qubit at the end into `meas`, run as a Sampler V2 job, and its samples read back through
//! the final layout as outcomes over the circuit's own qubits (qubit `i` = bit `i`), the form the
//! IonQ client answers in.
//!
//! Mid-circuit measurements of the circuit are dropped: a game circuit never touches a measured
//! qubit again (measurement is deferred), so measuring it at the end reads the same outcome.

use qchess_circuit::ir::{Circuit, Op};
use qchess_route::emit::{EmitInfo, QasmVersion, to_qasm};
use qchess_route::program::from_circuit;
use qchess_route::{CompileOptions, IsaOp, RouteError, Target, TargetError, compile};
use thiserror::Error;

use crate::client::JobResult;
use crate::error::RemoteError;
use crate::ibm::{IbmClient, IbmConfig};
use crate::probabilities::Probabilities;

/// The classical register the final measurements go to.
const MEASUREMENTS: &str = "meas";

/// Why a circuit could not run on IBM Quantum.
#[derive(Debug, Error)]
pub enum IbmRunError {
    /// The service failed or refused.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// The device's configuration is not a usable target.
    #[error("the configuration of the device is not usable: {0}")]
    Target(#[from] TargetError),
    /// The circuit could not be routed onto the device.
    #[error("cannot route the circuit onto {device}: {source}")]
    Route {
        /// The device.
        device: String,
        /// What routing said.
        source: RouteError,
    },
    /// The circuit has more qubits than one sample holds.
    #[error("the circuit has {0} qubits; at most 64 are read back")]
    TooWide(usize),
}

/// Runs qchess circuits on one IBM Quantum device: see the [module docs](self).
#[derive(Debug)]
pub struct IbmRunner {
    client: IbmClient,
    target: Option<Target>,
    seed: u64,
}

impl IbmRunner {
    /// A runner for `config`'s device; `seed` seeds the router's trials.
    pub fn new(config: IbmConfig, seed: u64) -> Result<IbmRunner, RemoteError> {
        Ok(IbmRunner { client: IbmClient::new(config)?, target: None, seed })
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        &self.client.config().device
    }

    /// The device as a routing target, fetched the first time it is asked for.
    pub async fn target(&mut self) -> Result<&Target, IbmRunError> {
        if self.target.is_none() {
            let configuration = self.client.configuration().await?;
            let target = Target::from_json(&configuration.to_string(), self.device())?;
            self.target = Some(target);
        }
        Ok(self.target.as_ref().expect("set above"))
    }

    /// The OpenQASM 3 ISA circuit submitted for `circuit`.
    pub async fn isa_circuit(&mut self, circuit: &Circuit) -> Result<String, IbmRunError> {
        let seed = self.seed;
        let device = self.device().to_owned();
        let target = self.target().await?;
        let deferred = Circuit {
            ops: circuit.ops.iter().filter(|op| !matches!(op, Op::Measure { .. })).cloned().collect(),
            clbits: 0,
            registers: Vec::new(),
            postselect: Vec::new(),
            ..circuit.clone()
        };
        let route = |source| IbmRunError::Route { device: device.clone(), source };
        let program = from_circuit(&deferred, 0, &[]).map_err(route)?;
        let options = CompileOptions { seed, ..CompileOptions::default() };
        let mut compiled = compile(&program, target, &options).map_err(route)?;
        // Measured last, through the final layout: routing the measurements with the gates
        // could move a SWAP after a measurement it no longer waits for.
        for (clbit, &qubit) in compiled.final_layout.iter().enumerate() {
            compiled.ops.push(IsaOp::Measure { qubit, clbit: clbit as u32 });
        }
        compiled.num_clbits = compiled.final_layout.len() as u32;
        let info =
            EmitInfo { qubit_names: deferred.qubits.iter().map(|q| q.name.clone()).collect(), circuit_clbits: 0 };
        Ok(to_qasm(&compiled, target, &info, QasmVersion::V3))
    }

    /// Runs `circuit` for `shots` shots; the outcomes' bit `i` is the circuit's qubit `i`.
    pub async fn run(&mut self, circuit: &Circuit, shots: u64) -> Result<JobResult, IbmRunError> {
        let qubits = circuit.num_qubits();
        if qubits > 64 {
            return Err(IbmRunError::TooWide(qubits));
        }
        let qasm = self.isa_circuit(circuit).await?;
        let result = self.client.run(&qasm, shots).await?;
        let what = format!("the results of job {}", result.job_id);
        let malformed = |detail: String| RemoteError::MalformedResponse { what: what.clone(), detail };
        let counts =
            result.counts(MEASUREMENTS).ok_or_else(|| malformed(format!("there is no `{MEASUREMENTS}` register")))?;
        let total: u64 = counts.values().sum();
        if total == 0 {
            return Err(malformed("there are no samples".to_owned()).into());
        }
        let outcomes = counts.into_iter().map(|(outcome, n)| (outcome, n as f64 / total as f64)).collect();
        let probabilities = Probabilities::new(qubits as u32, outcomes).map_err(|e| malformed(e.to_string()))?;
        Ok(JobResult { job_id: result.job_id, shots: total, probabilities })
    }
}
