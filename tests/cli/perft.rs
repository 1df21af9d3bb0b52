//! `qchess perft`.
