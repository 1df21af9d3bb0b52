//! Running one game on two backends, move by move, with the same outcomes on both.
//!
//! An exact reference game (the local simulator under the game engine's tracker) decides
//! legality and each move's type and variant, so a noisy backend can sit on either side.
//! Each typed move then runs on backend A and on backend B:
//!
//! - An outcome pinned in the game (`.m0` / `.m1`, as records carry them) is forced on both.
//! - An outcome not pinned is drawn by backend A and then pinned for the reference and for B,
//!   so both backends follow the same branch.
//!
//! After each move both boards are asked for their distribution over whole boards: exact
//! probabilities, or the post-selected shot counts of a sampling backend
//! ([`QuantumBoard::distribution_counts`]). When a sampling backend could not follow a pinned
//! outcome (no surviving shot showed it), the game stops there and that move is tested on its
//! own: under the null hypothesis the chance of `n` shots all missing an outcome of exact
//! probability `p` is `(1 - p)^n`.

use qchess_core::text::with_causes;
use qchess_core::{
    AlgebraicMove, Bitboard, BoardError, Fen, MoveReport, Notation, PositionSpec, QuantumBoard, TypedMove,
};
use qchess_engine::record::GameRecord;
use qchess_engine::{Game, GameError, GameOptions, RuleSet};

use crate::backend::Backend;
use crate::error::CompareError;
use crate::observation::Observation;
use crate::stats::distance::Estimate;
use crate::stats::pair::{Method, PairOptions, PairTest, compare};

/// A game to compare: where it starts, its moves, and how it is played.
#[derive(Debug, Clone, PartialEq)]
pub struct GameInput {
    /// How reports name it (a file name, or `--moves`).
    pub name: String,
    /// The start position.
    pub start: Fen,
    /// Options of the reference game (the seed draws nothing once outcomes are pinned).
    pub options: GameOptions,
    /// The moves in official notation.
    pub moves: Vec<Notation>,
    /// The board a fifty-move or repetition claim measured, from a record.
    pub measured: Option<Bitboard>,
}

impl GameInput {
    /// A game from a record (its `FEN`, `Seed`, `TurnOrder`, `WinConditions` and
    /// `MeasuredBoard` tags).
    pub fn from_record(name: &str, record: &GameRecord) -> Result<GameInput, CompareError> {
        let bad = |e: &(dyn std::error::Error + 'static)| CompareError::Game {
            game: name.to_owned(),
            reason: with_causes(e),
        };
        Ok(GameInput {
            name: name.to_owned(),
            start: record.start().map_err(|e| bad(&e))?,
            options: record.options().map_err(|e| bad(&e))?,
            moves: record.moves.iter().map(|m| m.notation).collect(),
            measured: record.measured_board().map_err(|e| bad(&e))?,
        })
    }

    /// A game from a position string (`startpos moves e2e4 ...`) and more moves.
    pub fn from_position(name: &str, spec: &PositionSpec, more: Vec<Notation>, seed: u64) -> GameInput {
        GameInput {
            name: name.to_owned(),
            start: spec.start.to_fen(),
            options: GameOptions::with_seed(seed),
            moves: spec.moves.iter().copied().chain(more).collect(),
            measured: None,
        }
    }
}

/// One compared move (or circuit).
#[derive(Debug, Clone, PartialEq)]
pub struct StepRun {
    /// The move as played, with its outcome (`f3xd4.m1`), or the circuit's name.
    pub label: String,
    /// The typed move (`f3d4.m1:JUMP:CAPTURE`), or a description of the circuit.
    pub detail: String,
    /// The probability the exact reference gave the move's outcome, when it measured.
    pub outcome_probability: Option<f64>,
    /// What backend A showed (none when it could not follow the move).
    pub a: Option<Observation>,
    /// What backend B showed (none when it could not follow the move).
    pub b: Option<Observation>,
    /// The comparison.
    pub test: PairTest,
    /// Something the report should say about this step.
    pub note: Option<String>,
}

