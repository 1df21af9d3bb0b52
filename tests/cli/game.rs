//! `qchess game`.
