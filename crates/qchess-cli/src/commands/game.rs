//! `qchess game`.

/// Flags of `qchess game`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess game`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess game is not built yet")
}
