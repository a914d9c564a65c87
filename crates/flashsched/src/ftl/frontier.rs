//! Where writes go inside a plane: the open block of each stream (its write frontier), the free
//! blocks they are opened from, by each stream's rule, and the reserve of free pages that keeps GC
//! able to finish whatever the host writes in between. Part of [`Ftl`]'s bookkeeping.

use super::*;

impl Ftl {
    /// Reserve the next free page of the plane's active block, opening a free block if needed.
    /// A host write gets a page only while more than one block's worth of free pages would remain
    /// in the plane: GC of one victim moves at most `pages_per_block - 1` pages, so this reserve
    /// guarantees GC can always finish, even with host writes interleaved with its moves.
    /// `None` when the page is refused (or the plane has no free page at all).
    pub fn allocate(&mut self, plane: u32, who: Writer) -> Option<Ppn> {
        self.allocate_in(plane, who, STREAM_DEFAULT)
    }

    /// `allocate` on the open block of `stream`. The reserve is GC's: what GC's stream (the
    /// default one) could still program after this page, which a host write must leave at a block
    /// or more. The migration stream never opens a block: it writes only to a pinned one.
    pub fn allocate_in(&mut self, plane: u32, who: Writer, stream: Stream) -> Option<Ppn> {
        let stream = self.stream_for(plane, stream);
        #[cfg(debug_assertions)]
        let peeked = self.peek_in(plane, who, stream);
        let got = self.allocate_page(plane, who, stream);
        #[cfg(debug_assertions)]
        debug_assert_eq!(peeked, got, "peek_allocation disagrees with allocate on plane {plane}");
        got
    }

    /// At least as many pages as host writes of the default stream can still take in `plane`,
    /// while nothing else takes or frees any: `may_take` lets the host take a page only while the
    /// free blocks' pages and those left in the default stream's open block exceed GC's reserve of
    /// a block, and each page taken lowers them by one.
    pub fn host_room_bound(&self, plane: u32) -> u64 {
        let ppb = self.layout.pages_per_block as u64;
        (self.planes[plane as usize].free_blocks as u64 * ppb + self.left_in(plane, STREAM_DEFAULT) as u64).saturating_sub(ppb)
    }

    /// `host_room_bound` with write grouping's hot stream as well: its open block's pages come
    /// on top (a hot write takes one while the pages above GC's reserve are at least a block,
    /// and a hot block opened takes a block's worth of them).
    pub fn host_room_bound_streams(&self, plane: u32) -> u64 {
        self.host_room_bound(plane) + self.left_in(plane, STREAM_HOT) as u64
    }

    /// Whether a host write of `stream` can take a page of `plane` now.
    pub fn host_may_take(&self, plane: u32, stream: Stream) -> bool {
        self.may_take(plane, Writer::Host, stream, self.left_in(plane, stream))
    }

    /// The stream a write meant for `stream` programs into in `plane` now: wear leveling's own
    /// while its open block has a page, or opening a block there leaves GC's stream a block's worth
    /// of free pages (as a host write's stream must); otherwise the default stream, whose reserve
    /// every GC move may use (a wear-leveling collection is its plane's only collection, so the
    /// rest of its victim fits there, as any victim's does).
    #[inline]
    pub fn stream_for(&self, plane: u32, stream: Stream) -> Stream {
        if stream == STREAM_WEAR && self.left_in(plane, STREAM_WEAR) == 0 && !self.may_take(plane, Writer::Host, STREAM_WEAR, 0) {
            return STREAM_DEFAULT;
        }
        stream
    }

    /// Pages left in the open block of `stream` of `plane` (0 without one).
    #[inline]
    pub(super) fn left_in(&self, plane: u32, stream: Stream) -> u32 {
        let ps = &self.planes[plane as usize];
        if ps.active[stream as usize] == NONE { 0 } else { self.layout.pages_per_block - ps.open_wp[stream as usize] as u32 }
    }

