//! How `qchess compile` hands its circuits out: files in a directory, one JSON document, or
//! plain program text on stdout.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use qchess_qasm::export::{Export, Format, Rendered};
use qchess_qasm::ionq::IonqCircuit;
use qchess_qasm::sidecar::Sidecar;
use serde::Serialize;

use crate::output::print;

/// One written-out circuit with its sidecar.
pub struct Circuit {
    /// The number of moves played and the last one, as recorded.
    last_move: Option<(usize, String)>,
    format: Format,
    rendered: Rendered,
    sidecar: Sidecar,
}

impl Circuit {
    /// Writes `export` in `format`.
    pub fn render(last_move: Option<(usize, String)>, export: Export, format: Format) -> Result<Circuit> {
        let rendered = export.render(format).with_context(|| format!("writing the circuit as {format}"))?;
        Ok(Circuit { last_move, format, rendered, sidecar: export.sidecar })
    }

    /// `game`, or `move-007-b1-a3c3` per move (the move made safe for file names).
    fn stem(&self, per_move: bool) -> String {
        match &self.last_move {
            Some((ply, mv)) if per_move => format!("move-{ply:03}-{}", file_safe(mv)),
            _ => "game".to_owned(),
        }
    }

    fn json(&self, per_move: bool) -> CircuitJson<'_> {
        let (ply, mv) = match &self.last_move {
            Some((ply, mv)) if per_move => (Some(*ply), Some(mv.as_str())),
            _ => (None, None),
        };
        let (qasm, ionq) = match &self.rendered {
            Rendered::Qasm(text) => (Some(text.as_str()), None),
            Rendered::Ionq(circuit) => (None, Some(circuit)),
        };
        CircuitJson { ply, mv, format: self.format.name(), qasm, ionq, sidecar: &self.sidecar }
    }
}

/// `{"format": "qasm2", "qasm": "...", "sidecar": {...}}`, with `ply` and `move` per move and
/// `ionq` instead of `qasm` for IonQ JSON.
#[derive(Serialize)]
struct CircuitJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    ply: Option<usize>,
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    mv: Option<&'a str>,
    format: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    qasm: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ionq: Option<&'a IonqCircuit>,
    sidecar: &'a Sidecar,
}

/// `{"circuit": "DIR/game.qasm", "sidecar": "DIR/game.json"}`, with `ply` and `move` per move.
#[derive(Serialize)]
struct FileJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    ply: Option<usize>,
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    mv: Option<&'a str>,
    circuit: String,
    sidecar: String,
}

/// Lower-case letters and digits stay; `^`, `:` and `.` become `-`; anything else `_`.
pub(super) fn file_safe(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            '^' | ':' | '.' => '-',
            _ => '_',
        })
        .collect()
}

/// Writes every circuit and its sidecar into `dir` (created if missing), then says what was
/// written.
pub fn write_files(dir: &Path, circuits: &[Circuit], per_move: bool, json: bool) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating the output directory {}", dir.display()))?;
    let mut written = Vec::new();
    for circuit in circuits {
        let stem = circuit.stem(per_move);
        let circuit_path = dir.join(format!("{stem}.{}", circuit.format.extension()));
        let sidecar_path = dir.join(format!("{stem}.json"));
        write(&circuit_path, &circuit.rendered.text())?;
        write(&sidecar_path, &format!("{}\n", circuit.sidecar.to_json_pretty()))?;
        written.push((circuit, circuit_path, sidecar_path));
    }
    let text = if json {
        let files: Vec<FileJson<'_>> = written
            .iter()
            .map(|(circuit, circuit_path, sidecar_path)| {
                let listed = circuit.json(per_move);
                FileJson {
                    ply: listed.ply,
                    mv: listed.mv,
                    circuit: circuit_path.display().to_string(),
                    sidecar: sidecar_path.display().to_string(),
                }
            })
            .collect();
        format!("{}\n", serde_json::json!({"out": dir.display().to_string(), "files": files}))
    } else {
        written
            .iter()
            .map(|(_, circuit_path, sidecar_path)| {
                format!("wrote {} and {}\n", circuit_path.display(), sidecar_path.display())
            })
            .collect()
    };
    print(&text)
}

fn write(path: &PathBuf, contents: &str) -> Result<()> {
    std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))
}

/// One JSON document: the circuit, or a list of them per move.
pub fn print_json(circuits: &[Circuit], per_move: bool) -> Result<()> {
    let text = if per_move {
        serde_json::to_string(&circuits.iter().map(|c| c.json(true)).collect::<Vec<_>>())?
    } else {
        let circuit = circuits.first().context("no circuit was made")?;
        serde_json::to_string(&circuit.json(false))?
    };
    print(&format!("{text}\n"))
}

/// The program text; per move, each program after a `// move N: MOVE` line (OpenQASM) or each
/// IonQ circuit on one line.
pub fn print_text(circuits: &[Circuit], per_move: bool) -> Result<()> {
    let mut text = String::new();
    for circuit in circuits {
        match (&circuit.rendered, &circuit.last_move) {
            (Rendered::Ionq(ionq), _) if per_move => {
                text.push_str(&serde_json::to_string(ionq)?);
                text.push('\n');
            }
            (Rendered::Qasm(program), Some((ply, mv))) if per_move => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&format!("// move {ply}: {mv}\n{program}"));
            }
            (rendered, _) => text.push_str(&rendered.text()),
        }
    }
    print(&text)
}
