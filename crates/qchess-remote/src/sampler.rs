//! qchess circuits on IBM Quantum: each circuit is routed by `qchess-route` onto the device's
//! configuration and calibration (its properties: error rates, broken qubits and couplers;
//! both fetched once per runner and cached as [`crate::ibm`] says), so that it never uses a
//! broken element and has the highest estimated success probability the router finds; written
//! as an OpenQASM 3 ISA circuit, run as a Sampler V2 job (in the game's session or batch, as
//! [`IbmMode`](crate::ibm::IbmMode) asks: see [`GameSession`]), and its samples read back through the
//! final layout as outcomes over the circuit's own qubits (qubit `i` = bit `i`), the form the
//! IonQ client answers in.
//!
//! The circuit's measurements stay where it makes them, into its classical register `c` (IBM
//! devices measure and reset mid-circuit, so a recycled circuit may reuse a measured qubit);
//! then every qubit is measured into `meas`. The outcomes carry the post-selected classical
//! bits after the qubits: bit `n + k` is post-selection `k`'s bit, as
//! [`Recycled::postselection_bit`](qchess_circuit::recycle::Recycled::postselection_bit) says.

use std::collections::BTreeMap;

use qchess_circuit::ir::Circuit;
use qchess_route::emit::{EmitInfo, QasmVersion, to_qasm};
use qchess_route::program::from_circuit;
use qchess_route::{CompileOptions, Device, IsaOp, RouteError, Target, TargetError, compile_on};
use thiserror::Error;

use crate::client::JobResult;
use crate::error::RemoteError;
use crate::ibm::{GameSession, IbmClient, IbmConfig, IbmJobState, SamplerResult};
use crate::probabilities::Probabilities;
use crate::retry::Deadline;

/// The classical register the final measurements go to.
const MEASUREMENTS: &str = "meas";

/// The classical register of the circuit's own measurements.
const OWN_BITS: &str = "c";

/// Why a circuit could not run on IBM Quantum.
#[derive(Debug, Error)]
pub enum IbmRunError {
    /// The service failed or refused.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// The device's configuration or properties are not a usable target.
    #[error("the configuration or properties of the device are not usable: {0}")]
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
    device: Option<Device>,
    seed: u64,
    /// The session (or batch) its jobs go into, as the configuration's mode says.
    session: GameSession,
    /// Whether a wait ended by Ctrl-C: the session is then cancelled rather than closed.
    interrupted: bool,
}

impl IbmRunner {
    /// A runner for `config`'s device; `seed` seeds the router's trials.
    pub fn new(config: IbmConfig, seed: u64) -> Result<IbmRunner, RemoteError> {
        let session = GameSession::new(config.mode);
        Ok(IbmRunner { client: IbmClient::new(config)?, device: None, seed, session, interrupted: false })
    }

    /// The runner's session (or batch): the one its jobs go into, one to join, one just opened.
    pub fn session(&mut self) -> &mut GameSession {
        &mut self.session
    }

    /// Ends the session its jobs went into, if one is open: cancelled with its queued jobs
    /// when a wait was interrupted, else closed to new jobs.
    pub async fn end_session(&mut self) -> Result<(), RemoteError> {
        self.session.end(&self.client, self.interrupted).await
    }

    /// Submits an ISA circuit into the game's session (opening it first), or alone in `jobs`
    /// mode; a job the service refuses because it ended the session goes into a new one.
    async fn submit_isa(&mut self, qasm: &str, shots: u64, deadline: Deadline) -> Result<String, RemoteError> {
        let session = self.session.for_job(&self.client, deadline).await?;
        match self.client.submit_in(qasm, shots, session.as_deref(), deadline).await {
            Err(RemoteError::Rejected { status: 400 | 404, .. })
                if session.is_some() && self.session.ended_by_service(&self.client, deadline).await? =>
            {
                let session = self.session.for_job(&self.client, deadline).await?;
                self.client.submit_in(qasm, shots, session.as_deref(), deadline).await
            }
            other => other,
        }
    }

