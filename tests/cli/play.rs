//! `qchess play`.
