//! Probabilistic delta debugging (PDD) over the rewrite sites of the current best.
//!
//! Every site starts with probability [`INITIAL_P`] of being applicable without losing
//! the failure. A step selects the sites, in order of probability, that maximize the
//! expected number applied (count × product of probabilities). A failed selection
//! lowers its sites' probabilities by Bayes' rule; a selection of one site that fails
//! drops that site to zero. The search ends when the best expectation is zero or every
//! selected site is certain.

/// Prior probability that a site can be applied.
pub const INITIAL_P: f64 = 0.93;

/// PDD state over `n` sites, indexed as the caller's site list.
#[derive(Debug, Clone)]
pub struct Pdd {
    probs: Vec<f64>,
}

impl Pdd {
    pub fn new(n: usize) -> Self {
        Pdd {
            probs: vec![INITIAL_P; n],
        }
    }

    /// A search whose sites start with the given probabilities (clamped to [0, 1]).
    pub fn with_priors(priors: Vec<f64>) -> Self {
        Pdd {
            probs: priors.into_iter().map(|p| p.clamp(0.0, 1.0)).collect(),
        }
    }

    pub fn probability(&self, site: usize) -> f64 {
        self.probs[site]
    }

    /// Seeds a site with a probability learned earlier.
    pub fn set_probability(&mut self, site: usize, p: f64) {
        if let Some(slot) = self.probs.get_mut(site) {
            *slot = p.clamp(0.0, 1.0);
        }
    }

    /// The next selection, as site indices in ascending order, or `None` when the
    /// search is over. Ties in probability keep site order, so selections are
    /// deterministic and favour earlier (outer) sites.
    pub fn select(&self) -> Option<Vec<usize>> {
        let mut order: Vec<usize> = (0..self.probs.len())
            .filter(|&i| self.probs[i] > 0.0)
            .collect();
        order.sort_by(|&a, &b| self.probs[b].total_cmp(&self.probs[a]));
        let mut best_k = 0;
        let mut best_gain = 0.0;
        let mut product = 1.0;
        for (k, &i) in order.iter().enumerate() {
            product *= self.probs[i];
            let gain = (k + 1) as f64 * product;
            if gain >= best_gain {
                best_gain = gain;
                best_k = k + 1;
            }
        }
        if best_k == 0 || best_gain <= 0.0 {
            return None;
        }
        let mut chosen = order[..best_k].to_vec();
        if chosen.iter().all(|&i| self.probs[i] >= 1.0) {
            return None;
        }
        chosen.sort_unstable();
        Some(chosen)
    }

    /// Updates after `chosen` failed: `p ← 1 − (1 − p) / (1 − Π p)`.
    pub fn fail(&mut self, chosen: &[usize]) {
        let product: f64 = chosen.iter().map(|&i| self.probs[i]).product();
        if product >= 1.0 {
            return;
        }
        for &i in chosen {
            let p = 1.0 - (1.0 - self.probs[i]) / (1.0 - product);
            self.probs[i] = p.clamp(0.0, 1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_the_prefix_with_the_largest_expectation() {
        // k·0.93^k peaks at k = 14 (14·0.93^14 ≈ 5.07 > 13·0.93^13 ≈ 5.06).
        let pdd = Pdd::new(40);
        assert_eq!(pdd.select().map(|c| c.len()), Some(14));
        assert_eq!(Pdd::new(3).select(), Some(vec![0, 1, 2]));
    }

    #[test]
    fn failing_a_single_site_makes_it_impossible() {
        let mut pdd = Pdd::new(1);
        pdd.fail(&[0]);
        assert_eq!(pdd.probability(0), 0.0);
        assert_eq!(pdd.select(), None);
    }

    #[test]
    fn failure_lowers_probabilities_by_bayes_rule() {
        let mut pdd = Pdd::new(4);
        pdd.fail(&[0, 1]);
        let product = INITIAL_P * INITIAL_P;
        let expected = 1.0 - (1.0 - INITIAL_P) / (1.0 - product);
        assert!((pdd.probability(0) - expected).abs() < 1e-12);
        assert!(pdd.probability(0) < INITIAL_P);
        assert_eq!(pdd.probability(2), INITIAL_P);
        // The untouched sites now come first.
        let next = pdd.select().unwrap_or_default();
        assert!(next.contains(&2) && next.contains(&3));
    }

    #[test]
    fn search_terminates_when_everything_fails() {
        let mut pdd = Pdd::new(50);
        let mut steps = 0;
        while let Some(chosen) = pdd.select() {
            pdd.fail(&chosen);
            steps += 1;
            assert!(steps < 10_000);
        }
        // Every site was eventually tried alone.
        assert!((0..50).all(|i| pdd.probability(i) == 0.0));
    }
}