    /// May `who` take a page of `stream` in `plane` (whose open block has `left` pages)?
    #[inline]
    pub(super) fn may_take(&self, plane: u32, who: Writer, stream: Stream, left: u32) -> bool {
        let ppb = self.layout.pages_per_block as u64;
        let ps = &self.planes[plane as usize];
        if stream == STREAM_MIGRATION {
            return left > 0;
        }
        // GC's stream is the default one: its open block's room is `left` when that is the stream.
        let gc_left = if stream == STREAM_DEFAULT { left as u64 } else { self.left_in(plane, STREAM_DEFAULT) as u64 };
        let free_pages = ps.free_blocks as u64 * ppb + gc_left;
        // Free pages GC's stream keeps after this allocation, plus one (the rule as first
        // written for one stream: refuse when free pages <= reserve).
        let after = match (stream == STREAM_DEFAULT, left > 0) {
            (true, _) => free_pages,
            (false, true) => free_pages + 1,
            (false, false) => free_pages.saturating_sub(ppb) + 1,
        };
        let reserve = if who == Writer::Host { ppb } else { 0 };
        after > reserve && (left > 0 || ps.free_blocks > 0)
    }

    pub(super) fn allocate_page(&mut self, plane: u32, who: Writer, stream: Stream) -> Option<Ppn> {
        let left = self.left_in(plane, stream);
        if !self.may_take(plane, who, stream, left) {
            return None;
        }
        if left <= 1 {
            // This allocation fills the open block, or opens a new one.
            self.frontier_moved(plane);
        }
        if left == 0 {
            let old = self.planes[plane as usize].active[stream as usize];
            if old != NONE {
                self.set_state(old, BlockState::Full);
            }
            let b = self.take_free_block(plane, self.open_rules[stream as usize]);
            self.set_state(b, BlockState::Active);
            self.open(plane, stream, b);
        }
        let ps = &mut self.planes[plane as usize];
        let b = ps.active[stream as usize];
        let page = ps.open_wp[stream as usize];
        ps.open_wp[stream as usize] = page + 1;
        self.blocks[b].write_ptr = page + 1;
        // A block that just became full stays `Active` until the next allocation, so it is not a
        // GC candidate while its last program may still be in flight.
        Some(b * self.layout.pages_per_block + page as u32)
    }

    /// The page `allocate(plane, who)` would return now, without allocating it (multi-plane
    /// packing checks that planes' next pages line up before taking them).
    pub fn peek_allocation(&self, plane: u32, who: Writer) -> Option<Ppn> {
        self.peek_in(plane, who, STREAM_DEFAULT)
    }

    /// The offset within its block of the page `peek_in(plane, _, stream)` returns when it
    /// returns one, for any writer: the open block's next page, or the first of a new block.
    #[inline]
    pub fn next_offset(&self, plane: u32, stream: Stream) -> u32 {
        if self.left_in(plane, stream) > 0 { u32::from(self.planes[plane as usize].open_wp[stream as usize]) } else { 0 }
    }

    /// The page `allocate_in(plane, who, stream)` would return now.
    pub fn peek_in(&self, plane: u32, who: Writer, stream: Stream) -> Option<Ppn> {
        let stream = self.stream_for(plane, stream);
        let ppb = self.layout.pages_per_block;
        let left = self.left_in(plane, stream);
        if !self.may_take(plane, who, stream, left) {
            return None;
        }
        let ps = &self.planes[plane as usize];
        if left > 0 {
            return Some(ps.active[stream as usize] * ppb + ps.open_wp[stream as usize] as u32);
        }
        Some(self.pick_free(plane, self.open_rules[stream as usize]).0 * ppb)
    }

