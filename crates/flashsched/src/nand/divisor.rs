//! Division by a number fixed when the drive is built (pages per block, dies per chip, ...),
//! without a divide instruction.
//!
//! The simulator turns physical page numbers into blocks, planes, dies and chips on every flash
//! operation, several times each; a 32-bit `div` takes 10-40 cycles on the x86 machines this was
//! measured on and was a visible share of the run time (docs/performance.md). A power of two
//! becomes a shift; any other divisor a multiplication by its 64-bit reciprocal, which is exact
//! for every 32-bit numerator (Lemire, Kaser and Kurz, "Faster remainder by direct computation",
//! Software: Practice and Experience 49(6), 2019, theorem 1 with N = 32, F = 64).

/// A fixed divisor of `u32` numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Divisor {
    d: u32,
    /// `ceil(2^64 / d)`, or 0 when `d` is a power of two (then `shift` is used).
    magic: u64,
    shift: u32,
}

impl Divisor {
    /// Panics on 0 (the configuration never allows an empty level of the geometry).
    pub fn new(d: u32) -> Self {
        assert!(d > 0, "division by zero");
        if d.is_power_of_two() {
            Divisor { d, magic: 0, shift: d.trailing_zeros() }
        } else {
            Divisor { d, magic: u64::MAX / d as u64 + 1, shift: 0 }
        }
    }

    /// The divisor itself.
    #[inline(always)]
    pub fn get(self) -> u32 {
        self.d
    }

    /// `n / d`.
    #[inline(always)]
    pub fn div(self, n: u32) -> u32 {
        if self.magic == 0 {
            n >> self.shift
        } else {
            ((self.magic as u128 * n as u128) >> 64) as u32
        }
    }

    /// `n % d`.
    #[inline(always)]
    pub fn rem(self, n: u32) -> u32 {
        n - self.div(n) * self.d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn edges_of_the_range() {
        for d in [1u32, 2, 3, 5, 7, 48, 64, 96, 100, 255, 256, 257, 1000, 2048, 3072, u32::MAX - 1, u32::MAX] {
            let v = Divisor::new(d);
            for n in [0u32, 1, d - 1, d, d.wrapping_add(1), u32::MAX / 2, u32::MAX - 1, u32::MAX] {
                assert_eq!(v.div(n), n / d, "{n} / {d}");
                assert_eq!(v.rem(n), n % d, "{n} % {d}");
            }
        }
    }

    proptest! {
        #[test]
        fn equals_the_division_instruction(d in 1u32.., n: u32) {
            let v = Divisor::new(d);
            prop_assert_eq!(v.div(n), n / d);
            prop_assert_eq!(v.rem(n), n % d);
        }

        #[test]
        fn small_divisors_like_geometries(d in 1u32..5000, n: u32) {
            prop_assert_eq!(Divisor::new(d).div(n), n / d);
        }
    }
}
