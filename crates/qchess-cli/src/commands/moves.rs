//! `qchess moves`.

/// Flags of `qchess moves`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess moves`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess moves is not built yet")
}
