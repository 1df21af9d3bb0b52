//! `qchess compare`.
