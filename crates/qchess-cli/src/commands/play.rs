//! `qchess play`.

/// Flags of `qchess play`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess play`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess play is not built yet")
}
