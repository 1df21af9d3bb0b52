//! The remote quantum board: a [`QuantumBoard`] whose circuits run on a provider.
//!
//! The board keeps the move compiler's [`Register`]: the circuit accumulated since the last
//! fully classical position, with a post-selection for every earlier measurement. IonQ JSON
//! circuits cannot measure mid-way, so measurements are deferred: a measured qubit is never
//! touched again, the provider measures every qubit at the end, and the board keeps only the
//! shots that agree with the recorded outcomes (and, under [`Mitigation::DropImpossiblePieceCounts`],
//! have a possible number of pieces). The shot budget grows with the number of post-selections
//! ([`suggest_shots`]). IBM devices measure mid-circuit: there a measured qubit is reset and
//! reused, and the post-selections read the measurements' classical bits
//! ([`Recycling::MidCircuit`](qchess_circuit::recycle::Recycling::MidCircuit)).
//!
//! * A move that measures runs the circuit up to its measurement and draws the outcome from the
//!   surviving shots with a seeded generator; a forced outcome that no surviving shot supports
//!   is [`BoardError::ImpossibleOutcome`].
//! * Results are cached per circuit, so asking for probabilities twice, or after a move whose
//!   measurement said no (which adds no gate), does not submit another job.
//! * When every surviving shot agrees on the board, the position is classical again and the
//!   circuit restarts empty.
//! * A failed `apply` (a provider error, an impossible outcome) leaves the board as it was.
//!
//! The trait is synchronous, so the board owns a single-threaded tokio runtime and blocks on
//! it; do not call it from inside another tokio runtime.
//!
//! ```no_run
//! use qchess_core::{Bitboard, QuantumBoard, Square, TypedMove};
//! use qchess_remote::board::{RemoteBoard, RemoteBoardConfig};
//! use qchess_remote::config::{ApiKey, ProviderConfig};
//!
//! let provider = ProviderConfig::new("http://127.0.0.1:8080/v0.4")?.with_api_key(ApiKey::new("key")?);
//! let mut board = RemoteBoard::new(Bitboard::from_square(Square::B1), RemoteBoardConfig::new(provider))?;
//! board.apply(&"b1^a3c3:SPLIT_JUMP:BASIC".parse::<TypedMove>()?)?;
//! let probabilities = board.square_probabilities()?; // one job on the provider
//! assert!((probabilities.get(Square::A3) - 0.5).abs() < 0.1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod jobs;
mod runner;
mod session;
mod shots;

use std::sync::Arc;

use qchess_circuit::compiler::{Register, Step};
use qchess_circuit::ir::Circuit;
use qchess_circuit::recycle::{Recycled, recycle};
use qchess_core::{Bitboard, BoardError, MoveReport, QuantumBoard, SquareProbabilities, TypedMove};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

pub use jobs::{DetachReason, cancel_job};
pub use session::cancel_session;
pub use shots::{AllowedPieces, Readout, Survivors, suggest_shots};

use crate::braket::{BraketConfig, BraketRunError, BraketRunner};
use crate::client::{IonqClient, JobResult};
use crate::config::ProviderConfig;
use crate::error::RemoteError;
use crate::ibm::IbmConfig;
use crate::retry::Deadline;
use crate::sampler::{IbmRunError, IbmRunner};
use runner::Runner;

/// Default shots per job before the post-selection factor.
pub const DEFAULT_SHOTS: u64 = 1000;

/// The most shots one job may ask for (IonQ's limit).
pub const DEFAULT_MAX_SHOTS: u64 = 1_000_000;

/// Circuits whose results are kept (the current one, and a few for undo).
const CACHE_SIZE: usize = 8;

/// Which shots are thrown away besides those that contradict recorded outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mitigation {
    /// Keep every post-selected shot.
    #[default]
    None,
    /// Drop shots whose piece count no sequence of captures could give (noise); doubles the
    /// shot budget.
    DropImpossiblePieceCounts,
}

