//! Random sampling for ANALYZE (PostgreSQL's `utils/misc/sampling.c`).
//!
//! ANALYZE reads a sample of a table in two stages, so that its cost is
//! bounded by the sample size and not by the table size:
//!
//! 1. **Blocks.** [`BlockSampler`] picks `n` of the table's `N` blocks,
//!    uniformly and in increasing block order, with Knuth's Algorithm S
//!    (TAOCP vol. 2, 3.4.2): walking the blocks in order, the next block is
//!    taken with probability *(blocks still wanted) / (blocks not yet
//!    passed)*. Increasing order means the table is read front to back, and a
//!    table of at most `n` blocks is read completely, without drawing a
//!    single random number.
//! 2. **Rows.** The live rows of the chosen blocks stream through a
//!    [`Reservoir`] of `n` slots (Vitter, "Random Sampling with a
//!    Reservoir", ACM TOMS 11(1), 1985): the first `n` rows fill it; after
//!    that, Vitter's skip distributions say how many rows to pass over before
//!    the next one replaces a random slot — Algorithm X while few rows have
//!    been seen, Algorithm Z (one or two random numbers per *replacement*
//!    rather than per row) once more than 22·n have. Every subset of `n`
//!    rows is equally likely to be the final sample.
//!
//! When the table has no more live rows than slots, no row is ever skipped or
//! replaced: the sample is every live row, whatever the seed. That is what
//! makes ANALYZE of small tables deterministic (and the golden tests
//! possible).
//!
//! Random numbers come from [`Prng`], xoroshiro128** seeded through
//! splitmix64 — the generator PostgreSQL's `pg_prng.c` uses — so a given seed
//! always yields the same sample. Nothing here touches storage; `sample.rs`
//! drives these types over heap pages.

/// A small, fast, seedable pseudo-random generator (xoroshiro128**, by
/// Blackman and Vigna), so that a sample is reproducible from its seed.
#[derive(Clone, Debug)]
pub struct Prng {
    /// The 128-bit state; never all zero.
    s0: u64,
    /// Second half of the state.
    s1: u64,
}

impl Prng {
    /// seeded -- a generator whose whole sequence is fixed by `seed`. The
    /// state is filled by splitmix64, which spreads even small or similar
    /// seeds over all 128 bits.
    pub fn seeded(seed: u64) -> Prng {
        let mut x = seed;
        let mut splitmix = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let (s0, s1) = (splitmix(), splitmix());
        // xoroshiro must not start from the all-zero state (it would stay there).
        if s0 == 0 && s1 == 0 {
            return Prng { s0: 1, s1: 0 };
        }
        Prng { s0, s1 }
    }

    /// next_u64 -- the next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let (s0, mut s1) = (self.s0, self.s1);
        let result = s0.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        s1 ^= s0;
        self.s0 = s0.rotate_left(24) ^ s1 ^ (s1 << 16);
        self.s1 = s1.rotate_left(37);
        result
    }

    /// fraction -- a uniform random number in the open interval (0, 1).
    /// Zero is excluded because the samplers take its logarithm.
    pub fn fraction(&mut self) -> f64 {
        loop {
            // The top 53 bits fill a double's mantissa exactly.
            let f = (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
            if f > 0.0 {
                return f;
            }
        }
    }
}

/// Knuth's Algorithm S over block numbers: chooses `wanted` of `total`
/// blocks, each subset equally likely, returned in increasing order.
#[derive(Debug)]
pub struct BlockSampler {
    /// N: blocks in the relation.
    total: u32,
    /// n: blocks to choose.
    wanted: u32,
    /// t: blocks passed so far (the next candidate).
    passed: u32,
    /// m: blocks chosen so far.
    chosen: u32,
    rng: Prng,
}

impl BlockSampler {
    /// A sampler choosing `wanted` of blocks `0..total`.
    pub fn new(total: u32, wanted: u32, seed: u64) -> BlockSampler {
        BlockSampler { total, wanted, passed: 0, chosen: 0, rng: Prng::seeded(seed) }
    }

    /// How many blocks have been chosen so far.
    pub fn chosen(&self) -> u32 {
        self.chosen
    }
}

impl Iterator for BlockSampler {
    type Item = u32;

    /// next -- the next chosen block. Each candidate is taken with
    /// probability (n − m)/(N − t); once as many blocks remain as are still
    /// wanted, that probability is 1 and the rest are taken without a draw.
    fn next(&mut self) -> Option<u32> {
        while self.passed < self.total && self.chosen < self.wanted {
            let block = self.passed;
            let remaining = f64::from(self.total - self.passed);
            let needed = f64::from(self.wanted - self.chosen);
            self.passed += 1;
            if needed >= remaining || self.rng.fraction() * remaining < needed {
                self.chosen += 1;
                return Some(block);
            }
        }
        None
    }
}

