//! The `qchess` command line: a thin layer that parses flags into a validated configuration
//! and hands the work to the library crates.

mod backend;
mod commands;
mod exit;
mod output;
mod store;
mod time_limit;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Quantum Chess played by a real circuit compiler.
#[derive(Debug, Parser)]
#[command(name = "qchess", version, about, propagate_version = true)]
struct Cli {
    /// Print machine-readable JSON instead of human output.
    #[arg(long, global = true)]
    json: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List every legal move of a position with its type and variant.
    Moves(commands::moves::Args),
    /// Count leaf nodes of the move tree (classical chess rules).
    Perft(commands::perft::Args),
    /// Run typed moves on an occupancy-level quantum board and print exact probabilities.
    Board(commands::board::Args),
    /// Run an OpenQASM 2.0 or 3 file on the built-in simulator.
    Sim(commands::sim::Args),
    /// Write the circuit of a game or of typed board moves as OpenQASM or IonQ JSON.
    Compile(commands::compile::Args),
    /// Apply moves in official notation to a position and print the result.
    Game(commands::game::Args),
    /// Play an interactive game in the terminal, against a person or the computer.
    Play(commands::play::Args),
    /// List, show, resume, cancel or export the games kept in the game store.
    Games(commands::games::Args),
    /// Play a short narrated demo game on the built-in simulator.
    Demo(commands::demo::Args),
    /// List a provider's devices with their status (Amazon Braket).
    Devices(commands::devices::Args),
    /// Serve the IonQ-compatible provider API and the quantum board REST API over HTTP.
    Serve(commands::serve::Args),
    /// Run the same game or circuits on two backends and test whether their outcomes agree.
    Compare(Box<commands::compare::Args>),
    /// Run the standard benchmark workloads.
    Bench(commands::bench::Args),
    /// Play games between two computer players and report W/D/L, score and Elo.
    Match(commands::matches::Args),
    /// Judge every move of a recorded game: values before and after, the best alternative,
    /// inaccuracies, mistakes and blunders.
    #[command(alias = "analyze")]
    Analyse(commands::analyse::Args),
    /// Speak the UQCI engine protocol on stdin/stdout.
    Uqci(commands::uqci::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return exit::usage(&error),
    };
    let result = match cli.command {
        Command::Moves(args) => commands::moves::run(args, cli.json),
        Command::Perft(args) => commands::perft::run(args, cli.json),
        Command::Board(args) => commands::board::run(args, cli.json),
        Command::Sim(args) => commands::sim::run(args, cli.json),
        Command::Compile(args) => commands::compile::run(args, cli.json),
        Command::Game(args) => commands::game::run(args, cli.json),
        Command::Play(args) => commands::play::run(args, cli.json),
        Command::Games(args) => commands::games::run(args, cli.json),
        Command::Demo(args) => commands::demo::run(args, cli.json),
        Command::Devices(args) => commands::devices::run(args, cli.json),
        Command::Serve(args) => commands::serve::run(args, cli.json),
        Command::Compare(args) => commands::compare::run(*args, cli.json),
        Command::Bench(args) => commands::bench::run(args, cli.json),
        Command::Match(args) => commands::matches::run(args, cli.json),
        Command::Analyse(args) => commands::analyse::run(args, cli.json),
        Command::Uqci(args) => commands::uqci::run(args),
    };
    exit::report(result)
}
