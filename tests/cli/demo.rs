//! `qchess demo`.
