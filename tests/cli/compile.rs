//! `qchess compile`: JSON shape, files in `--out`, `--per-move`, every `--format`, exit codes,
//! and the golden circuits in `circuits/`.

mod golden;
