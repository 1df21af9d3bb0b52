//! qchess circuits on a Braket device: routed onto the device's capabilities (read with
//! `GetDevice` once per runner: its connectivity, native gates and calibrated fidelities, so no
//! broken element is used and the estimated success probability is the highest the router
//! finds), written as a verbatim OpenQASM 3 program of its native gates (on a managed simulator,
//! as plain OpenQASM over an all-to-all register), run as a quantum task, and read back as
//! outcomes over the circuit's own qubits (qubit `i` = bit `i`), the form the IonQ client
//! answers in.
//!
//! Braket measures at the end only, so the circuit's own measurements are deferred as for IonQ
//! (a measured qubit is never touched again) and every logical qubit `k` is measured last, into
//! bit `k`, in that order: each shot's bits are read by the measured qubits Braket lists, through
//! the final layout when this runner compiled the circuit, else by their order.

use std::collections::{BTreeMap, HashMap};

use qchess_circuit::ir::Circuit;
use qchess_route::emit::{BraketEmitError, EmitInfo, to_braket};
use qchess_route::program::from_circuit;
use qchess_route::target::braket::capabilities;
use qchess_route::{CompileOptions, Device, RouteError, Target, TargetError, compile_on};
use thiserror::Error;

use super::{BraketClient, BraketConfig, GateModelResult, TaskState};
use crate::client::JobResult;
use crate::error::RemoteError;
use crate::interrupt::InterruptGuard;
use crate::journal::{JobPhase, circuit_hash};
use crate::probabilities::Probabilities;
use crate::retry::Deadline;

/// Why a circuit could not run on a Braket device.
#[derive(Debug, Error)]
pub enum BraketRunError {
    /// Braket (or S3, STS) failed or refused.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// The device's capabilities are not a usable target.
    #[error("the capabilities of the device are not usable: {0}")]
    Target(#[from] TargetError),
    /// The device does not take tasks now.
    #[error("device {device} is {status}, not ONLINE")]
    Offline {
        /// The device.
        device: String,
        /// Its status.
        status: String,
    },
    /// The circuit could not be routed onto the device.
    #[error("cannot route the circuit onto {device}: {source}")]
    Route {
        /// The device.
        device: String,
        /// What routing said.
        source: RouteError,
    },
    /// The routed circuit cannot be written as a Braket program.
    #[error("cannot write the program for {device}: {source}")]
    Program {
        /// The device.
        device: String,
        /// Why.
        source: BraketEmitError,
    },
    /// The circuit has more qubits than one outcome holds.
    #[error("the circuit has {0} qubits; at most 64 are read back")]
    TooWide(usize),
}

/// Runs qchess circuits on one Braket device: see the [module docs](self).
#[derive(Debug)]
pub struct BraketRunner {
    client: BraketClient,
    /// The device's name and its target with its calibration, once read (QPUs only).
    device: Option<(String, Device)>,
    /// The final layout of each circuit this runner compiled, by its hash.
    layouts: HashMap<String, Vec<u32>>,
    seed: u64,
}

impl BraketRunner {
    /// A runner for `config`'s device; `seed` seeds the router's trials.
    pub fn new(config: BraketConfig, seed: u64) -> Result<BraketRunner, RemoteError> {
        Ok(BraketRunner { client: BraketClient::new(config)?, device: None, layouts: HashMap::new(), seed })
    }

    /// The client.
    pub fn client(&self) -> &BraketClient {
        &self.client
    }

    /// The overall timeout from now.
    pub fn deadline(&self) -> Deadline {
        self.client.deadline()
    }

    /// The device's ARN.
    pub fn device_arn(&self) -> &str {
        &self.client.config().device_arn
    }

    /// The device made ready for routing, its capabilities read with `GetDevice` the first time
    /// (refused unless it is ONLINE). `None` for a managed simulator.
    pub async fn ready(&mut self, deadline: Deadline) -> Result<Option<&Device>, BraketRunError> {
        if self.device.is_none() {
            let arn = self.device_arn().to_owned();
            let info = self.client.device(&arn, deadline).await?;
            if info.status != "ONLINE" {
                return Err(BraketRunError::Offline { device: arn, status: info.status });
            }
            if self.client.config().is_simulator() {
                return Ok(None);
            }
            let name = qchess_route::target::braket::device(&arn)
                .map_or_else(|| info.name.clone(), |d| format!("braket:{}", d.name));
            let target = capabilities(&info.capabilities, &name)?;
            let device = Device::new(target).map_err(|source| BraketRunError::Route { device: arn, source })?;
            self.device = Some((name, device));
        }
        Ok(self.device.as_ref().map(|(_, device)| device))
    }

    /// The device's qubits, `None` for a managed simulator (which sizes itself to the circuit).
    pub async fn qubits(&mut self, deadline: Deadline) -> Result<Option<u32>, BraketRunError> {
        Ok(self.ready(deadline).await?.map(|device| device.usable().num_qubits))
    }

