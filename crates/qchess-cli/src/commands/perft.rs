//! `qchess perft`.

/// Flags of `qchess perft`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess perft`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess perft is not built yet")
}
