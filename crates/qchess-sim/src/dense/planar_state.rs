//! A state kept in the planar layout for a whole run: created in it, read in it.
//!
//! Runs that need no trajectory (every measurement final) use it in both precisions: `|0...0>`
//! is planar as allocated, the passes work on it in place, and the result (probabilities,
//! samples) is read from the planar chunks directly, so no pass reorders the amplitudes. A
//! state of fewer than three qubits fills one chunk, its other lanes zero: blocks on its qubits
//! never mix them in.

use std::time::Instant;

use num_complex::Complex64;
use pulp::Arch;
use qchess_circuit::ir::Gate;
use rand_chacha::ChaCha8Rng;

use super::accelerated::Acceleration;
use super::block_kernel::Real;
use super::buffer::Buffer;
use super::error::{DenseError, state_bytes};
use super::planar;
use super::planar_kernel::{CHUNK, CHUNK_BITS};
use super::profile::RunProfile;
use super::sampling::{Matcher, sorted_draws};
use super::schedule::{self, Pass};
use super::state::{DenseState, Limits};
use super::tiled::TiledPass;
use super::workers;
use crate::deadline::Deadline;

/// Amplitudes per part of the sums that sampling matches draws against: fixed, so that samples
/// do not depend on the thread count.
const PART: usize = 1 << 16;

/// Amplitudes per block whose weights sampling sums at once (eight chunks): a block holding no
/// draw is passed over by its sum.
const BLOCK: usize = 64;

/// Values (real and imaginary parts) of a [`BLOCK`] in the planar layout.
const BLOCK_VALUES: usize = BLOCK / CHUNK * 2 * CHUNK;

/// Qubits a planar state is allocated with at least: two chunks, so that a block inside one
/// chunk can be paired with the identity on the next chunk bit.
const MIN_QUBITS: usize = CHUNK_BITS + 1;

/// A state of `qubits` qubits in the planar layout, in precision `T`.
pub(crate) struct PlanarState<T> {
    qubits: usize,
    buffer: Buffer<T>,
}

impl<T: Real> PlanarState<T> {
    /// `|0...0>` on `qubits` qubits, after checking `limits` and the memory available.
    pub(crate) fn zero(qubits: usize, limits: &Limits) -> Result<PlanarState<T>, DenseError> {
        limits.check(qubits)?;
        let bytes = state_bytes(qubits) / (16 / (2 * std::mem::size_of::<T>())) as u128;
        super::memory::check_available(bytes, qubits)?;
        let chunks = 1usize << (qubits.max(MIN_QUBITS) - CHUNK_BITS);
        let mut buffer = Buffer::zeroed(chunks * 2 * CHUNK).ok_or(DenseError::OutOfMemory { qubits })?;
        buffer.values_mut()[0] = T::from_f64(1.0);
        Ok(PlanarState { qubits, buffer })
    }

    /// Applies `gates` (checked), fused and grouped into passes by the cost model, adding the
    /// time it planned and ran and the passes it made to `profile`.
    pub(crate) fn run(
        &mut self,
        gates: &[Gate],
        acceleration: &Acceleration,
        deadline: &Deadline,
        profile: &mut RunProfile,
    ) -> Result<(), DenseError> {
        if gates.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        let qubits = self.qubits.max(MIN_QUBITS);
        let costs = schedule::costs::<T>();
        let plan = schedule::plan(gates, qubits, acceleration.max_fused_qubits, &costs);
        let passes: Vec<Prepared<T>> = plan.passes.iter().map(prepare).collect();
        profile.plan += started.elapsed();
        let started = Instant::now();
        let arch = Arch::new();
        for (pass, prepared) in plan.passes.iter().zip(&passes) {
            deadline.check()?;
            match prepared {
                Prepared::Single(block) => {
                    planar::apply_with(arch, self.buffer.values_mut(), block, acceleration.threads)
                }
                Prepared::Tiled(tiled) => tiled.apply(arch, self.buffer.values_mut(), acceleration.threads),
            }
            profile.passes += 1;
            for block in pass.blocks() {
                profile.blocks += 1;
                let width = block.qubits.len().max(1);
                if profile.block_widths.len() < width {
                    profile.block_widths.resize(width, 0);
                }
                profile.block_widths[width - 1] += 1;
            }
        }
        profile.simulate += started.elapsed();
        Ok(())
    }

