//! One module per subcommand.

pub mod analyse;
pub mod bench;
pub mod board;
pub mod clock;
pub mod compare;
pub mod compile;
pub mod demo;
pub mod devices;
pub mod game;
pub mod games;
pub mod matches;
pub mod moves;
pub mod perft;
pub mod play;
pub mod serve;
pub mod serve_games;
pub mod sim;
pub mod sim_program;
mod sim_report;
pub mod stored;
pub mod uqci;
