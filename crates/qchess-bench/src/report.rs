//! The figures of a benchmark run: JSON (the `qchess bench --json` contract) and a text table.

use serde::Serialize;
use serde_json::Value;

use crate::stats::Summary;

/// Every workload's figures and the machine they were measured on.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// CPU model, logical CPUs and memory.
    pub machine: String,
    /// One entry per workload, in the order they ran.
    pub workloads: Vec<WorkloadReport>,
}

/// The figures of one workload. Fields that do not apply to it are `None` (JSON `null`).
#[derive(Debug, Clone, Serialize)]
pub struct WorkloadReport {
    /// The workload's name (`fixed`, `random-default`, ...).
    pub name: String,
    /// Timed operations: moves, or gates for the dense workload.
    pub moves: Option<u64>,
    /// Median time of one move, in microseconds.
    pub median_move_us: Option<f64>,
    /// 99th percentile of the move time, in microseconds.
    pub p99_move_us: Option<f64>,
    /// The slowest move, in microseconds.
    pub max_move_us: Option<f64>,
    /// Games (or fixed sequences) completed per second of wall time.
    pub games_per_s: Option<f64>,
    /// The most basis states a quantum state held.
    pub peak_states: Option<u64>,
    /// Memory of the state per basis state at the peak, in bytes.
    pub bytes_per_state: Option<f64>,
    /// Peak resident memory of the process while the workload ran, in MiB.
    pub peak_rss_mb: Option<f64>,
    /// Wall time of the whole workload, checks included, in seconds.
    pub seconds: f64,
    /// Workload-specific figures (cross-checks, growth steps, bandwidth).
    pub details: Value,
}

impl WorkloadReport {
    /// A report with only a name; the runner fills in what applies.
    pub(crate) fn named(name: &str) -> WorkloadReport {
        WorkloadReport {
            name: name.to_owned(),
            moves: None,
            median_move_us: None,
            p99_move_us: None,
            max_move_us: None,
            games_per_s: None,
            peak_states: None,
            bytes_per_state: None,
            peak_rss_mb: None,
            seconds: 0.0,
            details: Value::Null,
        }
    }

    /// Fills in the move count and time figures.
    pub(crate) fn with_summary(mut self, summary: Option<Summary>) -> WorkloadReport {
        if let Some(summary) = summary {
            self.moves = Some(summary.count);
            self.median_move_us = Some(summary.median_us);
            self.p99_move_us = Some(summary.p99_us);
            self.max_move_us = Some(summary.max_us);
        }
        self
    }
}

impl BenchReport {
    /// The report as a table, one row per workload, then each workload's details.
    pub fn to_table(&self) -> String {
        let header =
            ["workload", "moves", "median us", "p99 us", "max us", "games/s", "peak states", "B/state", "RSS MiB"];
        let mut rows: Vec<[String; 9]> = vec![header.map(str::to_owned)];
        for w in &self.workloads {
            rows.push([
                w.name.clone(),
                w.moves.map_or_else(dash, |n| n.to_string()),
                w.median_move_us.map_or_else(dash, |v| format!("{v:.2}")),
                w.p99_move_us.map_or_else(dash, |v| format!("{v:.2}")),
                w.max_move_us.map_or_else(dash, |v| format!("{v:.1}")),
                w.games_per_s.map_or_else(dash, |v| format!("{v:.0}")),
                w.peak_states.map_or_else(dash, |n| n.to_string()),
                w.bytes_per_state.map_or_else(dash, |v| format!("{v:.1}")),
                w.peak_rss_mb.map_or_else(dash, |v| format!("{v:.1}")),
            ]);
        }
        let widths: Vec<usize> =
            (0..header.len()).map(|c| rows.iter().map(|r| r[c].len()).max().unwrap_or(0)).collect();
        let mut text = format!("machine: {}\n\n", self.machine);
        for row in &rows {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(c, (cell, &width))| if c == 0 { format!("{cell:<width$}") } else { format!("{cell:>width$}") })
                .collect();
            text.push_str(cells.join("  ").trim_end());
            text.push('\n');
        }
        for w in &self.workloads {
            text.push_str(&format!("\n{} ({:.2} s)\n", w.name, w.seconds));
            if let Value::Object(details) = &w.details {
                for (key, value) in details {
                    text.push_str(&format!("  {key}: {}\n", compact(value)));
                }
            }
        }
        text
    }
}

fn dash() -> String {
    "-".to_owned()
}

/// A detail value on one line: strings without quotes, the rest as JSON.
fn compact(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fields_serialise_as_null_and_print_as_dashes() {
        let mut report = WorkloadReport::named("dense");
        report.details = serde_json::json!({ "note": "bandwidth floor", "ratio": 1.2 });
        let bench = BenchReport { machine: "test machine".to_owned(), workloads: vec![report] };
        let json = serde_json::to_value(&bench).expect("serialises");
        assert_eq!(json["workloads"][0]["median_move_us"], Value::Null);
        assert_eq!(json["workloads"][0]["name"], "dense");
        let table = bench.to_table();
        assert!(table.starts_with("machine: test machine\n"), "{table}");
        assert!(table.contains("\ndense         -          -"), "{table}");
        assert!(table.contains("  note: bandwidth floor\n  ratio: 1.2\n"), "{table}");
    }
}