    /// The free block `rule` opens next in `plane` and its index in the free list (`None`: the
    /// next never-used block). The plane must have a free block.
    pub(super) fn pick_free(&self, plane: u32, rule: OpenRule) -> (u32, Option<usize>) {
        let ps = &self.planes[plane as usize];
        let fresh = (ps.next_fresh < self.layout.blocks_per_plane).then(|| self.layout.first_block_of_plane(plane) + ps.next_fresh);
        let count = |b: u32| self.blocks[b].erase_count;
        let free = &self.free_lists[plane as usize];
        let listed = match rule {
            OpenRule::Oldest => free.front().map(|&b| (b, 0)),
            // Never-used blocks all have the same count (0, or the preconditioned age), so the
            // next of them stands for all.
            OpenRule::LeastWorn => free.iter().enumerate().min_by_key(|&(i, &b)| (count(b), i)).map(|(i, &b)| (b, i)),
            OpenRule::MostWorn => free.iter().enumerate().max_by_key(|&(i, &b)| (count(b), std::cmp::Reverse(i))).map(|(i, &b)| (b, i)),
            OpenRule::Fastest => {
                debug_assert!(fresh.is_none(), "set_speed_keys lists every free block");
                self.fastest_listed(plane)
            }
        };
        match (listed, fresh) {
            (Some((b, i)), None) => (b, Some(i)),
            (None, Some(f)) => (f, None),
            (Some((b, i)), Some(f)) => {
                let take_fresh = match rule {
                    OpenRule::Oldest | OpenRule::Fastest => false,
                    OpenRule::LeastWorn => count(f) < count(b),
                    OpenRule::MostWorn => count(f) > count(b),
                };
                if take_fresh { (f, None) } else { (b, Some(i)) }
            }
            (None, None) => panic!("plane {plane}: free count says a block is free but none is"),
        }
    }

    /// Pin a free block of `plane` as the open block of the migration stream, chosen by `rule`,
    /// leaving at least `keep` free blocks and GC its reserve; returns it (`None`: the stream
    /// already has a block, or too few free blocks).
    pub fn pin_migration_block(&mut self, plane: u32, rule: OpenRule, keep: u32) -> Option<u32> {
        let ps = &self.planes[plane as usize];
        // Like a host write opening a block of its own stream: GC keeps a block's worth of pages.
        if ps.active[STREAM_MIGRATION as usize] != NONE || ps.free_blocks <= keep || !self.may_take(plane, Writer::Host, STREAM_HOT, 0) {
            return None;
        }
        let b = self.take_free_block(plane, rule);
        self.set_state(b, BlockState::Active);
        self.open(plane, STREAM_MIGRATION, b);
        self.frontier_moved(plane);
        Some(b)
    }

    /// `block` (just taken free: nothing written yet) is the open block of `stream` of `plane`.
    pub(super) fn open(&mut self, plane: u32, stream: Stream, block: u32) {
        debug_assert_eq!(self.blocks[block].write_ptr, 0);
        let ps = &mut self.planes[plane as usize];
        ps.active[stream as usize] = block;
        ps.open_wp[stream as usize] = 0;
    }

    /// `stream` of `plane` has no open block any more; returns the one it had (`NONE`: none).
    pub(super) fn close(&mut self, plane: u32, stream: Stream) -> u32 {
        let ps = &mut self.planes[plane as usize];
        ps.open_wp[stream as usize] = 0;
        std::mem::replace(&mut ps.active[stream as usize], NONE)
    }

    /// Close `block` if it is the full open block of a grouped stream or wear leveling's
    /// (non-default, non-migration) of `plane`: called when its last page's program is done, so
    /// that GC can take it even if the stream writes nothing more. (The default stream keeps its
    /// full block open until its next allocation, as SSDSim and MQSim do.)
    pub fn close_if_full(&mut self, plane: u32, block: u32) {
        if self.blocks[block].write_ptr as u32 != self.layout.pages_per_block {
            return;
        }
        for stream in [STREAM_HOT, STREAM_WEAR] {
            if self.planes[plane as usize].active[stream as usize] == block {
                self.close(plane, stream);
                self.set_state(block, BlockState::Full);
                self.frontier_moved(plane);
            }
        }
    }

