//! `qchess board`.

/// Flags of `qchess board`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess board`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess board is not built yet")
}
