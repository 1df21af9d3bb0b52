//! The game runner on the exact local board against a sampled stand-in of it: the right test
//! per move, pinned outcomes, and a move the sampled side cannot follow.

use qchess_circuit::ir::Circuit;
use qchess_compare::game::{GameInput, run_game};
use qchess_compare::observation::Observation;
use qchess_compare::stats::pair::{Method, PairOptions};
use qchess_compare::{Backend, Report, Settings};
use qchess_core::{Bitboard, BoardError, MoveReport, QuantumBoard, SquareProbabilities, TypedMove};
use qchess_engine::record::GameRecord;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The exact local board.
struct Local;

impl Backend for Local {
    fn label(&self) -> String {
        "local".into()
    }

    fn board(&self, occupancy: Bitboard, seed: u64) -> Result<Box<dyn QuantumBoard>, BoardError> {
        Ok(Box::new(LocalBoard::with_options(occupancy, LocalBoardOptions { seed, ..Default::default() })))
    }

    fn run_circuit(&self, circuit: &Circuit, _shots: u64, _seed: u64) -> Result<Observation, String> {
        qchess_compare::circuits::run_exact(circuit)
    }
}

/// A sampled stand-in: `shots` fresh draws from the exact state after every move; it refuses
/// the forced outcome of move `refuse` (1-based), as a sampler that never saw it would.
struct Sampled {
    shots: u64,
    refuse: Option<usize>,
}

struct SampledBoard {
    exact: LocalBoard,
    shots: u64,
    refuse: Option<usize>,
    moves: usize,
    rng: ChaCha8Rng,
    counts: Vec<(Bitboard, u64)>,
}

impl SampledBoard {
    fn draw(&mut self) -> Result<(), BoardError> {
        let distribution = self.exact.distribution()?;
        let mut counts: Vec<(Bitboard, u64)> = distribution.iter().map(|&(b, _)| (b, 0)).collect();
        for _ in 0..self.shots {
            let u: f64 = self.rng.random();
            let mut cumulative = 0.0;
            let index = distribution
                .iter()
                .position(|(_, p)| {
                    cumulative += p;
                    u < cumulative
                })
                .unwrap_or(distribution.len() - 1);
            counts[index].1 += 1;
        }
        counts.retain(|c| c.1 > 0);
        self.counts = counts;
        Ok(())
    }
}

impl QuantumBoard for SampledBoard {
    fn init(&mut self, occupancy: Bitboard) -> Result<(), BoardError> {
        self.exact.init(occupancy)?;
        self.draw()
    }

    fn apply(&mut self, mv: &TypedMove) -> Result<MoveReport, BoardError> {
        self.moves += 1;
        if self.refuse == Some(self.moves) && mv.outcome.is_some() {
            return Err(BoardError::ImpossibleOutcome { mv: mv.to_string(), outcome: mv.outcome == Some(true) });
        }
        let report = self.exact.apply(mv)?;
        self.draw()?;
        Ok(report)
    }

    fn undo(&mut self) -> Result<(), BoardError> {
        self.exact.undo()
    }

    fn square_probabilities(&mut self) -> Result<SquareProbabilities, BoardError> {
        self.exact.square_probabilities()
    }

    fn distribution(&mut self) -> Result<Vec<(Bitboard, f64)>, BoardError> {
        Ok(self.counts.iter().map(|&(b, c)| (b, c as f64 / self.shots as f64)).collect())
    }

    fn distribution_counts(&mut self) -> Result<Option<Vec<(Bitboard, u64)>>, BoardError> {
        Ok(Some(self.counts.clone()))
    }

    fn sample(&mut self, shots: usize) -> Result<Vec<Bitboard>, BoardError> {
        self.exact.sample(shots)
    }

    fn state_size(&self) -> usize {
        self.counts.len()
    }

    fn is_exact(&self) -> bool {
        false
    }
}

impl Backend for Sampled {
    fn label(&self) -> String {
        format!("sampled ({} shots)", self.shots)
    }

    fn board(&self, occupancy: Bitboard, seed: u64) -> Result<Box<dyn QuantumBoard>, BoardError> {
        let mut board = SampledBoard {
            exact: LocalBoard::new(occupancy),
            shots: self.shots,
            refuse: self.refuse,
            moves: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            counts: Vec::new(),
        };
        board.init(occupancy)?;
        Ok(Box::new(board))
    }