/// Below this many rows seen per slot, Algorithm X (one draw per skipped
/// row) is cheaper than Algorithm Z; Vitter's measurements put the break-even
/// near 22.
const ALGORITHM_Z_THRESHOLD: f64 = 22.0;

/// Vitter's reservoir: a uniform sample of at most `capacity` items from a
/// stream of unknown length.
#[derive(Debug)]
pub struct Reservoir<T> {
    /// The sample so far.
    items: Vec<T>,
    /// n: the sample size wanted.
    capacity: usize,
    /// t: items offered so far.
    seen: u64,
    /// Items still to pass over before the next replacement; `None` when the
    /// next skip has not been drawn yet.
    skip: Option<u64>,
    /// Algorithm Z's W, carried from one skip to the next.
    w: f64,
    rng: Prng,
}

impl<T> Reservoir<T> {
    /// An empty reservoir of `capacity` slots (at least one).
    pub fn new(capacity: usize, seed: u64) -> Reservoir<T> {
        let capacity = capacity.max(1);
        let mut rng = Prng::seeded(seed);
        let w = initial_w(&mut rng, capacity as f64);
        Reservoir { items: Vec::new(), capacity, seen: 0, skip: None, w, rng }
    }

    /// offer -- the next item of the stream; `make` builds it only if it is
    /// kept (so rows passed over are never copied).
    pub fn offer(&mut self, make: impl FnOnce() -> T) {
        if self.items.len() < self.capacity {
            self.items.push(make());
        } else {
            let skip = match self.skip {
                Some(s) => s,
                None => self.next_skip(),
            };
            if skip == 0 {
                let slot = (self.capacity as f64 * self.rng.fraction()) as usize;
                self.items[slot.min(self.capacity - 1)] = make();
                self.skip = None;
            } else {
                self.skip = Some(skip - 1);
            }
        }
        self.seen += 1;
    }

    /// The sample (every item offered, if no more than `capacity` were).
    pub fn into_items(self) -> Vec<T> {
        self.items
    }

    /// next_skip -- how many of the coming items to pass over before the
    /// next one is kept, given that `seen` (t ≥ n) have gone by.
    fn next_skip(&mut self) -> u64 {
        let t = self.seen as f64;
        let n = self.capacity as f64;
        if t <= ALGORITHM_Z_THRESHOLD * n {
            skip_x(&mut self.rng, t, n)
        } else {
            let (s, w) = skip_z(&mut self.rng, t, n, self.w);
            self.w = w;
            s
        }
    }
}

/// W = U^(−1/n): Algorithm Z's state, drawn afresh after each rejection
/// (Vitter's step Z2/Z5).
fn initial_w(rng: &mut Prng, n: f64) -> f64 {
    (-rng.fraction().ln() / n).exp()
}

/// Algorithm X: the skip S is the least s with
/// ∏_{i=0..=s} (t + 1 + i − n)/(t + 1 + i) ≤ V for one uniform V — each
/// factor being the chance that item t+1+i is not selected.
fn skip_x(rng: &mut Prng, t: f64, n: f64) -> u64 {
    let v = rng.fraction();
    let mut s = 0u64;
    let mut next = t + 1.0;
    let mut not_taken = (next - n) / next;
    while not_taken > v {
        s += 1;
        next += 1.0;
        not_taken *= (next - n) / next;
    }
    s
}