/// One compared game (or circuit file).
#[derive(Debug, Clone, PartialEq)]
pub struct ItemRun {
    /// Its name.
    pub name: String,
    /// Whether outcome keys are boards (games) or measured bits (circuits), and how many bits.
    pub keys: KeyKind,
    /// The compared steps, in order.
    pub steps: Vec<StepRun>,
    /// Why the comparison stopped early, if it did.
    pub stopped: Option<String>,
}

/// What outcome keys are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// Occupancy bitboards (a1 = bit 0).
    Boards,
    /// Measured bits, this many.
    Bits(usize),
}

/// One side of the comparison while a game runs.
struct Side {
    label: String,
    board: Box<dyn QuantumBoard>,
    /// Shots behind the side's last sampled answer, for classical answers after it.
    last_shots: Option<u64>,
}

impl Side {
    fn new(backend: &dyn Backend, occupancy: Bitboard, seed: u64, item: &str) -> Result<Side, CompareError> {
        let label = backend.label();
        match backend.board(occupancy, seed) {
            Ok(board) => Ok(Side { label, board, last_shots: None }),
            Err(source) => Err(CompareError::Board { item: item.to_owned(), backend: label, source }),
        }
    }

    fn board_error(&self, item: &str, source: BoardError) -> CompareError {
        CompareError::Board { item: item.to_owned(), backend: self.label.clone(), source }
    }

    /// What the board shows now.
    fn observe(&mut self, item: &str) -> Result<Observation, CompareError> {
        let observation_error =
            |source| CompareError::Observation { item: item.to_owned(), backend: self.label.clone(), source };
        match self.board.distribution_counts() {
            Ok(Some(counts)) => {
                let observed =
                    Observation::counts(counts.into_iter().map(|(b, c)| (b.0, c))).map_err(observation_error)?;
                self.last_shots = observed.shots();
                return Ok(observed);
            }
            Ok(None) => {}
            Err(source) => return Err(self.board_error(item, source)),
        }
        let distribution = self.board.distribution().map_err(|source| self.board_error(item, source))?;
        // A sampling board that knows its position classically learned it from its last shots:
        // keep treating it as that many shots, so a rare branch it missed is not a certainty.
        if !self.board.is_exact()
            && let ([(board, _)], Some(shots)) = (distribution.as_slice(), self.last_shots)
        {
            return Ok(Observation::Counts { counts: vec![(board.0, shots)], shots });
        }
        Observation::exact(distribution.into_iter().map(|(b, p)| (b.0, p))).map_err(observation_error)
    }

    /// Runs a typed move: `None` when a forced outcome had no surviving shot.
    fn apply(&mut self, mv: &TypedMove, item: &str) -> Result<Option<MoveReport>, CompareError> {
        match self.board.apply(mv) {
            Ok(report) => Ok(Some(report)),
            Err(BoardError::ImpossibleOutcome { .. }) if mv.outcome.is_some() => Ok(None),
            Err(source) => Err(self.board_error(item, source)),
        }
    }

    /// The test of a move this side could not follow: its pinned outcome never showed.
    fn unseen_outcome(&self, outcome_probability: Option<f64>) -> (PairTest, String) {
        let p = outcome_probability.unwrap_or(1.0);
        let p_value = match self.last_shots {
            Some(n) if !self.board.is_exact() => (1.0 - p).powf(n as f64),
            _ => 0.0,
        };
        let unknown = Estimate { value: f64::NAN, low: f64::NAN, high: f64::NAN };
        let test = PairTest {
            method: Method::OutcomeUnseen,
            statistic: None,
            df: None,
            bins: None,
            p_value,
            outside_support: Vec::new(),
            tvd: unknown,
            fidelity: unknown,
        };
        let shots = self.last_shots.map_or_else(String::new, |n| format!(" in {n} shots"));
        let note = format!(
            "backend {} never showed this outcome{shots} (exact probability {p:.6}); the game stops here",
            self.label
        );
        (test, note)
    }
}

