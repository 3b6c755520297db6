//! A tiny deterministic PRNG (SplitMix64) and stateless hashing helpers.
//!
//! Written here rather than taken from a crate so that the seeded world never changes when a
//! dependency changes its random stream.

/// The SplitMix64 generator (Steele, Lea and Flood 2014).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

/// The SplitMix64 output function: a good 64-bit mixer.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Hashes a few words into one (order matters).
pub fn hash(parts: &[u64]) -> u64 {
    let mut h = 0x9E37_79B9_7F4A_7C15u64;
    for &p in parts {
        h = mix(h ^ p.wrapping_mul(0xD6E8_FEB8_6659_FD93)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    }
    mix(h)
}

/// Maps a hash to a float in `[0, 1)`.
pub fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// A standard normal draw from a hash (Box–Muller).
pub fn normal(h: u64) -> f64 {
    let u1 = unit(h).max(f64::MIN_POSITIVE);
    let u2 = unit(mix(h ^ 0x6e6f_726d));
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// A float in `[0, 1)`.
    pub fn f64(&mut self) -> f64 {
        unit(self.next_u64())
    }

    /// An integer in `[lo, hi)` (`lo` when the range is empty).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            lo
        } else {
            lo + self.next_u64() % (hi - lo)
        }
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }

    /// Picks one element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len() as u64) as usize]
    }

    /// A 24-hex-digit identifier shaped like a MongoDB ObjectId (4-byte timestamp first).
    pub fn object_id(&mut self, unix_secs: i64) -> String {
        let r = self.next_u64();
        format!(
            "{:08x}{:016x}",
            unix_secs.clamp(0, u32::MAX as i64) as u32,
            r
        )
    }

    /// `n` random lower-case letters.
    pub fn letters(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| (b'a' + (self.next_u64() % 26) as u8) as char)
            .collect()
    }

    /// A UUID-shaped lower-case hex string (the shape of an API private key).
    pub fn uuid(&mut self) -> String {
        let a = self.next_u64();
        let b = self.next_u64();
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xffff,
            b >> 48,
            b & 0xffff_ffff_ffff
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // Reference output of SplitMix64 seeded with 1234567.
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }

    #[test]
    fn helpers_stay_in_range() {
        let mut r = SplitMix64::new(7);
        for _ in 0..1000 {
            let x = r.range(3, 9);
            assert!((3..9).contains(&x));
            let f = r.f64();
            assert!((0.0..1.0).contains(&f));
        }
        assert_eq!(r.object_id(1_700_000_000).len(), 24);
        assert_eq!(r.uuid().len(), 36);
    }
}