    /// The OpenQASM 3 program submitted for `circuit`: see the [module docs](self).
    pub async fn program(&mut self, circuit: &Circuit, deadline: Deadline) -> Result<String, BraketRunError> {
        let width = circuit.num_qubits();
        if width > 64 {
            return Err(BraketRunError::TooWide(width));
        }
        let arn = self.device_arn().to_owned();
        let seed = self.seed;
        let route = |source| BraketRunError::Route { device: arn.clone(), source };
        let mut program = from_circuit(circuit, 0, &[]).map_err(route)?;
        // Deferred: a measured qubit is read where it ends.
        program.take_measurements();
        let measure_all: Vec<(u32, u32)> = (0..width as u32).map(|q| (q, q)).collect();
        let simulator;
        let (device, verbatim) = match self.ready(deadline).await? {
            Some(device) => (device, true),
            None => {
                let all =
                    Target::resolve(&format!("all:{}@rigetti-cz", width.max(1))).map_err(BraketRunError::Target)?;
                simulator = Device::new(all).map_err(route)?;
                (&simulator, false)
            }
        };
        let options = CompileOptions { seed, ..CompileOptions::default() };
        let mut compiled = compile_on(&program, device, &options).map_err(route)?;
        compiled.measure_at_end(&measure_all, device.target()).map_err(route)?;
        let info =
            EmitInfo { qubit_names: circuit.qubits.iter().map(|q| q.name().into_owned()).collect(), circuit_clbits: 0 };
        let source = to_braket(&compiled, device.target(), &info, verbatim)
            .map_err(|source| BraketRunError::Program { device: arn.clone(), source })?;
        self.layouts.insert(circuit_hash(circuit), compiled.final_layout);
        Ok(source)
    }

    /// Submits `circuit` for `shots` shots under `client_token` within `deadline`; returns the
    /// task's ARN.
    pub async fn submit(
        &mut self,
        circuit: &Circuit,
        shots: u64,
        client_token: &str,
        deadline: Deadline,
    ) -> Result<String, BraketRunError> {
        let source = self.program(circuit, deadline).await?;
        Ok(self.client.create_task(&source, shots, client_token, deadline).await?)
    }

    /// The state of a task.
    pub async fn state(&self, arn: &str, deadline: Deadline) -> Result<TaskState, RemoteError> {
        self.client.task(arn, deadline).await
    }

    /// The results of a completed task of `circuit`, as outcomes over its qubits.
    pub async fn collect(
        &self,
        circuit: &Circuit,
        arn: &str,
        shots: u64,
        deadline: Deadline,
    ) -> Result<JobResult, BraketRunError> {
        let state = self.client.task(arn, deadline).await?;
        let result = self.client.results(&state, arn, deadline).await?;
        decode(circuit, arn, &result, shots, self.layouts.get(&circuit_hash(circuit))).map_err(Into::into)
    }

    /// Asks Braket to cancel a task.
    pub async fn cancel(&self, arn: &str) -> Result<(), RemoteError> {
        self.client.cancel_task(arn).await
    }

    /// Runs `circuit` for `shots` shots within `deadline`: submits it under a fresh client
    /// token, polls its state with growing waits until it is final (canceling it on Ctrl-C or
    /// when the time runs out), and reads its results.
    pub async fn run_before(
        &mut self,
        circuit: &Circuit,
        shots: u64,
        deadline: Deadline,
    ) -> Result<JobResult, BraketRunError> {
        let token = format!("qchess-{:016x}{:016x}", rand::random::<u64>(), rand::random::<u64>());
        let arn = self.submit(circuit, shots, &token, deadline).await?;
        let interrupt = InterruptGuard::listen();
        let poll = self.client.config().poll;
        let mut delay = poll.initial;
        loop {
            let state = match self.state(&arn, deadline).await {
                Err(RemoteError::OutOfTime { .. }) => return Err(self.abandon(&arn, false, deadline).await.into()),
                other => other?,
            };
            match state.phase() {
                JobPhase::Completed => break,
                JobPhase::Failed => {
                    let message = state.failure_reason.unwrap_or_else(|| "no reason given".to_owned());
                    return Err(RemoteError::JobFailed { job_id: arn, code: "FAILED".into(), message }.into());
                }
                JobPhase::Canceled => return Err(RemoteError::Canceled { job_id: arn, by_user: false }.into()),
                JobPhase::Queued | JobPhase::Running => {}
            }
            if interrupt.as_ref().is_some_and(InterruptGuard::interrupted) {
                return Err(self.abandon(&arn, true, deadline).await.into());
            }
            if deadline.passed() {
                return Err(self.abandon(&arn, false, deadline).await.into());
            }
            tokio::time::sleep_until((tokio::time::Instant::now() + delay).min(deadline.at)).await;
            delay = (delay + delay / 2).min(poll.max).max(std::time::Duration::from_millis(1));
        }
        self.collect(circuit, &arn, shots, deadline).await
    }

