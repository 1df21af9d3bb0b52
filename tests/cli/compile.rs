//! `qchess compile`.
