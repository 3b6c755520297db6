//! The few robust statistics the forecasts are made of.
//!
//! ```
//! use opsapi::forecast::stats::{median, theil_sen};
//!
//! assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
//! // A line through (0, 1), (1, 3), (2, 5), (3, 7) and one wild point: its slope is still 2.
//! assert_eq!(theil_sen(&[0.0, 1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 5.0, 7.0, 40.0], 1), 2.0);
//! ```

/// The median (the mean of the two middle values of an even count); NaN for none.
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// The median absolute deviation from the median.
pub fn mad(values: &[f64]) -> f64 {
    let m = median(values);
    median(&values.iter().map(|v| (v - m).abs()).collect::<Vec<_>>())
}

/// The Theil–Sen slope: the median of the slopes of every pair of points at least `min_lag`
/// apart in `x`; 0 without such a pair.
pub fn theil_sen(x: &[f64], y: &[f64], min_lag: usize) -> f64 {
    let mut slopes = Vec::with_capacity(x.len() * x.len() / 2);
    for i in 0..x.len() {
        for j in i + min_lag..x.len() {
            if x[j] != x[i] {
                slopes.push((y[j] - y[i]) / (x[j] - x[i]));
            }
        }
    }
    if slopes.is_empty() {
        0.0
    } else {
        median(&slopes)
    }
}

/// The lag-1 autocorrelation of a series of residuals (0 for fewer than three).
pub fn lag1(e: &[f64]) -> f64 {
    if e.len() < 3 {
        return 0.0;
    }
    let m = e.iter().sum::<f64>() / e.len() as f64;
    let den: f64 = e.iter().map(|v| (v - m).powi(2)).sum();
    if den <= 0.0 {
        return 0.0;
    }
    let num: f64 = e.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum();
    num / den
}

/// The standard normal distribution function (Abramowitz and Stegun 7.1.26 on erf, within
/// 1.5e-7).
pub fn normal_cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    if z >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// The standard normal quantile function (Acklam's rational approximation, within 1.2e-9).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// How much wider Student's t with `nu` degrees of freedom is than the normal, at its 90th
/// percentile (a table, interpolated in `1 / nu`).
pub fn t_widening(nu: f64) -> f64 {
    const T90: [(f64, f64); 12] = [
        (1.0, 3.078),
        (2.0, 1.886),
        (3.0, 1.638),
        (4.0, 1.533),
        (5.0, 1.476),
        (6.0, 1.440),
        (8.0, 1.397),
        (10.0, 1.372),
        (15.0, 1.341),
        (20.0, 1.325),
        (30.0, 1.310),
        (f64::INFINITY, 1.2816),
    ];
    let nu = nu.max(1.0);
    let t = T90.windows(2).find(|w| nu <= w[1].0).map_or(1.2816, |w| {
        let (a, b) = (1.0 / w[0].0, 1.0 / w[1].0);
        let f = (a - 1.0 / nu) / (a - b);
        w[0].1 + f * (w[1].1 - w[0].1)
    });
    t / 1.2816
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_and_distribution_agree() {
        for p in [0.001, 0.1, 0.5, 0.8, 0.975] {
            assert!((normal_cdf(normal_quantile(p)) - p).abs() < 1e-6, "{p}");
        }
        assert!((normal_quantile(0.9) - 1.281_551_6).abs() < 1e-6);
        assert!((t_widening(1.0) - 3.078 / 1.2816).abs() < 1e-9);
        assert!((t_widening(1e9) - 1.0).abs() < 1e-6);
        assert!(t_widening(7.0) > t_widening(8.0) && t_widening(7.0) < t_widening(6.0));
    }
}
