//! `qchess serve`.
