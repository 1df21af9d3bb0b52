//! `qchess compile`.

/// Flags of `qchess compile`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess compile`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess compile is not built yet")
}
