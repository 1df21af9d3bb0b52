//! Fits the evaluation weights to the games in a directory (`qchess match --save DIR`):
//! `tune_weights DIR [STEPS] [RATE] [FREE]`, FREE naming the weights to fit by their index in
//! `Weights::to_vector` (`0,1,6`; all by default). Every fifth game (by file name order) is the
//! test set.
//! Prints the error of the default weights and of the fitted ones on both sets, and the fitted
//! weights. See `qchess_search::tune` and `scripts/tune-eval.sh`.
use std::path::PathBuf;

use qchess_engine::record::GameRecord;
use qchess_search::Weights;
use qchess_search::eval::TERMS;
use qchess_search::tune::{Sample, error, fit_scale, fit_some, is_test_game, samples};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().ok_or("usage: tune_weights DIR [STEPS] [RATE] [FREE]")?);
    let steps: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(2000);
    let rate: f64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(0.002);
    let mut free = [true; TERMS];
    if let Some(list) = args.next() {
        free = [false; TERMS];
        for index in list.split(',') {
            let index: usize = index.trim().parse()?;
            *free
                .get_mut(index)
                .ok_or(format!("weight index {index}: the weights are numbered 0 to {}", TERMS - 1))? = true;
        }
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "pgn"))
        .collect();
    files.sort();
    let (mut train, mut test): (Vec<Sample>, Vec<Sample>) = (Vec::new(), Vec::new());
    for (index, path) in files.iter().enumerate() {
        let record = GameRecord::load(path)?;
        let found = samples(&record).map_err(|e| format!("{}: {e}", path.display()))?;
        if is_test_game(index) { test.extend(found) } else { train.extend(found) }
    }
    println!("{} games: {} training positions, {} test positions", files.len(), train.len(), test.len());
    let start = Weights::default();
    let k = fit_scale(&train, &start);
    println!("scale k = {k:.4}");
    println!(
        "default weights: training error {:.6}, test error {:.6}",
        error(&train, &start, k),
        error(&test, &start, k)
    );
    let fitted = fit_some(&train, &start, k, steps, rate, &free);
    println!(
        "fitted weights:  training error {:.6}, test error {:.6}",
        error(&train, &fitted, k),
        error(&test, &fitted, k)
    );
    println!("{fitted:#?}");
    Ok(())
}