    /// The overall timeout from now.
    pub fn deadline(&self) -> Deadline {
        self.client.deadline()
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        &self.client.config().device
    }

    /// The device as a routing target with its calibration, fetched the first time it is asked
    /// for (a device the service has no properties for is routed without a calibration).
    pub async fn target(&mut self) -> Result<&Target, IbmRunError> {
        let deadline = self.client.deadline();
        self.target_before(deadline).await
    }

    /// [`IbmRunner::target`] within `deadline`.
    pub async fn target_before(&mut self, deadline: Deadline) -> Result<&Target, IbmRunError> {
        Ok(self.ready(deadline).await?.target())
    }

    /// The device made ready for routing (broken elements out, cost tables), fetched within
    /// `deadline` the first time it is asked for.
    pub async fn ready(&mut self, deadline: Deadline) -> Result<&Device, IbmRunError> {
        if self.device.is_none() {
            let device = self.device().to_owned();
            let configuration = self.client.configuration_before(deadline).await?;
            let mut target = Target::from_json(&configuration.to_string(), &device)?;
            match self.client.properties_before(deadline).await {
                Ok(properties) => {
                    let source = format!("the properties of {device}");
                    target = qchess_route::target::ibm::with_properties(target, &properties.to_string(), &source)?;
                }
                Err(RemoteError::Rejected { status: 404, .. }) => {}
                Err(other) => return Err(other.into()),
            }
            let ready = Device::new(target).map_err(|source| IbmRunError::Route { device, source })?;
            self.device = Some(ready);
        }
        Ok(self.device.as_ref().expect("set above"))
    }

    /// The OpenQASM 3 ISA circuit submitted for `circuit`.
    pub async fn isa_circuit(&mut self, circuit: &Circuit) -> Result<String, IbmRunError> {
        let deadline = self.client.deadline();
        self.isa_circuit_before(circuit, deadline).await
    }

    async fn isa_circuit_before(&mut self, circuit: &Circuit, deadline: Deadline) -> Result<String, IbmRunError> {
        let seed = self.seed;
        let name = self.device().to_owned();
        let device = self.ready(deadline).await?;
        let route = |source| IbmRunError::Route { device: name.clone(), source };
        let program = from_circuit(circuit, 0, &[]).map_err(route)?;
        let options = CompileOptions { seed, ..CompileOptions::default() };
        let mut compiled = compile_on(&program, device, &options).map_err(route)?;
        // Measured last, through the final layout: routing the measurements with the gates
        // could move a SWAP after a measurement it no longer waits for.
        for (index, &qubit) in compiled.final_layout.iter().enumerate() {
            compiled.ops.push(IsaOp::Measure { qubit, clbit: circuit.clbits + index as u32 });
        }
        compiled.num_clbits = circuit.clbits + compiled.final_layout.len() as u32;
        compiled.esp = device.target().estimated_success(&compiled.ops);
        let info = EmitInfo {
            qubit_names: circuit.qubits.iter().map(|q| q.name().into_owned()).collect(),
            circuit_clbits: circuit.clbits,
        };
        Ok(to_qasm(&compiled, device.target(), &info, QasmVersion::V3))
    }

    /// Runs `circuit` for `shots` shots; the outcomes' bit `i` is the circuit's qubit `i`, and
    /// bit `n + k` the classical bit of its post-selection `k` (see the [module docs](self)).
    pub async fn run(&mut self, circuit: &Circuit, shots: u64) -> Result<JobResult, IbmRunError> {
        let deadline = self.client.deadline();
        self.run_before(circuit, shots, deadline).await
    }