    /// Whether `pin_migration_block` could take a block of `plane` now (besides `keep`).
    pub fn may_pin(&self, plane: u32) -> bool {
        self.planes[plane as usize].active[STREAM_MIGRATION as usize] == NONE && self.may_take(plane, Writer::Host, STREAM_HOT, 0)
    }

    /// The open block of `stream` of `plane`, if it has one.
    pub fn open_block(&self, plane: u32, stream: Stream) -> Option<u32> {
        Some(self.planes[plane as usize].active[stream as usize]).filter(|&b| b != NONE)
    }

    /// The migration stream's block of `plane`, if one is pinned.
    pub fn migration_block(&self, plane: u32) -> Option<u32> {
        self.open_block(plane, STREAM_MIGRATION)
    }

    /// Close the migration stream's block of `plane`: it becomes a GC candidate like any full
    /// block, its unwritten pages unused until it is erased.
    pub fn close_migration_block(&mut self, plane: u32) {
        let b = self.close(plane, STREAM_MIGRATION);
        if b != NONE {
            self.set_state(b, BlockState::Full);
            self.frontier_moved(plane);
        }
    }

    /// Take the migration stream's block of `plane` out of the stream without closing it: it stays
    /// `Active` (no GC victim) with its pages written so far, and the stream may pin another
    /// block. A block set waiting for its partner target parks its blocks so that several sets
    /// can wait on one plane. Returns the block (`None`: the stream had none).
    pub fn park_migration_block(&mut self, plane: u32) -> Option<u32> {
        let b = self.close(plane, STREAM_MIGRATION);
        if b == NONE {
            return None;
        }
        if self.parked.is_empty() {
            self.parked = vec![0; self.layout.planes() as usize];
        }
        self.parked[plane as usize] += 1;
        self.frontier_moved(plane);
        Some(b)
    }

    /// Make parked `block` of `plane` the migration stream's block again, at its write pointer.
    /// True when it is (already, or now); false when the stream holds another block.
    pub fn unpark_migration_block(&mut self, plane: u32, block: u32) -> bool {
        match self.planes[plane as usize].active[STREAM_MIGRATION as usize] {
            b if b == block => true,
            NONE => {
                // Only a parked block comes back: one of this plane's, still `Active`.
                let parked = self.layout.plane_of_block(block) == plane
                    && self.blocks[block].state == BlockState::Active
                    && self.parked_blocks(plane) > 0
                    && !self.planes[plane as usize].active.contains(&block);
                if !parked {
                    debug_assert!(parked, "block {block} is not parked in plane {plane}");
                    return false;
                }
                self.parked[plane as usize] -= 1;
                let wp = self.blocks[block].write_ptr;
                let ps = &mut self.planes[plane as usize];
                ps.active[STREAM_MIGRATION as usize] = block;
                ps.open_wp[STREAM_MIGRATION as usize] = wp;
                self.frontier_moved(plane);
                true
            }
            _ => false,
        }
    }

    /// Migration blocks parked in `plane` (`park_migration_block`).
    pub fn parked_blocks(&self, plane: u32) -> u32 {
        self.parked.get(plane as usize).map_or(0, |&n| n as u32)
    }

    /// The plane's next allocation opens a new block (no open block, or it is full).
    pub fn needs_open(&self, plane: u32) -> bool {
        self.left_in(plane, STREAM_DEFAULT) == 0
    }

    /// The plane's free blocks, in the order they would open. Blocks never used are listed too
    /// (they are moved into the free list on first call, for speed-aware opening).
    pub fn free_list(&mut self, plane: u32) -> &VecDeque<u32> {
        let first = self.layout.first_block_of_plane(plane);
        let bpp = self.layout.blocks_per_plane;
        let ps = &mut self.planes[plane as usize];
        if ps.next_fresh < bpp {
            self.free_lists[plane as usize].extend(first + ps.next_fresh..first + bpp);
            self.fastest[plane as usize].set(None);
            ps.next_fresh = bpp;
        }
        &self.free_lists[plane as usize]
    }

