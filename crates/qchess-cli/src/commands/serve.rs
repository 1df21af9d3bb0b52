//! `qchess serve`.

/// Flags of `qchess serve`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess serve`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess serve is not built yet")
}
