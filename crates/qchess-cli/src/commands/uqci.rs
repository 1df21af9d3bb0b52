//! `qchess uqci`: the UQCI engine protocol on stdin and stdout (see `qchess_search::uqci`).

use anyhow::Result;

/// Flags of `qchess uqci` (none: everything is set with `setoption`).
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the engine until `quit` or the end of input.
pub fn run(_args: Args) -> Result<()> {
    qchess_search::uqci::run(std::io::stdin().lock(), std::io::stdout());
    Ok(())
}
