//! End-to-end tests of the `qchess` binary, one module per command.

mod common;

mod bench;
mod board;
mod compare;
mod compile;
mod demo;
mod game;
mod matches;
mod moves;
mod perft;
mod play;
mod rules;
mod serve;
mod sim;
mod uqci;
