//! `qchess sim`.

/// Flags of `qchess sim`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess sim`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess sim is not built yet")
}
