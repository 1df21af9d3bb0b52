//! UQCI, the Universal Quantum Chess Interface: UCI plus quantum notation.
//!
//! [`run`] reads commands line by line and answers on the output; the search runs in a thread
//! of its own, so `isready` (answered `readyok` at once), `stop` and `ponderhit` work while it
//! thinks. Every `go` gets exactly one `bestmove` (`bestmove 0000` when there is no move to
//! make, with an `info string` saying why). Unknown commands are ignored, as UCI says;
//! malformed ones are reported as `info string ...` and change nothing.
//!
//! Commands: `uci`, `debug on|off`, `isready`, `setoption name N [value V]` (see
//! [`options`]), `ucinewgame`, `position startpos|fen FEN [moves ...]` (with `.m0` / `.m1`
//! outcomes forced when `forcemeasure` is on), `go [searchmoves ...] [ponder] [wtime T]
//! [btime T] [winc T] [binc T] [movestogo N] [depth D] [nodes N] [movetime T] [infinite]`,
//! `stop`, `ponderhit`, `quit`, and the quantum extension `calcbell SQ1 SQ2`, answered
//! `bell SQ1 SQ2 O1 O2 O3 O4 O5 O6 O7 O8`: the expectations of the projectors onto the eight
//! Bell states `Psi+ Psi- Psi+i Psi-i Phi+ Phi- Phi+i Phi-i` of the two squares' occupancy
//! (see `qchess_engine::analysis`), nine decimals each.
//!
//! During a search: `info depth D seldepth S nodes N nps N time MS score cp C|mate M pv ...`
//! after every finished iteration (a "mate" is a certain king capture), then `bestmove M
//! [ponder P]`.

pub mod client;
mod engine;
pub mod options;
pub mod protocol;
pub mod report;

use std::io::{BufRead, Write};

pub use engine::{Engine, Output};
pub use report::info_line;

/// Runs the protocol until `quit` or the end of the input. At the end of the input a search
/// still running finishes within its limits (`go infinite` and `go ponder` are stopped) and
/// answers first.
pub fn run(input: impl BufRead, output: impl Write + Send + 'static) {
    run_with(input, output, options::EngineOptions::default());
}

/// [`run`] with the engine's options starting as `options`.
pub fn run_with(input: impl BufRead, output: impl Write + Send + 'static, options: options::EngineOptions) {
    let mut engine = Engine::with_options(Output::new(output), options);
    for line in input.lines() {
        let Ok(line) = line else { break };
        if !engine.handle(&line) {
            return;
        }
    }
    engine.end_of_input();
}
