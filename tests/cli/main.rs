//! End-to-end tests of the `qchess` binary, one module per command.

mod common;

mod board;
mod moves;
mod perft;
mod sim;
