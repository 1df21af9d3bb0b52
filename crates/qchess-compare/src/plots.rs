//! SVG plots of a comparison (plotters, SVG backend only): for every tested step, each
//! square's (bit's) probability on both backends side by side, with 95% error bars for
//! sampled sides, and a histogram of the most likely outcomes on both; for every game, the
//! squares of its final position.
//!
//! Files are `<item>-<step>-squares.svg`, `<item>-<step>-outcomes.svg` and
//! `<item>-final-squares.svg`, with the item's name reduced to letters, digits and `-`.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::CompareError;
use crate::game::KeyKind;
use crate::observation::Observation;
use crate::report::{Difference, ItemReport, Report, StepReport};

/// Backend A's colour (blue) and backend B's (orange).
const COLOR_A: RGBColor = RGBColor(31, 119, 180);
const COLOR_B: RGBColor = RGBColor(255, 127, 14);

/// Outcomes shown in a histogram.
const SHOWN_OUTCOMES: usize = 16;

/// One group of two bars.
struct Bars {
    label: String,
    a: f64,
    b: f64,
    /// Half-widths of the 95% intervals of sampled sides.
    a_error: Option<f64>,
    b_error: Option<f64>,
}

/// Writes every plot of `report` into `dir` (created if needed) and returns the files.
pub fn write_plots(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, CompareError> {
    std::fs::create_dir_all(dir).map_err(|e| CompareError::Plot { path: dir.to_owned(), reason: e.to_string() })?;
    let mut written = Vec::new();
    for item in &report.items {
        let slug = slug(&item.name);
        let shown = Path::new(&item.name).file_name().and_then(|n| n.to_str()).unwrap_or(&item.name);
        for step in item.steps.iter().filter(|s| s.adjusted_p_value.is_some()) {
            let (Some(a), Some(b)) = (&step.a, &step.b) else { continue };
            let title = format!("{shown}, step {} ({}): ", step.index, step.label);
            let squares = dir.join(format!("{slug}-{:03}-squares.svg", step.index));
            draw_bars(
                &squares,
                &format!("{title}probability of each {}", unit(item)),
                &square_bars(step, a, b),
                report,
            )?;
            written.push(squares);
            let outcomes = dir.join(format!("{slug}-{:03}-outcomes.svg", step.index));
            draw_bars(&outcomes, &format!("{title}most likely outcomes"), &outcome_bars(item, step, a, b), report)?;
            written.push(outcomes);
        }
        if item.kind == "game"
            && let Some(step) = item.steps.iter().rev().find(|s| s.a.is_some() && s.b.is_some())
            && let (Some(a), Some(b)) = (&step.a, &step.b)
        {
            let path = dir.join(format!("{slug}-final-squares.svg"));
            let title = format!("{shown}, final position after step {}: probability of each square", step.index);
            draw_bars(&path, &title, &square_bars(step, a, b), report)?;
            written.push(path);
        }
    }
    Ok(written)
}

fn unit(item: &ItemReport) -> &'static str {
    if item.kind == "game" { "square" } else { "bit" }
}

/// The item's name as a file name part.
pub fn slug(name: &str) -> String {
    let base = Path::new(name).file_stem().and_then(|s| s.to_str()).unwrap_or(name);
    let mut out: String = base.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    out.truncate(60);
    if out.is_empty() { "item".to_owned() } else { out }
}

/// A 95% half-width for a sampled probability.
fn error_of(observation: &Observation, p: f64) -> Option<f64> {
    observation.shots().map(|n| 1.96 * (p * (1.0 - p) / n as f64).sqrt())
}

fn square_bars(step: &StepReport, a: &Observation, b: &Observation) -> Vec<Bars> {
    // Squares that are uncertain on either side or differ; a classical position shows its
    // occupied squares instead.
    let uncertain = |p: f64| p > 0.0 && p < 1.0;
    let mut shown: Vec<&Difference> =
        step.differences.iter().filter(|d| uncertain(d.a) || uncertain(d.b) || d.difference != 0.0).collect();
    if shown.is_empty() {
        shown = step.differences.iter().collect();
    }
    shown.truncate(32);
    // Board order (a1, b1, ...) reads better than "most different first" in a chart.
    shown.sort_by_key(|d| square_order(&d.name));
    shown
        .into_iter()
        .map(|d| Bars { label: d.name.clone(), a: d.a, b: d.b, a_error: error_of(a, d.a), b_error: error_of(b, d.b) })
        .collect()
}

/// Squares sort by index (a1 first), bits by number.
fn square_order(name: &str) -> usize {
    if let Some(bit) = name.strip_prefix("bit ") {
        return bit.parse().unwrap_or(usize::MAX);
    }
    name.parse::<qchess_core::Square>().map_or(usize::MAX, usize::from)
}