/// How a [`RemoteBoard`] runs: the provider, the shot budget, mitigation and the seed.
#[derive(Debug, Clone)]
pub struct RemoteBoardConfig {
    /// The provider connection.
    pub provider: ProviderConfig,
    /// An IBM Quantum device: when set, circuits are routed onto it and run there as Sampler
    /// jobs (see [`crate::sampler`]) and `provider` is unused.
    pub ibm: Option<IbmConfig>,
    /// An Amazon Braket device: when set, circuits are routed onto it and run there as quantum
    /// tasks (see [`crate::braket`]) and `provider` is unused.
    pub braket: Option<BraketConfig>,
    /// Shots per job before the post-selection factor of [`suggest_shots`].
    pub shots: u64,
    /// The most shots one job may ask for.
    pub max_shots: u64,
    /// Error mitigation.
    pub mitigation: Mitigation,
    /// Seed of the generator that draws outcomes and samples from the surviving shots.
    pub seed: u64,
}

impl RemoteBoardConfig {
    /// Whether results are exact probabilities rather than shot frequencies.
    pub fn exact_results(&self) -> bool {
        self.ibm.is_none() && self.braket.is_none() && self.provider.exact_results()
    }

    /// The backend's name: the IonQ target, the IBM device, or the Braket device's ARN.
    pub fn backend_name(&self) -> String {
        match (&self.ibm, &self.braket) {
            (Some(ibm), _) => ibm.device.clone(),
            (None, Some(braket)) => braket.device_arn.clone(),
            (None, None) => self.provider.target().as_str().to_owned(),
        }
    }

    /// Defaults: [`DEFAULT_SHOTS`], [`DEFAULT_MAX_SHOTS`], no mitigation, seed 0.
    pub fn new(provider: ProviderConfig) -> RemoteBoardConfig {
        RemoteBoardConfig {
            provider,
            ibm: None,
            braket: None,
            shots: DEFAULT_SHOTS,
            max_shots: DEFAULT_MAX_SHOTS,
            mitigation: Mitigation::None,
            seed: 0,
        }
    }
}

/// Why the remote board could not do what was asked, beyond the provider's own errors.
#[derive(Debug, Error)]
pub enum RemoteBoardError {
    /// The provider failed.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// The circuit could not be routed onto the IBM device, or the device could not be read.
    #[error(transparent)]
    Ibm(IbmRunError),
    /// The circuit could not be routed onto the Braket device, or the device could not be read
    /// or is offline.
    #[error(transparent)]
    Braket(BraketRunError),
    /// Every shot contradicted a recorded outcome (or had an impossible piece count), even at
    /// the largest shot budget.
    #[error(
        "no shot of {shots} survived the {postselections} recorded outcomes{}; the position is too unlikely on this backend",
        if *.mitigated { " and the piece-count check" } else { "" }
    )]
    NoSurvivingShots {
        /// Shots of the last job.
        shots: u64,
        /// Post-selections of the circuit.
        postselections: usize,
        /// Whether mitigation dropped shots too.
        mitigated: bool,
    },
    /// The position needs more qubits than the backend has, even after recycling every qubit
    /// whose square became classical.
    #[error(
        "after {mv}, the position needs {needed} qubits ({logical} before recycling), more than the {device} qubits of backend {backend}"
    )]
    TooManyQubits {
        /// The move whose circuit does not fit (the last one applied, or the one being applied).
        mv: String,
        /// Qubits of the recycled circuit.
        needed: usize,
        /// Qubits of the circuit before recycling.
        logical: usize,
        /// Qubits of the backend.
        device: u32,
        /// The backend's name.
        backend: String,
    },
    /// The tokio runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(String),
    /// The wait for a job ended before the job did; the job goes on at the provider and stays
    /// in the board's journal, so the move can be taken up again.
    #[error("job {job_id} on {backend} is not finished ({reason}); it keeps its place at the provider")]
    Detached {
        /// The job.
        job_id: String,
        /// The backend's name.
        backend: String,
        /// Why the wait ended.
        reason: DetachReason,
    },
    /// A job the journal recorded is unknown to the provider.
    #[error("job {job_id} is unknown to {backend}: the provider lost it; its circuit must be submitted again")]
    JobLost {
        /// The job.
        job_id: String,
        /// The backend's name.
        backend: String,
    },
    /// A submission was sent and its answer never arrived, and the provider cannot be asked
    /// whether it took the job.
    #[error(
        "a job named {name} may or may not have reached {backend} (its submission was never answered); check the provider's jobs, then submit again"
    )]
    SubmissionUncertain {
        /// The name it was submitted under.
        name: String,
        /// The backend's name.
        backend: String,
    },
    /// The journal could not record or read a job.
    #[error("the job journal failed: {0}")]
    Journal(String),
}

