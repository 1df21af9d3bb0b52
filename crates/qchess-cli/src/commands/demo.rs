//! `qchess demo`.

/// Flags of `qchess demo`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess demo`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess demo is not built yet")
}
