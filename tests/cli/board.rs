//! `qchess board`.
