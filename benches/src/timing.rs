//! A small, criterion-independent timer for the ratio table: contenders are sampled in turns,
//! so a machine that slows down mid-run slows every contender alike and the ratio survives.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// One side of a comparison: a name and the work of one call.
pub struct Contender<'a> {
    pub name: &'static str,
    pub run: Box<dyn FnMut() + 'a>,
}

impl<'a> Contender<'a> {
    pub fn new<R>(name: &'static str, mut f: impl FnMut() -> R + 'a) -> Contender<'a> {
        Contender {
            name,
            run: Box::new(move || drop(black_box(f()))),
        }
    }
}

/// Median nanoseconds per call for each contender, in the order given.
///
/// Each sample runs one contender for about `sample` of wall time; `samples` rounds visit every
/// contender once per round.
pub fn medians(contenders: &mut [Contender<'_>], samples: usize, sample: Duration) -> Vec<f64> {
    let iters: Vec<u64> = contenders
        .iter_mut()
        .map(|c| {
            // Warm up, then size a sample from the fastest of three calls.
            let mut best = Duration::MAX;
            for _ in 0..3 {
                let start = Instant::now();
                (c.run)();
                best = best.min(start.elapsed());
            }
            (sample.as_nanos() / best.as_nanos().max(1)).clamp(1, 1_000_000) as u64
        })
        .collect();
    let mut per_call: Vec<Vec<f64>> = vec![Vec::with_capacity(samples); contenders.len()];
    for _ in 0..samples {
        for (i, c) in contenders.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..iters[i] {
                (c.run)();
            }
            per_call[i].push(start.elapsed().as_nanos() as f64 / iters[i] as f64);
        }
    }
    per_call.into_iter().map(median).collect()
}

/// Median nanoseconds of dropping a value that `make` builds (the building is not timed):
/// the share of a decode's time that freeing its result takes.
pub fn drop_median<T>(mut make: impl FnMut() -> T, samples: usize) -> f64 {
    let times = (0..samples.max(1))
        .map(|_| {
            let value = black_box(make());
            let start = Instant::now();
            drop(value);
            start.elapsed().as_nanos() as f64
        })
        .collect();
    median(times)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// The command line the ratio tools share: `--quick` for fewer, shorter samples, and an
/// optional filter that keeps the inputs whose name contains it.
pub struct RunArgs {
    pub quick: bool,
    pub filter: Option<String>,
}

impl RunArgs {
    /// The arguments of this process.
    pub fn from_env() -> RunArgs {
        RunArgs::parse(std::env::args().skip(1))
    }

    pub fn parse(args: impl IntoIterator<Item = String>) -> RunArgs {
        let mut parsed = RunArgs {
            quick: false,
            filter: None,
        };
        for arg in args {
            if arg == "--quick" {
                parsed.quick = true;
            } else if !arg.starts_with("--") && parsed.filter.is_none() {
                parsed.filter = Some(arg);
            }
        }
        parsed
    }

    /// Whether the input called `name` is measured.
    pub fn selects(&self, name: &str) -> bool {
        self.filter
            .as_ref()
            .is_none_or(|f| name.contains(f.as_str()))
    }

    /// How long one sample of one contender runs.
    pub fn sample(&self) -> Duration {
        Duration::from_millis(if self.quick { 2 } else { 8 })
    }
}

/// Megabytes (10^6 bytes) of `bytes` per second at `ns` nanoseconds per call.
pub fn mb_per_s(bytes: usize, ns: f64) -> f64 {
    bytes as f64 / ns * 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_args_take_quick_and_the_first_filter() {
        let args = |a: &[&str]| RunArgs::parse(a.iter().map(|s| s.to_string()));
        let plain = args(&[]);
        assert!(!plain.quick && plain.selects("nested"));
        let some = args(&["--quick", "nest", "deep"]);
        assert!(some.quick);
        assert!(some.selects("nested-config") && !some.selects("deep"));
        assert!(some.sample() < plain.sample());
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn slower_contender_measures_slower() {
        let mut cs = [
            Contender::new("fast", || black_box(1u64)),
            Contender::new("slow", || std::thread::sleep(Duration::from_micros(200))),
        ];
        let m = medians(&mut cs, 3, Duration::from_millis(2));
        assert!(m[1] > m[0] * 10.0, "{m:?}");
    }
}
