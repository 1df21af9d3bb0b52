//! What runs a remote board's circuits: IonQ's API, an IBM Quantum device or an Amazon Braket
//! device, behind one enum.

use qchess_circuit::ir::Circuit;
use qchess_circuit::recycle::Recycling;

use super::RemoteBoardError;
use crate::braket::{BraketRunError, BraketRunner};
use crate::client::{IonqClient, JobResult};
use crate::error::RemoteError;
use crate::retry::Deadline;
use crate::sampler::{IbmRunError, IbmRunner};

/// What runs the board's circuits.
#[derive(Debug)]
pub(super) enum Runner {
    /// IonQ's API (or a compatible one).
    Ionq(Box<IonqClient>),
    /// An IBM Quantum device.
    Ibm(Box<IbmRunner>),
    /// An Amazon Braket device.
    Braket(Box<BraketRunner>),
}

/// A Braket runner's failure as the board's.
pub(super) fn braket(error: BraketRunError) -> RemoteBoardError {
    match error {
        BraketRunError::Remote(error) => RemoteBoardError::Remote(error),
        other => RemoteBoardError::Braket(other),
    }
}

impl Runner {
    pub(super) fn run(
        &mut self,
        runtime: &tokio::runtime::Runtime,
        circuit: &Circuit,
        shots: u64,
        deadline: Deadline,
    ) -> Result<JobResult, RemoteBoardError> {
        match self {
            Runner::Ionq(client) => Ok(runtime.block_on(client.run_before(circuit, shots, deadline))?),
            Runner::Ibm(runner) => {
                runtime.block_on(runner.run_before(circuit, shots, deadline)).map_err(|error| match error {
                    IbmRunError::Remote(remote) => RemoteBoardError::Remote(remote),
                    other => RemoteBoardError::Ibm(other),
                })
            }
            Runner::Braket(runner) => runtime.block_on(runner.run_before(circuit, shots, deadline)).map_err(braket),
        }
    }

    /// Which dead qubits this backend's circuits may reuse: IonQ JSON circuits and Braket's
    /// programs can neither reset nor measure mid-way; IBM devices do both.
    pub(super) fn recycling(&self) -> Recycling {
        match self {
            Runner::Ionq(_) | Runner::Braket(_) => Recycling::CleanOnly,
            Runner::Ibm(_) => Recycling::MidCircuit,
        }
    }

    /// The backend's qubits, `None` when the provider would not say; running out of time while
    /// asking is an error, as the move cannot go on.
    pub(super) fn qubits(
        &mut self,
        runtime: &tokio::runtime::Runtime,
        deadline: Deadline,
    ) -> Result<Option<u32>, RemoteError> {
        let asked = match self {
            Runner::Ionq(client) => runtime.block_on(client.backend_qubits_before(deadline)),
            Runner::Ibm(runner) => match runtime.block_on(runner.target_before(deadline)) {
                Ok(target) => Ok(target.num_qubits),
                Err(IbmRunError::Remote(error)) => Err(error),
                Err(_) => return Ok(None),
            },
            Runner::Braket(runner) => match runtime.block_on(runner.qubits(deadline)) {
                Ok(Some(qubits)) => Ok(qubits),
                Ok(None) => return Ok(None),
                Err(BraketRunError::Remote(error)) => Err(error),
                Err(_) => return Ok(None),
            },
        };
        match asked {
            Ok(qubits) => Ok(Some(qubits)),
            Err(error @ RemoteError::OutOfTime { .. }) => Err(error),
            Err(_) => Ok(None),
        }
    }

    /// The time one move may spend with the provider, from now (`--timeout`).
    pub(super) fn deadline(&self) -> Deadline {
        match self {
            Runner::Ionq(client) => client.deadline(),
            Runner::Ibm(runner) => runner.deadline(),
            Runner::Braket(runner) => runner.deadline(),
        }
    }
}