    /// The squared magnitudes of the amplitudes, in basis-state order.
    fn weights(planes: &[T]) -> impl DoubleEndedIterator<Item = f64> + '_ {
        planes.chunks_exact(2 * CHUNK).flat_map(|chunk| {
            let (re, im) = chunk.split_at(CHUNK);
            re.iter().zip(im).map(|(&r, &i)| {
                let (r, i) = (r.to_f64(), i.to_f64());
                r * r + i * i
            })
        })
    }

    /// Zeroes the amplitudes whose qubit `qubit` is not `value` (a post-selection, not
    /// renormalised).
    pub(crate) fn project(&mut self, qubit: usize, value: bool) {
        let zero = T::default();
        for (c, chunk) in self.buffer.values_mut().chunks_exact_mut(2 * CHUNK).enumerate() {
            for j in 0..CHUNK {
                let index = c * CHUNK + j;
                if (index >> qubit & 1 == 1) != value {
                    chunk[j] = zero;
                    chunk[CHUNK + j] = zero;
                }
            }
        }
    }

    /// The squared magnitude of every basis state.
    pub(crate) fn probabilities(&self) -> Vec<f64> {
        Self::weights(self.buffer.values()).take(1 << self.qubits).collect()
    }

    /// The sum of the weights of `planes` (at most a [`BLOCK`]), in eight independent sums so
    /// that the loop is vectorised.
    fn block_sum(planes: &[T]) -> f64 {
        let mut sums = [0.0f64; CHUNK];
        for chunk in planes.chunks_exact(2 * CHUNK) {
            let (re, im) = chunk.split_at(CHUNK);
            for ((sum, &r), &i) in sums.iter_mut().zip(re).zip(im) {
                let (r, i) = (r.to_f64(), i.to_f64());
                *sum += r * r + i * i;
            }
        }
        sums.iter().sum()
    }

    /// The sum of the weights of a part: its blocks' sums, in order.
    fn part_sum(part: &[T]) -> f64 {
        part.chunks(BLOCK_VALUES).map(Self::block_sum).sum()
    }

    /// Matches `draws` (offsets into the part's cumulative sum) against the part starting at
    /// amplitude `first`, passing over the blocks that hold none.
    fn count_part_draws(part: &[T], first: usize, draws: &[f64]) -> Vec<(usize, u64)> {
        let mut matcher = Matcher::new(draws);
        for (b, block) in part.chunks(BLOCK_VALUES).enumerate() {
            if matcher.done() {
                break;
            }
            let sum = Self::block_sum(block);
            if sum == 0.0 {
                continue;
            }
            let start = first + b * BLOCK;
            if matcher.passes(sum) {
                // Only the last state of nonzero weight is wanted (for draws rounding leaves over).
                let from_end = Self::weights(block).rev().position(|w| w != 0.0).unwrap_or(0);
                matcher.pass(sum, start + block.len() / 2 - 1 - from_end);
                continue;
            }
            for (index, weight) in Self::weights(block).enumerate() {
                matcher.add(start + index, weight);
            }
        }
        matcher.finish()
    }

    /// The sum of the weights of each part of [`PART`] amplitudes, on up to `threads` threads.
    fn part_sums(&self, threads: usize) -> Vec<f64> {
        let planes = self.buffer.values();
        let part_values = PART / CHUNK * 2 * CHUNK;
        let parts: Vec<&[T]> = planes.chunks(part_values).collect();
        let mut sums = vec![0.0; parts.len()];
        let per_thread = parts.len().div_ceil(threads.max(1)).max(1);
        let shares: Vec<_> = sums.chunks_mut(per_thread).zip(parts.chunks(per_thread)).collect();
        workers::for_each(threads, shares, |(sums, parts)| {
            for (sum, part) in sums.iter_mut().zip(parts) {
                *sum = Self::part_sum(part);
            }
        });
        sums
    }

    /// The squared norm (the post-selection probability after projections), and `shots` basis
    /// states drawn from the weights with `rng`, as `(index, hits)` in index order; `None` when
    /// the norm is negligible. Each thread matches the draws that fall in its parts.
    pub(crate) fn sample(
        &self,
        shots: u64,
        rng: &mut ChaCha8Rng,
        threads: usize,
        negligible: f64,
    ) -> Option<(f64, Vec<(usize, u64)>)> {
        let sums = self.part_sums(threads);
        let total: f64 = sums.iter().sum();
        if total < negligible {
            return None;
        }
        let draws = sorted_draws(shots, total, rng);
        // The draws of each part, as offsets into it.
        let mut starts = Vec::with_capacity(sums.len());
        let mut offset = 0.0;
        let mut taken = 0usize;
        let last = sums.iter().rposition(|&s| s > 0.0).unwrap_or(0);
        for (p, &sum) in sums.iter().enumerate() {
            let end =
                if p == last { draws.len() } else { taken + draws[taken..].partition_point(|&d| d < offset + sum) };
            starts.push((offset, taken..end));
            taken = end;
            offset += sum;
        }
        let planes = self.buffer.values();
        let part_values = PART / CHUNK * 2 * CHUNK;
        let parts: Vec<(usize, &[T])> = planes.chunks(part_values).enumerate().collect();
        let per_thread = parts.len().div_ceil(threads.max(1)).max(1);
        let mut found: Vec<Vec<(usize, u64)>> = vec![Vec::new(); parts.len().div_ceil(per_thread)];
        let shares: Vec<_> = found.iter_mut().zip(parts.chunks(per_thread)).collect();
        workers::for_each(threads, shares, |(found, parts)| {
            for &(p, part) in parts {
                let (offset, range) = &starts[p];
                if range.is_empty() {
                    continue;
                }
                let local: Vec<f64> = draws[range.clone()].iter().map(|d| d - offset).collect();
                found.extend(Self::count_part_draws(part, p * PART, &local));
            }
        });
        let hits: Vec<(usize, u64)> = found.into_iter().flatten().filter(|&(i, _)| i < 1 << self.qubits).collect();
        Some((total, hits))
    }
}

