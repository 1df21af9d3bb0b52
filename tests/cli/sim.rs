//! `qchess sim`.