    fn run_circuit(&self, _circuit: &Circuit, _shots: u64, _seed: u64) -> Result<Observation, String> {
        Err("not used here".into())
    }
}

fn game(file: &str) -> GameInput {
    let path = format!("{}/../../examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let record = GameRecord::load(std::path::Path::new(&path)).expect("example");
    GameInput::from_record(file, &record).expect("valid")
}

fn options() -> PairOptions {
    PairOptions { bootstrap: 100, ..PairOptions::default() }
}

#[test]
fn each_move_gets_the_test_its_sides_call_for() {
    let run = run_game(&game("official-split-merge.pgn"), &Local, &Sampled { shots: 500, refuse: None }, &options(), 3)
        .expect("runs");
    let methods: Vec<Method> = run.steps.iter().map(|s| s.test.method).collect();
    // Split (two boards, exact test), a pawn move (the same two boards), merge (one board).
    assert_eq!(methods, [Method::ExactMultinomial, Method::ExactMultinomial, Method::BothCertain]);
    assert_eq!(run.steps[0].a.as_ref().and_then(Observation::shots), None);
    assert_eq!(run.steps[0].b.as_ref().and_then(Observation::shots), Some(500));
    assert_eq!(run.steps[2].label, "a3c3^b5");
    assert!(run.stopped.is_none());
    let report = Report::new("local".into(), "sampled".into(), Settings::default(), vec![run]);
    assert_eq!((report.agree, report.tests), (true, 2));
    // The split's squares: a3 and c3 at 1/2 on the exact side.
    let split = &report.items[0].steps[0];
    let named: Vec<&str> = split.differences.iter().take(2).map(|d| d.name.as_str()).collect();
    assert!(named.contains(&"a3") && named.contains(&"c3"), "{named:?}");
    assert!(split.differences.iter().all(|d| d.z.is_some()));
}

#[test]
fn a_move_the_sampled_side_cannot_follow_stops_the_game_with_its_own_test() {
    // Ply 5 is f3xd4.m1, which measures an outcome of probability 1/2.
    let sampled = Sampled { shots: 200, refuse: Some(5) };
    let run = run_game(&game("capture-superposed-m1.pgn"), &Local, &sampled, &options(), 0).expect("runs");
    assert_eq!(run.steps.len(), 5);
    let last = &run.steps[4];
    assert_eq!(last.test.method, Method::OutcomeUnseen);
    // (1 - 1/2)^200: none of 200 shots showing an outcome of probability 1/2.
    assert!((last.test.p_value / 0.5f64.powi(200) - 1.0).abs() < 1e-12, "{}", last.test.p_value);
    assert!(last.a.is_some() && last.b.is_none());
    assert!(
        run.stopped.as_deref().is_some_and(|s| s.contains("ply 5") && s.contains("200 shots")),
        "{:?}",
        run.stopped
    );
    let report = Report::new("local".into(), "sampled".into(), Settings::default(), vec![run]);
    assert!(!report.agree);
    assert_eq!(report.disagreements().map(|(_, s)| s.index).collect::<Vec<_>>(), vec![5]);
}

#[test]
fn unpinned_outcomes_are_drawn_by_the_first_backend_and_followed_by_the_second() {
    let spec = "startpos".parse().expect("startpos");
    let moves = ["g1^f3h3", "b8^c6a6", "e2e3", "c6d4", "f3xd4"].map(|m| m.parse().expect("notation")).to_vec();
    for seed in 0..6 {
        let input = GameInput::from_position("moves", &spec, moves.clone(), seed);
        let run = run_game(&input, &Local, &Local, &options(), seed).expect("runs");
        let last = &run.steps[4];
        assert!(last.label.ends_with(".m0") || last.label.ends_with(".m1"), "{}", last.label);
        assert_eq!(last.test.method, Method::ExactEquality);
        assert_eq!(last.test.p_value, 1.0, "seed {seed}: both boards follow the drawn outcome");
    }
}

#[test]
fn illegal_games_are_input_errors_naming_the_ply() {
    let spec = "startpos".parse().expect("startpos");
    let input = GameInput::from_position("bad", &spec, vec!["e2e5".parse().expect("notation")], 0);
    let error = run_game(&input, &Local, &Local, &options(), 0).expect_err("illegal");
    assert!(error.is_input_error());
    assert!(error.to_string().starts_with("bad: ply 1 (e2e5)"), "{error}");
}
