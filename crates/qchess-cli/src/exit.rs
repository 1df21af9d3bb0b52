//! Exit codes: 0 success, 1 runtime failure, 2 bad usage or input.
//!
//! Every error type says only its own words; [`report`] prints the chain once, each cause after
//! a `: `.

use std::error::Error;
use std::process::ExitCode;

/// An error caused by what the user gave us (a malformed or illegal move, a bad FEN, an
/// unreadable file): the command exits with code 2. It shows the wrapped error (and its
/// causes) unchanged.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct InputError(Box<dyn Error + Send + Sync>);

/// Marks an error (or a message) as bad input (exit code 2).
pub fn bad_input(error: impl Into<Box<dyn Error + Send + Sync>>) -> anyhow::Error {
    anyhow::Error::new(InputError(error.into()))
}

/// Marks an error as bad input, said of `place` (`--moves, move 3`).
pub fn bad_input_at(
    place: impl std::fmt::Display + Send + Sync + 'static,
    error: impl Into<Box<dyn Error + Send + Sync>>,
) -> anyhow::Error {
    bad_input(error).context(place)
}

/// A failure that is not an error: the command ran and its answer is "no" (exit code 1),
/// already reported on stdout, so nothing more is printed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Verdict(pub String);

/// Prints clap's help or version (exit 0), or its usage error with the user's text escaped and
/// long lines cut (exit 2): clap quotes the bad value in full.
pub fn usage(error: &clap::Error) -> ExitCode {
    if !error.use_stderr() {
        // --help and --version: clap's own text, to stdout.
        let _ = error.print();
        return ExitCode::SUCCESS;
    }
    let text = error.to_string();
    let lines: Vec<String> = text.trim_end().lines().map(qchess_core::text::excerpt_line).collect();
    eprintln!("{}", lines.join("\n"));
    ExitCode::from(2)
}

/// Prints the error on one line to stderr and maps it to the exit code.
pub fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.is::<Verdict>() => ExitCode::from(1),
        Err(error) => {
            let code = if error.chain().any(|e| e.is::<InputError>()) { 2 } else { 1 };
            eprintln!("qchess: error: {error:#}");
            ExitCode::from(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message `report` prints for `error`.
    fn printed(error: &anyhow::Error) -> String {
        format!("{error:#}")
    }

    #[test]
    fn input_errors_keep_their_causes_and_say_each_once() {
        let io = std::io::Error::other("disk full");
        let file = qchess_engine::record::FileError::Io { path: "game.qcr".into(), source: io };
        let error = bad_input_at("--record", file);
        assert_eq!(printed(&error), "--record: game.qcr: disk full");
        assert!(error.chain().any(|e| e.is::<InputError>()));
    }

    /// Walks `error`'s chain: no layer repeats its cause's words, and no two layers say the
    /// same thing.
    fn assert_said_once(error: &(dyn Error + 'static)) {
        let mut layers = vec![error.to_string()];
        let mut current = error;
        while let Some(cause) = current.source() {
            let (outer, inner) = (current.to_string(), cause.to_string());
            assert!(!outer.contains(&inner), "`{outer}` repeats its cause `{inner}`");
            layers.push(inner);
            current = cause;
        }
        let mut unique = layers.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), layers.len(), "a layer repeats: {layers:?}");
        let line = qchess_core::text::with_causes(error);
        assert_eq!(line, layers.join(": "));
    }

    #[test]
    fn every_layer_of_representative_chains_says_its_own_words_once() {
        use qchess_core::BoardError;
        use qchess_engine::GameError;

        let network = || qchess_remote::RemoteError::Network {
            what: "submitting the job".into(),
            attempts: 3,
            detail: "tcp connect error: Connection refused (os error 111)".into(),
        };
        let remote_board = |e| BoardError::from(qchess_remote::RemoteBoardError::Remote(e));
        let game_board = |source| GameError::Board { mv: "b1^a3c3".into(), source };
        let impossible = || BoardError::ImpossibleOutcome { mv: "e4xd5.m0:PAWN_CAPTURE:BASIC".into(), outcome: false };

        let mut circuit = qchess_circuit::ir::Circuit::new();
        let q = circuit.add_qubit(qchess_circuit::ir::QubitRole::General);
        circuit.push_gate(qchess_circuit::ir::Gate::cx(q, q));
        let emit = qchess_qasm::emit::to_qasm3(&circuit, &qchess_qasm::emit::EmitOptions::default())
            .expect_err("a gate on one qubit twice");
        let ionq = qchess_qasm::ionq::to_ionq(&circuit).expect_err("a gate on one qubit twice");
        let record = "1. e2e9 *".parse::<qchess_engine::record::GameRecord>().expect_err("e9 is no square");
        let chains: Vec<Box<dyn Error>> = vec![
            Box::new(game_board(remote_board(network()))),
            Box::new(GameError::Backend(remote_board(network()))),
            Box::new(qchess_engine::record::ReplayError::Move {
                number: "2.".into(),
                mv: "e4xd5.m0".into(),
                source: Box::new(game_board(impossible())),
            }),
            Box::new(qchess_engine::record::FileError::Parse { path: "game.pgn".into(), source: record }),
            Box::new(qchess_qasm::export::ExportError::Emit(emit)),
            Box::new(qchess_remote::RemoteError::Circuit(ionq)),
            Box::new(qchess_compare::CompareError::Board {
                item: "game.pgn".into(),
                backend: "http://127.0.0.1:1".into(),
                source: remote_board(network()),
            }),
            Box::new(qchess_bench::BenchError::Game {
                workload: "fixed".into(),
                game: 0,
                ply: 3,
                source: game_board(impossible()),
            }),
            Box::new(qchess_server::ServeError::Bind {
                addr: "127.0.0.1:80".parse().expect("an address"),
                source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            }),
        ];
        for chain in &chains {
            assert_said_once(chain.as_ref());
        }
        // And through the walker that prints them.
        let printed = printed(&bad_input_at("--moves, move 1", game_board(remote_board(network()))));
        assert_eq!(
            printed,
            "--moves, move 1: b1^a3c3: the backend failed: cannot reach the provider for submitting the job after \
             3 attempts: tcp connect error: Connection refused (os error 111)"
        );
    }

    #[test]
    fn messages_are_input_errors_too() {
        let error = bad_input(format!("--depth {}: at most 7", 9));
        assert_eq!(printed(&error), "--depth 9: at most 7");
        assert!(error.chain().any(|e| e.is::<InputError>()));
    }
}
