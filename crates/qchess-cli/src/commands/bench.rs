//! `qchess bench`.

/// Flags of `qchess bench`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess bench`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess bench is not built yet")
}
