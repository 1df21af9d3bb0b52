//! One module per subcommand.

pub mod board;
pub mod moves;
pub mod perft;
pub mod sim;
