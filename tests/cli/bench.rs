//! `qchess bench`.