impl From<RemoteBoardError> for BoardError {
    fn from(error: RemoteBoardError) -> BoardError {
        BoardError::Backend(Box::new(error))
    }
}

/// One applied move, as kept for undo.
#[derive(Debug, Clone)]
struct Applied {
    register: Register,
    allowed: AllowedPieces,
    mv: TypedMove,
}

/// A cached job result for one circuit.
#[derive(Debug)]
struct Cached {
    key: String,
    result: Arc<JobResult>,
}

/// A sampled quantum board on a remote provider: see the [module docs](self).
#[derive(Debug)]
pub struct RemoteBoard {
    config: RemoteBoardConfig,
    runner: Runner,
    runtime: tokio::runtime::Runtime,
    rng: ChaCha8Rng,
    register: Register,
    allowed: AllowedPieces,
    history: Vec<Applied>,
    cache: Vec<Cached>,
    jobs: usize,
    last_state_size: usize,
    /// The backend's qubits, once asked (`None` inside when the provider would not say).
    device_qubits: Option<Option<u32>>,
    /// The move being applied, for errors that name it.
    current: Option<TypedMove>,
    /// Where jobs are recorded, when they are.
    journal: Option<jobs::Journaled>,
}

impl RemoteBoard {
    /// A board at a classical occupancy.
    pub fn new(occupancy: Bitboard, config: RemoteBoardConfig) -> Result<RemoteBoard, RemoteBoardError> {
        let runner = match (&config.ibm, &config.braket) {
            (Some(ibm), _) => Runner::Ibm(Box::new(IbmRunner::new(ibm.clone(), config.seed)?)),
            (None, Some(braket)) => Runner::Braket(Box::new(BraketRunner::new(braket.clone(), config.seed)?)),
            (None, None) => Runner::Ionq(Box::new(IonqClient::new(config.provider.clone())?)),
        };
        let runtime = runtime()?;
        Ok(RemoteBoard {
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            config,
            runner,
            runtime,
            register: Register::new(occupancy),
            allowed: AllowedPieces::new(occupancy),
            history: Vec::new(),
            cache: Vec::new(),
            jobs: 0,
            last_state_size: 1,
            device_qubits: None,
            current: None,
            journal: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &RemoteBoardConfig {
        &self.config
    }

    /// The circuit accumulated since the last classical position.
    pub fn circuit(&self) -> &Circuit {
        self.register.circuit()
    }

    /// The circuit as it is submitted: [`RemoteBoard::circuit`] with the qubits of squares that
    /// became classical (and of uncomputed ancillas) reused, so a long game fits the device.
    /// IonQ JSON circuits cannot reset a qubit, so only qubits known to be |0> are reused there;
    /// on IBM devices every dead qubit is reset and reused, measured ones included.
    pub fn recycled(&self) -> Recycled {
        recycle(&self.register, self.runner.recycling())
    }

    /// The compiler's register: circuit, square qubits, classical occupancy.
    pub fn register(&self) -> &Register {
        &self.register
    }

    /// How many jobs this board has submitted.
    pub fn jobs_submitted(&self) -> usize {
        self.jobs
    }

    /// The shots the next job of the current circuit would ask for.
    pub fn next_shots(&self) -> u64 {
        suggest_shots(
            self.config.shots,
            self.register.circuit().postselect.len(),
            self.config.mitigation == Mitigation::DropImpossiblePieceCounts,
            self.config.max_shots,
        )
    }

    fn mitigated(&self) -> bool {
        self.config.mitigation == Mitigation::DropImpossiblePieceCounts
    }

    /// The surviving outcomes of the current circuit, running it if its results are not cached.
    /// Bits of the outcomes are qubits of the recycled circuit (see [`RemoteBoard::recycled`]).
    fn survivors(&mut self) -> Result<Survivors, RemoteBoardError> {
        let recycled = self.recycled();
        let readout = Readout::new(&self.register, &recycled);
        let circuit = self.register.circuit();
        let key = format!("{}|{:?}", circuit.num_qubits(), circuit.ops);
        let exact = self.config.exact_results();
        let mut shots = self.next_shots();
        // Everything this move asks of the provider shares one deadline.
        let deadline = self.runner.deadline();
        loop {
            let result = match self.cache.iter().position(|c| c.key == key) {
                Some(index) if self.cache[index].result.shots >= shots || exact => {
                    let hit = self.cache.remove(index);
                    let result = Arc::clone(&hit.result);
                    self.cache.push(hit);
                    result
                }
                _ => {
                    self.check_fits(&recycled, deadline)?;
                    let run = self.run_circuit(&recycled.circuit, shots, deadline);
                    let (result, ran) = run.map_err(|error| self.name_move(error, &recycled))?;
                    let result = Arc::new(result);
                    self.jobs += usize::from(ran);
                    self.cache.retain(|c| c.key != key);
                    if self.cache.len() >= CACHE_SIZE {
                        self.cache.remove(0);
                    }
                    self.cache.push(Cached { key: key.clone(), result: Arc::clone(&result) });
                    result
                }
            };
            let allowed = self.mitigated().then_some(&self.allowed);
            let job_shots = (!exact).then_some(result.shots);
            match shots::survivors(&result.probabilities, &readout, allowed, job_shots) {
                Ok(survivors) => {
                    self.last_state_size = survivors.distribution().len();
                    return Ok(survivors);
                }
                // More shots may let a rare outcome survive; exact results will not change.
                Err(_) if !exact && shots < self.config.max_shots => {
                    shots = shots.saturating_mul(4).min(self.config.max_shots);
                }
                Err(_) => {
                    return Err(RemoteBoardError::NoSurvivingShots {
                        shots: result.shots,
                        postselections: readout.postselect.len(),
                        mitigated: self.mitigated(),
                    });
                }
            }
        }
    }

    /// The move the current circuit ends with: the one being applied, else the last applied.
    fn move_name(&self) -> String {
        self.current
            .or_else(|| self.history.last().map(|a| a.mv))
            .map_or_else(|| "the start".to_owned(), |mv| mv.to_string())
    }

    /// Refuses a circuit wider than the backend, asking the backend's size once. A provider
    /// that does not say is left to refuse the job itself.
    fn check_fits(&mut self, recycled: &Recycled, deadline: Deadline) -> Result<(), RemoteBoardError> {
        let device = match self.device_qubits {
            Some(known) => known,
            None => {
                let asked = self.runner.qubits(&self.runtime, deadline)?;
                self.device_qubits = Some(asked);
                asked
            }
        };
        match device {
            Some(device) if recycled.circuit.num_qubits() > device as usize => Err(self.too_many(recycled, device)),
            _ => Ok(()),
        }
    }

    fn too_many(&self, recycled: &Recycled, device: u32) -> RemoteBoardError {
        RemoteBoardError::TooManyQubits {
            mv: self.move_name(),
            needed: recycled.circuit.num_qubits(),
            logical: recycled.logical_qubits(),
            device,
            backend: self.config.backend_name(),
        }
    }

    /// A provider's own refusal of a too wide circuit, said as [`RemoteBoardError::TooManyQubits`]
    /// when the backend's size is known.
    fn name_move(&self, error: RemoteBoardError, recycled: &Recycled) -> RemoteBoardError {
        match (&error, self.device_qubits.flatten()) {
            (RemoteBoardError::Remote(RemoteError::TooManyQubits { .. }), Some(device)) => {
                self.too_many(recycled, device)
            }
            _ => error,
        }
    }

    /// The survivors of the current position, restarting the circuit when they all agree.
    fn settled(&mut self) -> Result<Option<Survivors>, RemoteBoardError> {
        if self.register.quantum_squares().is_empty() {
            self.restart(self.register.classical_occupancy());
            return Ok(None);
        }
        let survivors = self.survivors()?;
        match survivors.classical_board() {
            Some(board) => {
                self.restart(board);
                Ok(None)
            }
            None => Ok(Some(survivors)),
        }
    }

    /// Drops the circuit: the position is classical with this occupancy.
    fn restart(&mut self, occupancy: Bitboard) {
        if !self.register.circuit().ops.is_empty() || !self.register.quantum_squares().is_empty() {
            self.register = Register::new(occupancy);
        }
        self.last_state_size = 1;
    }

    fn run_move(&mut self, mv: &TypedMove) -> Result<MoveReport, BoardError> {
        if self.register.quantum_squares().is_empty() {
            self.restart(self.register.classical_occupancy());
        }
        let request = match self.register.begin(mv)? {
            Step::Done(result) => {
                return Ok(MoveReport {
                    proceeded: result.proceeded,
                    outcome: result.measurement.outcome(),
                    outcome_probability: None,
                });
            }
            Step::Measure(request) => request,
        };
        let survivors = self.survivors()?;
        let qubit = self.recycled().physical(request.qubit).unwrap_or(request.qubit).index();
        let proceed = survivors.qubit_probability(qubit, request.proceed_value);
        let outcome = match request.forced {
            Some(forced) => forced,
            None => {
                let drawn = survivors.draw(self.rng.random::<f64>());
                (drawn >> qubit & 1 == 1) == request.proceed_value
            }
        };
        let probability = if outcome { proceed } else { 1.0 - proceed };
        let impossible = match survivors.shots {
            Some(_) => probability <= 0.0,
            None => probability <= shots::NEGLIGIBLE,
        };
        if impossible {
            return Err(BoardError::ImpossibleOutcome { mv: mv.to_string(), outcome });
        }
        let result = self.register.resolve(outcome)?;
        Ok(MoveReport { proceeded: result.proceeded, outcome: Some(outcome), outcome_probability: Some(probability) })
    }
}

impl QuantumBoard for RemoteBoard {
    fn init(&mut self, occupancy: Bitboard) -> Result<(), BoardError> {
        self.register = Register::new(occupancy);
        self.allowed = AllowedPieces::new(occupancy);
        self.history.clear();
        self.rng = ChaCha8Rng::seed_from_u64(self.config.seed);
        self.last_state_size = 1;
        Ok(())
    }

    fn apply(&mut self, mv: &TypedMove) -> Result<MoveReport, BoardError> {
        let before = Applied { register: self.register.clone(), allowed: self.allowed.clone(), mv: *mv };
        self.current = Some(*mv);
        let run = self.run_move(mv);
        self.current = None;
        match run {
            Ok(report) => {
                self.allowed.after(mv);
                self.history.push(before);
                Ok(report)
            }
            Err(error) => {
                self.register = before.register;
                self.allowed = before.allowed;
                Err(error)
            }
        }
    }

    fn undo(&mut self) -> Result<(), BoardError> {
        let before = self.history.pop().ok_or(BoardError::NothingToUndo)?;
        self.register = before.register;
        self.allowed = before.allowed;
        Ok(())
    }

    fn square_probabilities(&mut self) -> Result<SquareProbabilities, BoardError> {
        match self.settled()? {
            None => Ok(SquareProbabilities::classical(self.register.classical_occupancy())),
            Some(survivors) => {
                let (probabilities, standard_errors) = survivors.square_probabilities();
                Ok(SquareProbabilities { probabilities, standard_errors: standard_errors.map(Box::new) })
            }
        }
    }

    fn distribution(&mut self) -> Result<Vec<(Bitboard, f64)>, BoardError> {
        match self.settled()? {
            None => Ok(vec![(self.register.classical_occupancy(), 1.0)]),
            Some(survivors) => Ok(survivors.distribution()),
        }
    }

    fn sample(&mut self, shots: usize) -> Result<Vec<Bitboard>, BoardError> {
        let distribution = self.distribution()?;
        Ok((0..shots)
            .map(|_| {
                let u = self.rng.random::<f64>();
                let mut cumulative = 0.0;
                for &(board, p) in &distribution {
                    cumulative += p;
                    if u < cumulative {
                        return board;
                    }
                }
                distribution.last().map_or(Bitboard::EMPTY, |d| d.0)
            })
            .collect())
    }

    /// The surviving shots of the current circuit, by board, while the board holds qubits
    /// and the provider answers shot frequencies; `None` otherwise (exact results, or a
    /// classical position that needs no job). Unlike `distribution`, this never restarts the
    /// circuit, so a position the shots happen to agree on still reports its shot count.
    fn distribution_counts(&mut self) -> Result<Option<Vec<(Bitboard, u64)>>, BoardError> {
        if self.register.quantum_squares().is_empty() || self.config.exact_results() {
            return Ok(None);
        }
        let survivors = self.survivors()?;
        let Some(shots) = survivors.shots else { return Ok(None) };
        Ok(Some(survivors.distribution().into_iter().map(|(board, p)| (board, (p * shots).round() as u64)).collect()))
    }

    fn state_size(&self) -> usize {
        self.last_state_size
    }

    fn is_exact(&self) -> bool {
        self.config.exact_results()
    }
}

/// The single-threaded runtime a board, or a call made for a board's game, blocks on.
fn runtime() -> Result<tokio::runtime::Runtime, RemoteBoardError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RemoteBoardError::Runtime(e.to_string()))
}