/// A pass prepared for the kernels.
enum Prepared<T> {
    Single(planar::Prepared<T>),
    Tiled(TiledPass<T>),
}

fn prepare<T: Real>(pass: &Pass) -> Prepared<T> {
    match pass {
        Pass::Single(block) => Prepared::Single(planar::Prepared::new(block)),
        Pass::Tiled { tile_bits, blocks } => Prepared::Tiled(TiledPass::new(blocks, *tile_bits)),
    }
}

impl PlanarState<f64> {
    /// The state as interleaved complex amplitudes.
    pub(crate) fn into_dense(self) -> Result<DenseState, DenseError> {
        let planes = self.buffer.values();
        let mut amplitudes = Vec::new();
        amplitudes.try_reserve_exact(1 << self.qubits).map_err(|_| DenseError::OutOfMemory { qubits: self.qubits })?;
        for chunk in planes.chunks_exact(2 * CHUNK) {
            let (re, im) = chunk.split_at(CHUNK);
            amplitudes.extend(re.iter().zip(im).map(|(&r, &i)| Complex64::new(r, i)));
        }
        amplitudes.truncate(1 << self.qubits);
        DenseState::from_amplitudes(amplitudes)
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::super::sampling::count_draws;
    use super::*;

    /// Passing over blocks by their sums lands every draw where matching state by state does:
    /// runs of zero weight, blocks of one nonzero state, draws past the total by rounding.
    #[test]
    fn draws_matched_block_by_block_land_as_state_by_state() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        for trial in 0..20 {
            let amplitudes = 1usize << 12;
            let mut planes: Vec<f64> = (0..2 * amplitudes).map(|_| rng.random::<f64>() - 0.5).collect();
            for chunk in planes.chunks_exact_mut(2 * CHUNK) {
                match rng.random_range(0..4) {
                    0 => chunk.fill(0.0),
                    1 => chunk.iter_mut().skip(1).filter(|_| rng.random::<bool>()).for_each(|x| *x = 0.0),
                    _ => {}
                }
            }
            let weights = || PlanarState::<f64>::weights(&planes);
            let total: f64 = weights().sum();
            let mut draws: Vec<f64> = (0..rng.random_range(1..300)).map(|_| rng.random::<f64>() * total).collect();
            if trial % 2 == 0 {
                draws.push(total * 1.0001);
            }
            draws.sort_unstable_by(f64::total_cmp);
            let blocked = PlanarState::<f64>::count_part_draws(&planes, 100, &draws);
            assert_eq!(blocked, count_draws(weights(), 100, &draws), "trial {trial}");
            assert_eq!(blocked.iter().map(|(_, hits)| hits).sum::<u64>(), draws.len() as u64);
        }
    }
}
