//! sysbench's random numbers (src/sb_rand.c): `sysbench.rand.uniform`,
//! `sysbench.rand.string`'s templates, and `sysbench.rand.default` under
//! --rand-type uniform (as the regression posts run it) or zipfian (sysbench
//! after 1.0, exponent 0.8: Hörmann and Derflinger's rejection-inversion,
//! as sb_rand.c writes it).

use crate::datagen::Rng;

/// sysbench's c column: 10 groups of 11 random digits, dashed (119 characters).
pub const C_TEMPLATE: &str = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########";
/// sysbench's pad column: 5 groups (59 characters).
pub const PAD_TEMPLATE: &str = "###########-###########-###########-###########-###########";

/// `sysbench.rand.uniform(a, b)`: a..=b, each alike.
#[inline]
pub fn uniform(rng: &mut Rng, a: u64, b: u64) -> u64 {
    a + rng.below(b - a + 1)
}

/// `sysbench.rand.string(template)` into `out`: each '#' a random digit,
/// each '@' a random lower-case letter, the rest as it stands.
pub fn string_into(rng: &mut Rng, template: &str, out: &mut String) {
    out.clear();
    out.extend(template.bytes().map(|b| match b {
        b'#' => (b'0' + rng.below(10) as u8) as char,
        b'@' => (b'a' + rng.below(26) as u8) as char,
        other => other as char,
    }));
}

/// `sysbench.rand.default(a, b)`: the --rand-type's distribution.
#[derive(Debug, Clone)]
pub enum Ids {
    Uniform,
    Zipfian(Zipf),
}

impl Ids {
    #[inline]
    pub fn next(&self, rng: &mut Rng, a: u64, b: u64) -> u64 {
        match self {
            Ids::Uniform => uniform(rng, a, b),
            Ids::Zipfian(z) => a + z.next(rng, b - a + 1) - 1,
        }
    }
}

/// sb_rand_zipfian with --rand-zipfian-exp `e`: 1..=n, P(k) proportional to 1/k^e.
#[derive(Debug, Clone)]
pub struct Zipf {
    e: f64,
    s: f64,
    h_integral_x1: f64,
}

impl Zipf {
    /// sysbench's default exponent (--rand-zipfian-exp).
    pub const SYSBENCH_EXPONENT: f64 = 0.8;

    pub fn new(e: f64) -> Zipf {
        let s = 2.0 - h_integral_inverse(h_integral(2.5, e) - h(2.0, e), e);
        Zipf { e, s, h_integral_x1: h_integral(1.5, e) - 1.0 }
    }

    pub fn next(&self, rng: &mut Rng, n: u64) -> u64 {
        let e = self.e;
        let h_integral_n = h_integral(n as f64 + 0.5, e);
        loop {
            let u = h_integral_n + rng.unit() * (self.h_integral_x1 - h_integral_n);
            let x = h_integral_inverse(u, e);
            let k = ((x + 0.5) as u64).clamp(1, n);
            if k as f64 - x <= self.s || u >= h_integral(k as f64 + 0.5, e) - h(k as f64, e) {
                return k;
            }
        }
    }
}

fn h_integral(x: f64, e: f64) -> f64 {
    let log_x = x.ln();
    helper2((1.0 - e) * log_x) * log_x
}

fn h(x: f64, e: f64) -> f64 {
    (-e * x.ln()).exp()
}

fn h_integral_inverse(x: f64, e: f64) -> f64 {
    let t = (x * (1.0 - e)).max(-1.0);
    (helper1(t) * x).exp()
}

fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (0.333_333_333_333_333_3 - 0.25 * x))
    }
}

fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x * 0.333_333_333_333_333_3 * (1.0 + 0.25 * x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_make_sysbenchs_values() {
        let mut rng = Rng::new(7);
        let mut s = String::new();
        string_into(&mut rng, C_TEMPLATE, &mut s);
        assert_eq!(s.len(), 119);
        assert!(s.split('-').all(|g| g.len() == 11 && g.bytes().all(|b| b.is_ascii_digit())), "{s}");
        string_into(&mut rng, PAD_TEMPLATE, &mut s);
        assert_eq!(s.len(), 59);
        string_into(&mut rng, "@#x", &mut s);
        assert!(s.as_bytes()[0].is_ascii_lowercase() && s.as_bytes()[1].is_ascii_digit() && s.ends_with('x'));
    }

    #[test]
    fn uniform_ids_cover_the_range_evenly() {
        let mut rng = Rng::new(1);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            let v = Ids::Uniform.next(&mut rng, 1, 10);
            counts[(v - 1) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (9_000..11_000).contains(&c)), "{counts:?}");
    }

    #[test]
    fn zipfian_ids_follow_one_over_k_to_the_exponent() {
        // P(k) = k^-e / H(n, e): the first ranks' shares, within sampling error.
        let (n, e, draws) = (1000u64, Zipf::SYSBENCH_EXPONENT, 400_000);
        let z = Ids::Zipfian(Zipf::new(e));
        let mut rng = Rng::new(3);
        let mut counts = vec![0u64; n as usize + 1];
        for _ in 0..draws {
            let v = z.next(&mut rng, 1, n);
            assert!((1..=n).contains(&v));
            counts[v as usize] += 1;
        }
        let norm: f64 = (1..=n).map(|k| (k as f64).powf(-e)).sum();
        for k in [1u64, 2, 3, 10, 100] {
            let want = (k as f64).powf(-e) / norm;
            let got = counts[k as usize] as f64 / draws as f64;
            let sigma = (want * (1.0 - want) / draws as f64).sqrt();
            assert!((got - want).abs() < 5.0 * sigma, "rank {k}: {got} vs {want}");
        }
    }
}