/// Runs `game` on the reference and on both backends and compares every move; `seed` seeds
/// backend A's draws (B gets `seed + 1`) and the bootstrap.
pub fn run_game(
    game: &GameInput,
    a: &dyn Backend,
    b: &dyn Backend,
    options: &PairOptions,
    seed: u64,
) -> Result<ItemRun, CompareError> {
    let name = game.name.as_str();
    let game_error = |reason: String| CompareError::Game { game: name.to_owned(), reason };
    if matches!(game.options.rules, RuleSet::Observer | RuleSet::Checkmate) {
        // Their plies can measure before the move; each side here runs one typed move per ply.
        let rules = game.options.rules;
        return Err(game_error(format!(
            "the {rules} rules measure before some moves; compare runs official and classical games"
        )));
    }
    let mut reference = Game::new(&game.start, game.options).map_err(|e| game_error(with_causes(&e)))?;
    reference.set_pending_measurement(game.measured);
    let occupancy = game.start.occupancy();
    let mut side_a = Side::new(a, occupancy, seed, name)?;
    let mut side_b = Side::new(b, occupancy, seed.wrapping_add(1), name)?;
    let mut run = ItemRun { name: name.to_owned(), keys: KeyKind::Boards, steps: Vec::new(), stopped: None };
    for (index, notation) in game.moves.iter().enumerate() {
        let ply = index + 1;
        let move_error = |e: &dyn std::fmt::Display| game_error(format!("ply {ply} ({notation}): {e}"));
        let game_failure = |e: &GameError| move_error(&with_causes(e));
        let played = reference.play_notation(notation).map_err(|e| game_failure(&e))?;
        let pinned = matches!(notation, Notation::Move(AlgebraicMove { outcome: Some(_), .. }));
        let (typed, report_a) = if played.report.outcome_probability.is_some() && !pinned {
            // An outcome not pinned is backend A's to draw; the reference and B follow it.
            reference.undo().map_err(|e| game_failure(&e))?;
            let report =
                side_a.board.apply(&played.typed.with_outcome(None)).map_err(|e| side_a.board_error(name, e))?;
            let forced = Notation::Move(played.notation.with_outcome(report.outcome));
            reference.play_notation(&forced).map_err(|e| {
                move_error(&format!(
                    "backend {} drew an outcome the exact reference says is impossible: {}",
                    side_a.label,
                    with_causes(&e)
                ))
            })?;
            (played.typed.with_outcome(report.outcome), Some(report))
        } else {
            (played.typed, side_a.apply(&played.typed, name)?)
        };
        let replayed = reference.moves().last().copied().unwrap_or(played);
        let outcome_probability = replayed.report.outcome_probability;
        let report_b = side_b.apply(&typed, name)?;
        let label = replayed.notation.to_string();
        let detail = typed.to_string();
        let failed = match (&report_a, &report_b) {
            (None, _) => Some(&side_a),
            (_, None) => Some(&side_b),
            _ => None,
        };
        if let Some(side) = failed {
            let (test, note) = side.unseen_outcome(outcome_probability);
            let a_seen = if report_a.is_some() { Some(side_a.observe(name)?) } else { None };
            let b_seen = if report_b.is_some() { Some(side_b.observe(name)?) } else { None };
            run.stopped = Some(format!("ply {ply}: {note}"));
            let step = StepRun { label, detail, outcome_probability, a: a_seen, b: b_seen, test, note: Some(note) };
            run.steps.push(step);
            return Ok(run);
        }
        let (a_seen, b_seen) = (side_a.observe(name)?, side_b.observe(name)?);
        let test = compare(&a_seen, &b_seen, options, step_seed(seed, name, ply));
        let step = StepRun { label, detail, outcome_probability, a: Some(a_seen), b: Some(b_seen), test, note: None };
        run.steps.push(step);
    }
    Ok(run)
}

/// A bootstrap seed per step: the comparison's seed mixed with the item's name and the step.
pub fn step_seed(seed: u64, item: &str, step: usize) -> u64 {
    // FNV-1a over the name, then a SplitMix64 finaliser: stable across runs and platforms.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in item.bytes().chain((step as u64).to_le_bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = hash ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
