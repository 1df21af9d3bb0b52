//! `qchess moves`.
