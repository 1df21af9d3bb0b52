//! `qchess compare`.

/// Flags of `qchess compare`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `qchess compare`.
pub fn run(_args: Args, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!("qchess compare is not built yet")
}
