//! Sets of parallel units as bitmasks, for device queues that batch requests by the units they
//! touch (PIQ, VIOS): a conflict test is a word-wise AND.

/// A set of parallel units (chips, dies or channels), one bit each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bits(Vec<u64>);

impl Bits {
    pub fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }
    pub fn of(n: usize, members: &[u32]) -> Self {
        let mut b = Bits::new(n);
        for &m in members {
            b.insert(m);
        }
        b
    }
    #[inline]
    pub fn insert(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }
    #[inline]
    pub fn remove(&mut self, i: u32) {
        self.0[i as usize / 64] &= !(1 << (i % 64));
    }
    #[inline]
    pub fn intersects(&self, o: &Bits) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }
    #[inline]
    pub fn union_with(&mut self, o: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.0[i as usize / 64] >> (i % 64) & 1 == 1
    }
    /// The members in increasing order.
    pub fn members(&self) -> Members<'_> {
        Members { words: &self.0, w: 0, rest: self.0.first().copied().unwrap_or(0) }
    }
    /// An empty set of the same size as `o`.
    pub fn like(o: &Bits) -> Self {
        Bits(vec![0; o.0.len()])
    }
    /// The set as words of 64 members (member `i` is bit `i % 64` of word `i / 64`), for
    /// word-at-a-time work.
    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.0
    }
    #[inline]
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.0
    }
    pub fn clear(&mut self) {
        self.0.iter_mut().for_each(|w| *w = 0);
    }
}

/// The members of a [`Bits`], in increasing order (a word at a time).
pub struct Members<'a> {
    words: &'a [u64],
    /// The word being read, and its members not yet given.
    w: usize,
    rest: u64,
}

impl Iterator for Members<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.rest == 0 {
            self.w += 1;
            self.rest = *self.words.get(self.w)?;
        }
        let i = self.rest.trailing_zeros();
        self.rest &= self.rest - 1;
        Some(self.w as u32 * 64 + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_come_in_increasing_order_across_words() {
        for n in [0usize, 1, 63, 64, 65, 200] {
            let want: Vec<u32> = (0..n as u32).filter(|i| i % 3 == 0 || i % 64 == 63).collect();
            assert_eq!(Bits::of(n, &want).members().collect::<Vec<_>>(), want, "{n} units");
        }
        let mut b = Bits::of(130, &[129]);
        assert_eq!(b.members().collect::<Vec<_>>(), vec![129]);
        b.clear();
        assert_eq!(b.members().next(), None);
    }
}