    /// Rank free blocks by `key` (larger first) for `OpenRule::Fastest`; `key` is asked again for
    /// a block when it is erased (`speed_key_changed`). Every plane's never-used blocks are listed
    /// as free (`free_list`), so the rule sees all of them.
    pub fn set_speed_keys(&mut self, key: impl Fn(u32) -> u16) {
        self.speed_keys = (0..self.layout.blocks()).map(&key).collect();
        self.fastest.iter().for_each(|c| c.set(None));
        for p in 0..self.layout.planes() {
            self.free_list(p);
        }
    }

    /// `block`'s speed key is now `key` (its speed was detected again).
    pub fn speed_key_changed(&mut self, block: u32, key: u16) {
        if let Some(k) = self.speed_keys.get_mut(block as usize) {
            *k = key;
            self.fastest[self.layout.plane_of_block(block) as usize].set(None);
        }
    }

    /// The free block `OpenRule::Fastest` would open in `plane` and its key (`None`: no free
    /// block, or no keys).
    pub fn fastest_free(&self, plane: u32) -> Option<(u32, u16)> {
        if self.speed_keys.is_empty() {
            return None;
        }
        self.fastest_listed(plane).map(|(b, _)| (b, self.speed_keys[b as usize]))
    }

    /// The listed free block of `plane` with the largest speed key (the first of them), and its
    /// index in the free list; found once per change of the list or of a key (a scan of the
    /// whole list: it was most of VIOS's placement cost when asked at every peek).
    fn fastest_listed(&self, plane: u32) -> Option<(u32, usize)> {
        let cache = &self.fastest[plane as usize];
        if let Some(f) = cache.get() {
            debug_assert_eq!(Some(f), self.fastest_scan(plane), "plane {plane}: the fastest free block changed unseen");
            return Some(f);
        }
        let f = self.fastest_scan(plane);
        cache.set(f);
        f
    }

    fn fastest_scan(&self, plane: u32) -> Option<(u32, usize)> {
        let key = |b: u32| self.speed_keys[b as usize];
        self.free_lists[plane as usize].iter().enumerate().max_by_key(|&(i, &b)| (key(b), std::cmp::Reverse(i))).map(|(i, &b)| (b, i))
    }

    /// Make free block `block` of `plane` the next one it opens.
    pub fn open_next(&mut self, plane: u32, block: u32) {
        let free = &mut self.free_lists[plane as usize];
        let i = free.iter().position(|&b| b == block).expect("open_next: the block is free in the plane");
        free.remove(i);
        free.push_front(block);
        self.fastest[plane as usize].set(None);
        self.frontier_moved(plane);
    }

    /// The block `peek_allocation(plane, ..)` returns may have changed.
    pub(super) fn frontier_moved(&mut self, plane: u32) {
        self.planes[plane as usize].frontier_gen += 1;
        let chip = self.layout.chip_of_die(self.layout.die_of_plane(plane));
        self.chip_frontier_gen[chip as usize] += 1;
    }

    /// Bumped whenever the frontier of a plane of `chip` may have changed (`PlaneState::frontier_gen`).
    pub fn chip_frontier_gen(&self, chip: u32) -> u32 {
        self.chip_frontier_gen[chip as usize]
    }

    pub(super) fn take_free_block(&mut self, plane: u32, rule: OpenRule) -> u32 {
        let (b, at) = self.pick_free(plane, rule);
        let ps = &mut self.planes[plane as usize];
        match at {
            Some(0) => {
                self.free_lists[plane as usize].pop_front();
            }
            Some(i) => {
                self.free_lists[plane as usize].remove(i);
            }
            None => ps.next_fresh += 1,
        }
        ps.free_blocks -= 1;
        ps.free_gen += 1;
        self.fastest[plane as usize].set(None);
        if self.blocks[b].p2l_slot == NO_SLOT {
            self.blocks[b].p2l_slot = self.p2l.take();
        }
        b
    }
}
