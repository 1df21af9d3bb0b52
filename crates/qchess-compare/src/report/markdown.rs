//! The Markdown summary of a [`Report`]: the verdict, one table row per step, and for each
//! disagreement the squares (or bits) that differ most.

use std::fmt::Write as _;

use super::{Difference, ItemReport, Report, StepReport, outcome_differences};
use crate::stats::distance::Estimate;
use crate::stats::pair::Method;

/// Squares (bits) named for each disagreement.
const NAMED_DIFFERENCES: usize = 4;

/// A p-value for people: 4 decimals, scientific below 1e-4, `0` when it is 0.
pub fn p_value(p: f64) -> String {
    if p == 0.0 {
        "0".to_owned()
    } else if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

fn estimate(e: &Estimate, decimals: usize) -> String {
    if !e.value.is_finite() {
        return "–".to_owned();
    }
    if e.low == e.high {
        return format!("{:.decimals$}", e.value);
    }
    format!("{:.decimals$} [{:.decimals$}, {:.decimals$}]", e.value, e.low, e.high)
}

fn difference(d: &Difference) -> String {
    let z = match d.z {
        Some(z) if z.is_finite() => format!(", z = {z:.1}"),
        Some(_) => ", z = ∞".to_owned(),
        None => String::new(),
    };
    format!("{} {:.3} vs {:.3}{z}", d.name, d.a, d.b)
}

/// The squares (bits) whose probabilities differ most, in words; when every square agrees on
/// its own, the whole outcomes that differ most.
pub fn most_different(item: &ItemReport, step: &StepReport) -> String {
    let named: Vec<String> =
        step.differences.iter().filter(|d| d.difference != 0.0).take(NAMED_DIFFERENCES).map(difference).collect();
    if !named.is_empty() {
        return named.join("; ");
    }
    let outcomes = match (&step.a, &step.b) {
        (Some(a), Some(b)) => outcome_differences(a, b, item.keys()),
        _ => Vec::new(),
    };
    if outcomes.is_empty() {
        return "no single square (bit) differs".to_owned();
    }
    let named: Vec<String> =
        outcomes.iter().take(NAMED_DIFFERENCES).map(|o| format!("{} {:.3} vs {:.3}", o.name, o.a, o.b)).collect();
    format!("every square (bit) agrees on its own, but together: {}", named.join("; "))
}

/// How many shots fell on outcomes the exact side calls impossible, in words.
fn outside_support(step: &StepReport) -> String {
    let shots: u64 = [&step.a, &step.b]
        .into_iter()
        .flatten()
        .filter(|o| !o.is_exact())
        .map(|o| {
            let shots = o.shots().unwrap_or(0) as f64;
            step.test.outside_support.iter().map(|&k| (o.probability(k) * shots).round() as u64).sum::<u64>()
        })
        .sum();
    let outcomes = step.test.outside_support.len();
    format!("{shots} shots fell on {outcomes} outcome(s) the exact backend gives probability 0")
}

/// Renders the report.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let s = &report.settings;
    let steps: usize = report.items.iter().map(|i| i.steps.len()).sum();
    let what = if report.items.iter().all(|i| i.kind == "circuit") { "circuits" } else { "games" };
    let _ = writeln!(out, "## qchess compare: `{}` vs `{}`\n", report.backend, report.vs);
    let verdict = if report.agree {
        format!("**Verdict: the backends agree.** No difference at α = {}", s.alpha)
    } else {
        format!(
            "**Verdict: the backends DISAGREE.** {} of {} tests rejected at α = {}",
            report.rejected, report.tests, s.alpha
        )
    };
    let _ = writeln!(
        out,
        "{verdict} (Holm-Bonferroni over {} tests). {} {what}, {steps} steps; {} shots per job before \
         post-selection, seed {}; intervals at {:.0}% by bootstrap.\n",
        report.tests,
        report.items.len(),
        s.shots,
        s.seed,
        s.pair.confidence * 100.0
    );
    let _ = writeln!(out, "| item | # | step | test | p | Holm p | TVD | fidelity | result |");
    let _ = writeln!(out, "|---|---:|---|---|---:|---:|---|---|---|");
    for item in &report.items {
        for step in &item.steps {
            let counted = step.adjusted_p_value.is_some();
            let result = if step.rejected {
                "**differs**"
            } else if step.note.is_some() {
                "stopped"
            } else {
                "ok"
            };
            let p = if counted { p_value(step.test.p_value) } else { "–".to_owned() };
            let adjusted = step.adjusted_p_value.map_or_else(|| "–".to_owned(), p_value);
            let test = match (step.test.method, step.test.df) {
                (Method::ChiSquaredFit | Method::ChiSquaredHomogeneity, Some(df)) => {
                    format!("{} ({df} df)", step.test.method.describe())
                }
                (method, _) => method.describe().to_owned(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | `{}` | {test} | {p} | {adjusted} | {} | {} | {result} |",
                item.name,
                step.index,
                step.label,
                estimate(&step.test.tvd, 3),
                estimate(&step.test.fidelity, 4),
            );
        }
    }
    let stopped: Vec<String> =
        report.items.iter().filter_map(|i| i.stopped.as_ref().map(|why| format!("- {}: {why}", i.name))).collect();
    if !stopped.is_empty() {
        let _ = writeln!(out, "\n### Stopped early\n\n{}", stopped.join("\n"));
    }
    let disagreements: Vec<String> = report
        .disagreements()
        .map(|(item, step)| {
            let mut line = format!(
                "- **{}, step {} `{}`** ({}): p = {}, Holm p = {}, TVD {}. Differs most: {}.",
                item.name,
                step.index,
                step.label,
                step.test.method.describe(),
                p_value(step.test.p_value),
                step.adjusted_p_value.map_or_else(|| "–".to_owned(), p_value),
                estimate(&step.test.tvd, 3),
                most_different(item, step)
            );
            if !step.test.outside_support.is_empty() {
                let _ = write!(line, " {}.", outside_support(step));
            }
            if let Some(note) = &step.note {
                let _ = write!(line, " {note}.");
            }
            line
        })
        .collect();
    if !disagreements.is_empty() {
        let _ = writeln!(out, "\n### Where they differ\n\n{}", disagreements.join("\n"));
    }
    if !report.plots.is_empty() {
        let _ = writeln!(out, "\nPlots: {} SVG files, for example `{}`.", report.plots.len(), report.plots[0]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_read_well() {
        assert_eq!(p_value(0.0), "0");
        assert_eq!(p_value(0.5), "0.5000");
        assert_eq!(p_value(1.25e-7), "1.2e-7");
        assert_eq!(estimate(&Estimate::exact(0.25), 3), "0.250");
        assert_eq!(estimate(&Estimate { value: 0.2, low: 0.1, high: 0.3 }, 1), "0.2 [0.1, 0.3]");
    }
}
