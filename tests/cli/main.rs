//! End-to-end tests of the `qchess` binary, one module per command.

mod common;

mod analyse;
mod bench;
mod board;
mod braket;
mod compare;
mod compile;
mod demo;
mod errors;
mod game;
mod ibm;
mod ibm_calibration;
mod ibm_sessions;
mod matches;
mod moves;
mod perft;
mod play;
mod recycle;
mod rules;
mod serve;
mod serve_limits;
mod serve_seats;
mod sim;
mod sim_programs;
mod store;
mod store_crash;
mod store_instances;
mod timeout;
mod uqci;