    /// Asks Braket to cancel a task that will not be waited for any longer, and says why.
    async fn abandon(&self, arn: &str, by_user: bool, deadline: Deadline) -> RemoteError {
        // Best effort: the wait is over whether or not Braket hears it.
        let _ = self.cancel(arn).await;
        if by_user {
            RemoteError::Canceled { job_id: arn.to_owned(), by_user: true }
        } else {
            deadline.out_of_time(&format!("task {arn} (canceled)"))
        }
    }
}

/// A client token (at most 64 characters, as `CreateQuantumTask` takes) for a job's name.
pub fn client_token(name: &str) -> String {
    if name.len() <= 64 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return name.to_owned();
    }
    let hash = name
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3));
    format!("qchess-{hash:016x}")
}

/// A result's counts as outcomes over the circuit's qubits: position `k` of each shot is logical
/// qubit `k`, or, when the final layout is known, the logical qubit that ended on
/// `measured_qubits[k]`.
fn decode(
    circuit: &Circuit,
    arn: &str,
    result: &GateModelResult,
    shots: u64,
    layout: Option<&Vec<u32>>,
) -> Result<JobResult, RemoteError> {
    let width = circuit.num_qubits();
    let malformed =
        |detail: String| RemoteError::MalformedResponse { what: format!("the results of task {arn}"), detail };
    if result.measured_qubits.len() != width {
        return Err(malformed(format!("{} measured qubits for a circuit of {width}", result.measured_qubits.len())));
    }
    let logical: Vec<usize> = match layout {
        Some(layout) => result
            .measured_qubits
            .iter()
            .map(|p| layout.iter().position(|q| q == p).ok_or_else(|| malformed(format!("qubit {p} was not measured"))))
            .collect::<Result<_, _>>()?,
        None => (0..width).collect(),
    };
    let mut weights: BTreeMap<u64, f64> = BTreeMap::new();
    for (&outcome, &weight) in &result.weights {
        let mapped = (0..width).filter(|&k| outcome >> k & 1 == 1).fold(0u64, |bits, k| bits | 1 << logical[k]);
        *weights.entry(mapped).or_insert(0.0) += weight;
    }
    let total: f64 = weights.values().sum();
    let outcomes = weights.into_iter().map(|(outcome, weight)| (outcome, weight / total)).collect();
    let probabilities = Probabilities::new(width as u32, outcomes).map_err(|e| malformed(e.to_string()))?;
    // Probabilities without shots stand for the shots asked for.
    let shots = if result.shots > 0 { result.shots } else { shots };
    Ok(JobResult { job_id: arn.to_owned(), shots, probabilities })
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::{Gate, QubitRole};

    use super::*;

    #[test]
    fn outcomes_follow_the_final_layout_when_known_and_the_order_otherwise() {
        let mut circuit = Circuit::new();
        let a = circuit.add_qubit(QubitRole::General);
        let b = circuit.add_qubit(QubitRole::General);
        circuit.push_gate(Gate::x(a));
        let _ = b;
        // Logical 0 ended on physical 7, logical 1 on physical 3; Braket lists 7 then 3.
        let result = GateModelResult {
            measured_qubits: vec![7, 3],
            weights: BTreeMap::from([(0b01, 90.0), (0b11, 10.0)]),
            shots: 100,
        };
        let probability = |r: &JobResult, outcome: u64| {
            r.probabilities.outcomes().iter().find(|(o, _)| *o == outcome).map_or(0.0, |(_, p)| *p)
        };
        let by_layout = decode(&circuit, "t", &result, 100, Some(&vec![7, 3])).expect("decodes");
        assert_eq!(by_layout.shots, 100);
        assert!((probability(&by_layout, 0b01) - 0.9).abs() < 1e-12);
        let swapped = GateModelResult {
            measured_qubits: vec![3, 7],
            weights: BTreeMap::from([(0b10, 90.0), (0b11, 10.0)]),
            shots: 100,
        };
        let by_qubit = decode(&circuit, "t", &swapped, 100, Some(&vec![7, 3])).expect("decodes");
        assert!((probability(&by_qubit, 0b01) - 0.9).abs() < 1e-12, "listed in another order, read by qubit");
        let by_order = decode(&circuit, "t", &result, 100, None).expect("decodes");
        assert!((probability(&by_order, 0b01) - 0.9).abs() < 1e-12);
        let short = GateModelResult { measured_qubits: vec![7], weights: BTreeMap::from([(1, 1.0)]), shots: 1 };
        assert!(decode(&circuit, "t", &short, 1, None).is_err());
    }
}
