//! Large tables backed by huge pages where the kernel allows it, and cache-line prefetch hints
//! (the FTL's tables, the decoded trace records).
//!
//! The FTL's per-block and per-page tables of a large drive are tens of megabytes, first touched
//! a few bytes at a time all over the table as blocks open: with 4 KiB pages each touch of a new
//! page is a page fault, and a fault costs microseconds (more in a virtual machine). A 2 MiB page
//! faults once for 512 of them. What was measured is the faults: 12,700 -> 6,500 a run on
//! bench8x8, with the mapping's slabs and the statistics made lazily (measured when the
//! change was made; git log has the numbers); the tables' advice alone, without them, showed no gain in wall time.
//! Linux's transparent huge pages are often enabled only for memory that asks for them
//! (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`): these helpers ask, with
//! `madvise(MADV_HUGEPAGE)`, before the table's pages are first touched. Elsewhere, or when the
//! kernel refuses, nothing changes but the speed: the advice never changes what is stored.

/// Huge pages are 2 MiB on x86-64 and on arm64 with 4 KiB base pages.
const HUGE: usize = 2 << 20;

/// `n` records of all-zero bytes (a valid value of `T`, [`ZeroValid`]), in memory advised as
/// huge pages. Zeroed memory from the allocator (`calloc`), which gets it from the OS without
/// writing it: a table of records is then resident only where it is touched, as `zeroed` is. (A
/// table filled with a non-zero record is written whole before the run starts: 16 MB of block
/// records on the reference drive, measured when the change was made.)
pub(crate) fn zeroed_records<T: ZeroValid>(n: usize) -> Vec<T> {
    const { assert!(std::mem::size_of::<T>() > 0, "zeroed_records is for records with a size") };
    let layout = std::alloc::Layout::array::<T>(n).expect("a table's size fits the address space");
    if n == 0 {
        return Vec::new();
    }
    // SAFETY: the layout's size is not zero. All-zero bytes are a valid `T` (`ZeroValid`'s
    // contract), so the `n` elements are initialised; the buffer comes from the global allocator
    // with `T`'s alignment and room for exactly `n`, as `Vec::from_raw_parts` requires.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        advise(p as *mut u8, layout.size());
        Vec::from_raw_parts(p, n, n)
    }
}

/// Types for which all-zero bytes are a valid value (integers, and records of them whose enums
/// have a zero variant).
///
/// # Safety
/// Every field of the type must accept the all-zero bit pattern.
pub(crate) unsafe trait ZeroValid: Copy {}

/// `n` zeroes, in memory advised as huge pages. The allocation is `calloc`'s: pages no one
/// touches still cost nothing (a huge page is taken whole on the first touch of its 2 MiB).
pub(crate) fn zeroed<T: Copy + Default + Zeroable>(n: usize) -> Vec<T> {
    let mut v = vec![T::default(); n];
    advise(v.as_mut_ptr() as *mut u8, n * std::mem::size_of::<T>());
    v
}

/// Integer types whose all-zero bit pattern is their default, so that `vec![T::default(); n]`
/// is a `calloc` and leaves the pages untouched.
pub(crate) trait Zeroable {}
impl Zeroable for u32 {}
impl Zeroable for u64 {}

#[cfg(target_os = "linux")]
fn advise(ptr: *mut u8, len: usize) {
    // Only whole, aligned huge pages inside the allocation can be huge; a table smaller than two
    // of them gains little.
    if len < 2 * HUGE {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + len) & !(HUGE - 1);
    if end > start {
        // SAFETY: the range lies inside the allocation, which this process owns; MADV_HUGEPAGE
        // changes how the kernel backs the pages, never their contents. A refusal (no THP
        // support, THP disabled) is harmless, so the result is not checked.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_ptr: *mut u8, _len: usize) {}

/// Ask the CPU to bring a cache line in (a no-op where the instruction is not available).
#[inline(always)]
pub(crate) fn prefetch<T>(p: &T) {
    prefetch_addr(p as *const T as *const u8);
}

/// `prefetch` for an address: the line holding `p`, which need not be a valid reference.
#[inline(always)]
pub(crate) fn prefetch_addr(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, even on an invalid address.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Record {
        a: u16,
        b: u32,
        c: u64,
    }
    // SAFETY: integers only.
    unsafe impl ZeroValid for Record {}

    #[test]
    fn tables_hold_what_was_asked() {
        // Large enough to be advised (several huge pages), and small, and empty.
        for n in [3 << 20, 10, 0] {
            let mut t: Vec<Record> = zeroed_records(n);
            assert_eq!(t.len(), n);
            assert!(t.iter().all(|r| *r == Record { a: 0, b: 0, c: 0 }));
            // An ordinary vector: it can be written and can grow.
            t.push(Record { a: 1, b: 2, c: 3 });
            assert_eq!(t[n], Record { a: 1, b: 2, c: 3 });
        }
        // Zeroed even where the allocator hands back memory it had given out and got back (a
        // small table comes from the heap, not fresh from the OS): written all over, freed, and
        // asked for again at the same size.
        for _ in 0..4 {
            let mut t: Vec<Record> = zeroed_records(1000);
            assert!(t.iter().all(|r| *r == Record { a: 0, b: 0, c: 0 }));
            t.fill(Record { a: 0xffff, b: u32::MAX, c: u64::MAX });
        }
        let z: Vec<u64> = zeroed(5 << 20);
        assert_eq!(z.len(), 5 << 20);
        assert!(z.iter().all(|&x| x == 0));
    }
}