/// Bits that vary in either observation: outcomes are labelled by them.
fn varying_bits(a: &Observation, b: &Observation) -> u64 {
    let keys: Vec<u64> = a.keys().into_iter().chain(b.keys()).collect();
    let all = keys.iter().fold(0u64, |acc, k| acc | k);
    let common = keys.iter().fold(u64::MAX, |acc, k| acc & k);
    all & !common
}

fn outcome_label(item: &ItemReport, key: u64, varying: u64) -> String {
    match item.keys() {
        KeyKind::Boards => {
            let squares: Vec<String> = (0..64)
                .filter(|bit| varying >> bit & 1 == 1 && key >> bit & 1 == 1)
                .map(|bit| qchess_core::Square::ALL[bit].to_string())
                .collect();
            if squares.is_empty() { "none".to_owned() } else { squares.join(" ") }
        }
        KeyKind::Bits(width) => (0..width.max(1)).rev().map(|i| if key >> i & 1 == 1 { '1' } else { '0' }).collect(),
    }
}

fn outcome_bars(item: &ItemReport, _step: &StepReport, a: &Observation, b: &Observation) -> Vec<Bars> {
    let mut keys: Vec<u64> = a.keys().into_iter().chain(b.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.sort_by(|x, y| {
        let weight = |k: &u64| a.probability(*k).max(b.probability(*k));
        weight(y).total_cmp(&weight(x)).then(x.cmp(y))
    });
    keys.truncate(SHOWN_OUTCOMES);
    let varying = varying_bits(a, b);
    keys.into_iter()
        .map(|key| {
            let (pa, pb) = (a.probability(key), b.probability(key));
            Bars {
                label: outcome_label(item, key, varying),
                a: pa,
                b: pb,
                a_error: error_of(a, pa),
                b_error: error_of(b, pb),
            }
        })
        .collect()
}

fn plot_error(path: &Path, error: impl std::fmt::Display) -> CompareError {
    CompareError::Plot { path: path.to_owned(), reason: error.to_string() }
}

/// Draws grouped bars (A left, B right) with error bars and a legend.
fn draw_bars(path: &Path, title: &str, bars: &[Bars], report: &Report) -> Result<(), CompareError> {
    let groups = bars.len().max(1);
    let width = (120 + 56 * groups).clamp(640, 4000) as u32;
    let root = SVGBackend::new(path, (width, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(64)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..groups as f64, 0f64..1.3f64)
        .map_err(|e| plot_error(path, e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .x_labels(0)
        .y_desc("probability")
        .y_labels(14)
        .draw()
        .map_err(|e| plot_error(path, e))?;
    let bar = |index: usize, offset: f64, value: f64, color: RGBColor| {
        let left = index as f64 + offset;
        Rectangle::new([(left, 0.0), (left + 0.38, value)], color.filled())
    };
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| bar(i, 0.1, b.a, COLOR_A)))
        .map_err(|e| plot_error(path, e))?
        .label(report.backend.clone())
        .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], COLOR_A.filled()));
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| bar(i, 0.52, b.b, COLOR_B)))
        .map_err(|e| plot_error(path, e))?
        .label(report.vs.clone())
        .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], COLOR_B.filled()));
    let whiskers = bars.iter().enumerate().flat_map(|(i, b)| {
        [(0.29, b.a, b.a_error), (0.71, b.b, b.b_error)].into_iter().filter_map(move |(offset, value, error)| {
            let error = error.filter(|e| *e > 0.0)?;
            let x = i as f64 + offset;
            let (low, high) = ((value - error).max(0.0), (value + error).min(1.0));
            Some(PathElement::new(vec![(x, low), (x, high)], BLACK.stroke_width(1)))
        })
    });
    chart.draw_series(whiskers).map_err(|e| plot_error(path, e))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| plot_error(path, e))?;
    // Group labels, centred under each pair of bars.
    let style = TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, b) in bars.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        root.draw(&Text::new(b.label.clone(), (x, y + 8), style.clone())).map_err(|e| plot_error(path, e))?;
    }
    root.present().map_err(|e| plot_error(path, e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_and_orders() {
        assert_eq!(slug("examples/official-split-merge.pgn"), "official-split-merge");
        assert_eq!(slug("a b/c d.qasm"), "c-d");
        assert_eq!(slug(""), "item");
        assert_eq!(square_order("a1"), 0);
        assert_eq!(square_order("b5"), 33);
        assert_eq!(square_order("bit 3"), 3);
    }

    #[test]
    fn varying_bits_label_outcomes() {
        let a = Observation::exact([(0b0101, 0.5), (0b0110, 0.5)]).expect("valid");
        let b = Observation::certainly(0b0101);
        assert_eq!(varying_bits(&a, &b), 0b0011);
    }
}