    /// [`IbmRunner::run`] within `deadline` (shared with the rest of a move's requests).
    pub async fn run_before(
        &mut self,
        circuit: &Circuit,
        shots: u64,
        deadline: Deadline,
    ) -> Result<JobResult, IbmRunError> {
        check_width(circuit)?;
        let qasm = self.isa_circuit_before(circuit, deadline).await?;
        let job_id = self.submit_isa(&qasm, shots, deadline).await?;
        let result = self.client.follow(job_id, shots, deadline).await;
        self.interrupted |= matches!(result, Err(RemoteError::Canceled { by_user: true, .. }));
        decode(circuit, &result?)
    }

    /// Submits `circuit` for `shots` shots within `deadline` and returns the job's id, without
    /// waiting for it.
    pub async fn submit(&mut self, circuit: &Circuit, shots: u64, deadline: Deadline) -> Result<String, IbmRunError> {
        check_width(circuit)?;
        let qasm = self.isa_circuit_before(circuit, deadline).await?;
        Ok(self.submit_isa(&qasm, shots, deadline).await?)
    }

    /// The state of a job.
    pub async fn job_state(&self, job_id: &str, deadline: Deadline) -> Result<IbmJobState, RemoteError> {
        self.client.job_state(job_id, deadline).await
    }

    /// The results of a completed job of `circuit`, read as [`IbmRunner::run`] answers them.
    pub async fn collect(
        &self,
        circuit: &Circuit,
        job_id: &str,
        shots: u64,
        deadline: Deadline,
    ) -> Result<JobResult, IbmRunError> {
        let result = self.client.results(job_id, shots, deadline).await?;
        decode(circuit, &result)
    }

    /// Asks the service to cancel a job.
    pub async fn cancel(&self, job_id: &str) -> Result<(), RemoteError> {
        self.client.cancel(job_id).await
    }
}

/// Refuses a circuit whose outcomes do not fit one 64-bit sample.
fn check_width(circuit: &Circuit) -> Result<(), IbmRunError> {
    let width = circuit.num_qubits() + circuit.postselect.len();
    if width > 64 || circuit.clbits > 64 {
        return Err(IbmRunError::TooWide(width.max(circuit.clbits as usize)));
    }
    Ok(())
}

/// A Sampler result of `circuit` as outcomes over its qubits and post-selected bits.
fn decode(circuit: &Circuit, result: &SamplerResult) -> Result<JobResult, IbmRunError> {
    let qubits = circuit.num_qubits();
    let width = qubits + circuit.postselect.len();
    let what = format!("the results of job {}", result.job_id);
    let malformed = |detail: String| RemoteError::MalformedResponse { what: what.clone(), detail };
    let register = |name: &str| {
        result
            .registers
            .iter()
            .find(|r| r.name == name)
            .map(|r| r.samples.as_slice())
            .ok_or_else(|| malformed(format!("there is no `{name}` register")))
    };
    let measured = register(MEASUREMENTS)?;
    let own = if circuit.clbits > 0 { register(OWN_BITS)? } else { &[] };
    if measured.is_empty() {
        return Err(malformed("there are no samples".to_owned()).into());
    }
    if circuit.clbits > 0 && own.len() != measured.len() {
        return Err(malformed(format!(
            "register `{OWN_BITS}` has {} samples and `{MEASUREMENTS}` {}",
            own.len(),
            measured.len()
        ))
        .into());
    }
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    for (shot, &sample) in measured.iter().enumerate() {
        let selected = circuit.postselect.iter().enumerate().fold(0u64, |bits, (k, selection)| {
            let bit = own[shot] >> selection.clbit.0 & 1;
            bits | bit << (qubits + k)
        });
        *counts.entry(sample | selected).or_insert(0) += 1;
    }
    let total = measured.len() as u64;
    let outcomes = counts.into_iter().map(|(outcome, n)| (outcome, n as f64 / total as f64)).collect();
    let probabilities = Probabilities::new(width as u32, outcomes).map_err(|e| malformed(e.to_string()))?;
    Ok(JobResult { job_id: result.job_id.clone(), shots: total, probabilities })
}
