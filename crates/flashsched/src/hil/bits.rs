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
    pub fn members(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut rest = bits;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let i = rest.trailing_zeros();
                    rest &= rest - 1;
                    w as u32 * 64 + i
                })
            })
        })
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
