//! Medians of the routing workload's rows, ours and Qiskit's, as JSON and as a line of text.

use std::time::Duration;

use serde_json::{Value, json};

use super::Routed;
use super::qiskit::Theirs;

/// The median of sorted durations.
pub(super) fn median_duration(sorted: &[Duration]) -> Duration {
    match sorted.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

/// The median of `values` (0 when empty).
pub(super) fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// Medians of one group of rows: see the [module docs](self).
pub(super) fn summarise(rows: &[(&Routed, Option<Theirs>)]) -> (Value, String) {
    let ours = |f: fn(&Routed) -> f64| median(rows.iter().map(|(r, _)| f(r)).collect());
    let (two, depth, ms) = (ours(|r| r.two_qubit_gates as f64), ours(|r| r.depth as f64), ours(|r| r.millis));
    let esp = ours(|r| r.esp);
    let broken = rows.iter().filter(|(r, _)| r.broken > 0).count();
    let mut figures = json!({
        "circuits": rows.len(),
        "qubits": [rows.iter().map(|(r, _)| r.qubits).min(), rows.iter().map(|(r, _)| r.qubits).max()],
        "median_esp": esp,
        "median_two_qubit_gates": two,
        "median_depth": depth,
        "median_compile_ms": ms,
        "circuits_on_broken_elements": broken,
    });
    let theirs: Vec<(&Routed, Theirs)> = rows.iter().filter_map(|(r, t)| t.map(|t| (*r, t))).collect();
    if theirs.len() != rows.len() || rows.is_empty() {
        let line = format!(
            "{} circuits: ESP {esp:.4}, {two} two-qubit gates, depth {depth}, {ms:.2} ms (medians); {broken} on broken elements",
            rows.len()
        );
        return (figures, line);
    }
    let qiskit = |f: fn(&Theirs) -> f64| median(theirs.iter().map(|(_, t)| f(t)).collect());
    let ratios = |f: fn(&Routed) -> f64, g: fn(&Theirs) -> f64| -> Vec<f64> {
        theirs.iter().map(|(r, t)| f(r) / g(t).max(f64::MIN_POSITIVE)).collect()
    };
    let (their_two, their_depth, their_ms) = (qiskit(|t| t.two_qubit_gates), qiskit(|t| t.depth), qiskit(|t| t.millis));
    let their_esp = qiskit(|t| t.esp);
    let their_broken = theirs.iter().filter(|(_, t)| t.broken > 0.0).count();
    let esp_ratios = ratios(|r| r.esp, |t| t.esp);
    let least_esp_ratio = esp_ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let esp_ratio = median(esp_ratios);
    let two_ratio = median(ratios(|r| r.two_qubit_gates as f64, |t| t.two_qubit_gates));
    let depth_ratio = median(ratios(|r| r.depth as f64, |t| t.depth));
    let speedups: Vec<f64> = theirs.iter().map(|(r, t)| t.millis / r.millis.max(1e-6)).collect();
    let min_speedup = speedups.iter().copied().fold(f64::INFINITY, f64::min);
    let speedup = median(speedups);
    figures["qiskit"] = json!({
        "median_esp": their_esp,
        "median_two_qubit_gates": their_two,
        "median_depth": their_depth,
        "median_compile_ms": their_ms,
        "circuits_on_broken_elements": their_broken,
        "median_ratio_esp": esp_ratio,
        "min_ratio_esp": least_esp_ratio,
        "median_ratio_two_qubit_gates": two_ratio,
        "median_ratio_depth": depth_ratio,
        "median_speedup": speedup,
        "min_speedup": min_speedup,
    });
    let line = format!(
        "{} circuits, ours vs Qiskit O3 (medians): ESP {esp:.4} vs {their_esp:.4} (ratio {esp_ratio:.3}, least \
         {least_esp_ratio:.3}), two-qubit gates {two} vs {their_two} (ratio {two_ratio:.3}), depth {depth} vs \
         {their_depth} (ratio {depth_ratio:.3}), {ms:.2} ms vs {their_ms:.0} ms (speed-up {speedup:.0}x, least \
         {min_speedup:.0}x); on broken elements: {broken} vs {their_broken} circuits",
        rows.len()
    );
    (figures, line)
}