/// Algorithm Z: rejection sampling of the skip from the envelope
/// g(x) ∝ (t/(t+x))^(n+1). A candidate X = t(W − 1) is accepted either by the
/// cheap squeeze test U ≤ h(⌊X⌋)/(c·g(X)) or, failing that, by the exact
/// test U ≤ f(⌊X⌋)/(c·g(X)), which multiplies out the distribution's product.
/// Returns the skip and the W to use next time.
fn skip_z(rng: &mut Prng, t: f64, n: f64, mut w: f64) -> (u64, f64) {
    let term = t - n + 1.0;
    loop {
        let u = rng.fraction();
        let x = t * (w - 1.0);
        let s = x.floor();
        // Squeeze: h(s)/(c·g(x)), with both sides raised to the power 1/n.
        let ratio = (t + 1.0) / term;
        let lhs = ((u * ratio * ratio * (term + s)) / (t + x)).ln() / n;
        let lhs = lhs.exp();
        let rhs = (((t + x) / (term + s)) * term) / t;
        if lhs <= rhs {
            return (s as u64, rhs / lhs);
        }
        // Exact test: y = U·c·g(x)/f(s), the product computed term by term.
        let mut y = (((u * (t + 1.0)) / term) * (t + s + 1.0)) / (t + x);
        let (mut denom, numer_lim) = if n < s { (t, term + s) } else { (t - n + s, t + 1.0) };
        let mut numer = t + s;
        while numer >= numer_lim {
            y *= numer / denom;
            denom -= 1.0;
            numer -= 1.0;
        }
        w = initial_w(rng, n);
        if (y.ln() / n).exp() <= (t + x) / t {
            return (s as u64, w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prng_is_reproducible_and_fractions_are_open_unit_interval() {
        let mut a = Prng::seeded(42);
        let mut b = Prng::seeded(42);
        let mut c = Prng::seeded(43);
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        let mut r = Prng::seeded(0);
        for _ in 0..10_000 {
            let f = r.fraction();
            assert!(f > 0.0 && f < 1.0, "{f}");
        }
    }

    #[test]
    fn block_sampler_takes_every_block_of_a_small_table() {
        let all: Vec<u32> = BlockSampler::new(7, 10, 1).collect();
        assert_eq!(all, (0..7).collect::<Vec<_>>());
        let none: Vec<u32> = BlockSampler::new(0, 10, 1).collect();
        assert!(none.is_empty());
    }

    #[test]
    fn block_sampler_chooses_exactly_n_blocks_in_increasing_order() {
        for seed in 0..50 {
            let mut sampler = BlockSampler::new(1000, 30, seed);
            let blocks: Vec<u32> = sampler.by_ref().collect();
            assert_eq!(blocks.len(), 30);
            assert_eq!(sampler.chosen(), 30);
            assert!(blocks.windows(2).all(|w| w[0] < w[1]));
            assert!(blocks.iter().all(|b| *b < 1000));
        }
    }

    #[test]
    fn block_sampler_is_roughly_uniform() {
        // Each of 20 blocks should be chosen about 5/20 of the time.
        let mut hits = [0u32; 20];
        let runs: u32 = 20_000;
        for seed in 0..runs {
            for b in BlockSampler::new(20, 5, u64::from(seed)) {
                hits[b as usize] += 1;
            }
        }
        let expected = f64::from(runs) * 5.0 / 20.0;
        for (b, h) in hits.iter().enumerate() {
            let dev = (f64::from(*h) - expected).abs() / expected;
            assert!(dev < 0.05, "block {b}: {h} hits, expected {expected}");
        }
    }

    #[test]
    fn reservoir_keeps_everything_when_it_fits() {
        let mut r = Reservoir::new(100, 9);
        for i in 0..60 {
            r.offer(|| i);
        }
        assert_eq!(r.seen, 60);
        assert_eq!(r.into_items(), (0..60).collect::<Vec<_>>());
    }

    #[test]
    fn reservoir_builds_only_the_items_it_keeps() {
        let mut built = 0;
        let mut r = Reservoir::new(10, 3);
        for i in 0..100_000 {
            r.offer(|| {
                built += 1;
                i
            });
        }
        assert_eq!(r.seen, 100_000);
        let items = r.into_items();
        assert_eq!(items.len(), 10);
        // Vitter's skips mean only O(n log(N/n)) items are ever built.
        assert!(built < 1_000, "built {built} items");
    }

    #[test]
    fn reservoir_is_roughly_uniform_in_both_algorithms() {
        // 10 slots over 1000 items crosses from Algorithm X (t ≤ 220) to Z.
        let (n, total, runs) = (10usize, 1000usize, 4000u64);
        let mut hits = vec![0u32; total];
        for seed in 0..runs {
            let mut r = Reservoir::new(n, seed);
            for i in 0..total {
                r.offer(|| i);
            }
            let items = r.into_items();
            assert_eq!(items.len(), n);
            for i in items {
                hits[i] += 1;
            }
        }
        // Aggregate into ten buckets of 100 items: each expects 1/10 of the picks.
        let expected = (runs as f64) * n as f64 / 10.0;
        for (bucket, chunk) in hits.chunks(100).enumerate() {
            let got: u32 = chunk.iter().sum();
            let dev = (f64::from(got) - expected).abs() / expected;
            assert!(dev < 0.06, "bucket {bucket}: {got}, expected {expected}");
        }
    }

    #[test]
    fn long_streams_are_sampled_evenly_by_algorithm_z() {
        // 200 000 items through 50 slots: almost every skip is Algorithm Z's.
        // The kept items' mean must sit near the middle (standard error ≈ 580).
        let (n, total, runs) = (50usize, 200_000u64, 200u64);
        let mut sum = 0.0;
        for seed in 0..runs {
            let mut r = Reservoir::new(n, seed);
            for i in 0..total {
                r.offer(|| i);
            }
            sum += r.into_items().iter().map(|i| *i as f64).sum::<f64>();
        }
        let mean = sum / (runs as f64 * n as f64);
        assert!((mean - total as f64 / 2.0).abs() < 2_000.0, "mean {mean}");
    }

    #[test]
    fn skips_are_reproducible_from_the_seed() {
        let run = |seed| {
            let mut r = Reservoir::new(5, seed);
            for i in 0..10_000 {
                r.offer(|| i);
            }
            r.into_items()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }
}
