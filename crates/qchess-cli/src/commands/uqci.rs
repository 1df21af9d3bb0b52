//! `qchess uqci`: the UQCI engine protocol on stdin and stdout (see `qchess_search::uqci`).

use anyhow::Result;

/// Flags of `qchess uqci` (everything else is set with `setoption`).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Play as the player `ai:LEVEL` (1 to 6): the level's search, at most LEVEL plies deep
    /// also under a move time or a clock (the options `Level` and `CapDepth`)
    #[arg(long, value_name = "LEVEL", value_parser = clap::value_parser!(u32).range(1..=i64::from(qchess_search::player::MAX_LEVEL)))]
    level: Option<u32>,

    /// Play for expected score at this scale: centipawns of evaluation that make a 10-to-1
    /// favourite (default 2170); 0 weighs measurement outcomes in centipawns (the option
    /// `ScoreScale`)
    #[arg(long, value_name = "CP", value_parser = clap::value_parser!(u32).range(0..=i64::from(qchess_search::uqci::options::MAX_SCORE_SCALE)))]
    score_scale: Option<u32>,
}

/// Runs the engine until `quit` or the end of input.
pub fn run(args: Args) -> Result<()> {
    let mut options = qchess_search::uqci::options::EngineOptions::default();
    if let Some(level) = args.level {
        options.level = level;
        options.cap_depth = true;
    }
    if let Some(scale) = args.score_scale {
        options.score_scale = scale;
    }
    qchess_search::uqci::run_with(std::io::stdin().lock(), std::io::stdout(), options);
    Ok(())
}
