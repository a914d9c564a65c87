//! FP-Growth (Han, Pei and Yin, SIGMOD 2000; spec §13): the frequent itemsets of a list of
//! transactions, in two passes over them and no candidate generation.
//!
//! 1. Count each item's support (the transactions holding it); keep those with at least
//!    `min_support`, ordered by descending support (ties: smaller item first, so runs are
//!    deterministic).
//! 2. Insert each transaction's frequent items, in that order, into a prefix tree whose nodes count
//!    the transactions through them; a header list links every node of an item.
//! 3. For each item from the least frequent up: emit it (with the current suffix) with its support,
//!    gather the prefix paths of its nodes weighted by their counts (its conditional pattern base),
//!    build a tree of those and recurse with the item added to the suffix.
//!
//! Pattern-based write scheduling (paper 004) mines the write addresses of each window with it; the
//! miner itself knows nothing of addresses. Tested against a brute-force miner.

use rustc_hash::FxHashMap;

/// A frequent itemset: its items in ascending order and the transactions holding all of them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Itemset {
    pub items: Vec<u32>,
    pub support: u32,
}

const ROOT: u32 = 0;
const NIL: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Node {
    item: u32,
    count: u32,
    parent: u32,
    /// The next node of the same item (the header list).
    next: u32,
}

/// An FP-tree over weighted transactions.
struct Tree {
    nodes: Vec<Node>,
    /// Children of each node, (item, node), few per node.
    children: Vec<Vec<(u32, u32)>>,
    /// Frequent items, most frequent first, with their support and the head of their node list.
    header: Vec<(u32, u32, u32)>,
}

impl Tree {
    /// The tree of `transactions` (items, weight), keeping items of support >= `min_support`.
    fn build(transactions: &[(Vec<u32>, u32)], min_support: u32) -> Tree {
        let mut support: FxHashMap<u32, u32> = FxHashMap::default();
        for (items, w) in transactions {
            for &i in items {
                *support.entry(i).or_default() += w;
            }
        }
        let mut frequent: Vec<(u32, u32)> = support.into_iter().filter(|&(_, s)| s >= min_support).collect();
        frequent.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let rank: FxHashMap<u32, usize> = frequent.iter().enumerate().map(|(r, &(i, _))| (i, r)).collect();
        let mut tree = Tree {
            nodes: vec![Node { item: NIL, count: 0, parent: NIL, next: NIL }],
            children: vec![Vec::new()],
            header: frequent.iter().map(|&(i, s)| (i, s, NIL)).collect(),
        };
        let mut path: Vec<u32> = Vec::new();
        for (items, w) in transactions {
            path.clear();
            path.extend(items.iter().copied().filter(|i| rank.contains_key(i)));
            path.sort_by_key(|i| rank[i]);
            let mut at = ROOT;
            for &item in &path {
                at = match tree.children[at as usize].iter().find(|c| c.0 == item) {
                    Some(&(_, n)) => n,
                    None => {
                        let n = tree.nodes.len() as u32;
                        let h = &mut tree.header[rank[&item]];
                        tree.nodes.push(Node { item, count: 0, parent: at, next: h.2 });
                        h.2 = n;
                        tree.children.push(Vec::new());
                        tree.children[at as usize].push((item, n));
                        n
                    }
                };
                tree.nodes[at as usize].count += w;
            }
        }
        tree
    }

    /// The tree is one path (no node has two children).
    fn single_path(&self) -> bool {
        self.children.iter().all(|c| c.len() <= 1)
    }

    /// Emit every frequent itemset of this tree extended by `suffix` (at most `max_len` items).
    /// With `cover`, a single-path tree emits only the whole path (with the suffix): every
    /// frequent itemset is then a subset of an emitted one, which is all maximal-set mining needs
    /// and keeps a long path from costing 2^length itemsets. `nodes` counts the tree nodes built.
    fn mine(&self, suffix: &mut Vec<u32>, min_support: u32, max_len: usize, cover: bool, nodes: &mut u64, out: &mut Vec<Itemset>) {
        *nodes += self.nodes.len() as u64 - 1;
        if cover && self.single_path() && !self.header.is_empty() {
            // Support of the whole path: its deepest node's count (counts fall along a path).
            let support = self.header.iter().map(|h| h.1).min().unwrap_or(0);
            let mut items = suffix.clone();
            items.extend(self.header.iter().map(|h| h.0));
            items.sort_unstable();
            out.push(Itemset { items, support });
            return;
        }
        for &(item, support, head) in self.header.iter().rev() {
            suffix.push(item);
            let mut items = suffix.clone();
            items.sort_unstable();
            out.push(Itemset { items, support });
            if suffix.len() < max_len {
                // The prefix paths of the item's nodes, each weighted by the node's count.
                let mut base: Vec<(Vec<u32>, u32)> = Vec::new();
                let mut n = head;
                while n != NIL {
                    let node = self.nodes[n as usize];
                    let mut prefix = Vec::new();
                    let mut p = node.parent;
                    while p != ROOT {
                        prefix.push(self.nodes[p as usize].item);
                        p = self.nodes[p as usize].parent;
                    }
                    if !prefix.is_empty() {
                        base.push((prefix, node.count));
                    }
                    n = node.next;
                }
                if !base.is_empty() {
                    let cond = Tree::build(&base, min_support);
                    if !cond.header.is_empty() {
                        cond.mine(suffix, min_support, max_len, cover, nodes, out);
                    }
                }
            }
            suffix.pop();
        }
    }
}

/// Every itemset of at most `max_len` items contained in at least `min_support` (>= 1) of
/// `transactions` (each read as a set: repeated items count once), sorted by length then items.
pub fn frequent_itemsets(transactions: &[Vec<u32>], min_support: u32, max_len: usize) -> Vec<Itemset> {
    let min_support = min_support.max(1);
    let mut out = Vec::new();
    if max_len > 0 {
        Tree::build(&as_sets(transactions), min_support).mine(&mut Vec::new(), min_support, max_len, false, &mut 0, &mut out);
    }
    out.sort_by(|a, b| a.items.len().cmp(&b.items.len()).then_with(|| a.items.cmp(&b.items)));
    out
}

/// The maximal frequent itemsets of at least `min_len` items (what [`maximal`] keeps of
/// [`frequent_itemsets`] with no length cap), mined without listing every frequent subset, and
/// the FP-tree nodes built doing it (a deterministic measure of the mining work).
pub fn maximal_itemsets(transactions: &[Vec<u32>], min_support: u32, min_len: usize) -> (Vec<Itemset>, u64) {
    let min_support = min_support.max(1);
    let mut out = Vec::new();
    let mut nodes = 0;
    Tree::build(&as_sets(transactions), min_support).mine(&mut Vec::new(), min_support, usize::MAX, true, &mut nodes, &mut out);
    out.sort_by(|a, b| a.items.len().cmp(&b.items.len()).then_with(|| a.items.cmp(&b.items)));
    out.dedup();
    (maximal(&out, min_len), nodes)
}

/// Transactions as sorted sets of weight 1.
fn as_sets(transactions: &[Vec<u32>]) -> Vec<(Vec<u32>, u32)> {
    transactions
        .iter()
        .map(|t| {
            let mut t = t.clone();
            t.sort_unstable();
            t.dedup();
            (t, 1)
        })
        .collect()
}

/// Of `sets` (as [`frequent_itemsets`] returns them), those of at least `min_len` items that no
/// other set of the list contains: the maximal frequent itemsets.
pub fn maximal(sets: &[Itemset], min_len: usize) -> Vec<Itemset> {
    let contains = |big: &[u32], small: &[u32]| small.iter().all(|i| big.binary_search(i).is_ok());
    sets.iter()
        .filter(|s| s.items.len() >= min_len)
        .filter(|s| !sets.iter().any(|o| o.items.len() > s.items.len() && contains(&o.items, &s.items)))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every subset of the items seen, counted against every transaction.
    fn brute_force(transactions: &[Vec<u32>], min_support: u32, max_len: usize) -> Vec<Itemset> {
        let sets: Vec<Vec<u32>> = transactions
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t.sort_unstable();
                t.dedup();
                t
            })
            .collect();
        let mut items: Vec<u32> = sets.iter().flatten().copied().collect();
        items.sort_unstable();
        items.dedup();
        let mut out = Vec::new();
        for mask in 1u32..(1 << items.len()) {
            let set: Vec<u32> = (0..items.len()).filter(|b| mask & (1 << b) != 0).map(|b| items[b]).collect();
            if set.len() > max_len {
                continue;
            }
            let support = sets.iter().filter(|t| set.iter().all(|i| t.binary_search(i).is_ok())).count() as u32;
            if support >= min_support.max(1) {
                out.push(Itemset { items: set, support });
            }
        }
        out.sort_by(|a, b| a.items.len().cmp(&b.items.len()).then_with(|| a.items.cmp(&b.items)));
        out
    }

    #[test]
    fn the_textbook_example() {
        // Han et al.'s running example (items a..p as numbers), minimum support 3: the frequent
        // itemsets include {f, c, a, m, p}'s {c, p} and {f, c, a, m}.
        let (a, b, c, f, m, p) = (0, 1, 2, 5, 12, 15);
        let t = vec![
            vec![f, a, c, 3, 6, 8, m, p],
            vec![a, b, c, f, 11, m, 14],
            vec![b, f, 7, 9, 14],
            vec![b, c, 10, 18, p],
            vec![a, f, c, 4, 11, p, m, 13],
        ];
        let got = frequent_itemsets(&t, 3, usize::MAX);
        assert_eq!(got, brute_force(&t, 3, usize::MAX));
        assert!(got.contains(&Itemset { items: vec![c, p], support: 3 }));
        assert!(got.contains(&Itemset { items: vec![a, c, f, m], support: 3 }));
        let max = maximal(&got, 3);
        assert_eq!(max, vec![Itemset { items: vec![a, c, f, m], support: 3 }]);
    }

    #[test]
    fn a_long_repeated_extent_is_one_pattern_without_enumerating_its_subsets() {
        // 64 pages written together four times: 2^64 frequent subsets, one maximal set.
        let extent: Vec<u32> = (100..164).collect();
        let mut t = vec![extent.clone(); 4];
        t.push(vec![1, 2, 3]);
        let (max, nodes) = maximal_itemsets(&t, 4, 3);
        assert_eq!(max, vec![Itemset { items: extent, support: 4 }]);
        assert_eq!(nodes, 64, "one tree, one path");
    }

    #[test]
    fn repeated_items_count_once_and_max_len_caps() {
        let t = vec![vec![1, 1, 2], vec![1, 2, 2], vec![2, 1]];
        let got = frequent_itemsets(&t, 3, 1);
        assert_eq!(got, vec![Itemset { items: vec![1], support: 3 }, Itemset { items: vec![2], support: 3 }]);
        assert!(frequent_itemsets(&t, 4, 5).is_empty());
        assert!(frequent_itemsets(&[], 1, 5).is_empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn agrees_with_brute_force(
            t in prop::collection::vec(prop::collection::vec(0u32..9, 0..7), 0..14),
            min_support in 1u32..5,
            max_len in 1usize..6,
        ) {
            prop_assert_eq!(frequent_itemsets(&t, min_support, max_len), brute_force(&t, min_support, max_len));
        }

        #[test]
        fn maximal_mining_agrees_with_filtering_every_itemset(
            t in prop::collection::vec(prop::collection::vec(0u32..10, 0..8), 0..16),
            min_support in 1u32..5,
            min_len in 1usize..4,
        ) {
            let all = frequent_itemsets(&t, min_support, usize::MAX);
            prop_assert_eq!(maximal_itemsets(&t, min_support, min_len).0, maximal(&all, min_len));
        }

        #[test]
        fn maximal_sets_are_frequent_and_cover_the_others(
            t in prop::collection::vec(prop::collection::vec(0u32..8, 0..6), 0..12),
            min_support in 1u32..4,
        ) {
            let all = frequent_itemsets(&t, min_support, usize::MAX);
            let max = maximal(&all, 1);
            for s in &all {
                prop_assert!(max.iter().any(|m| s.items.iter().all(|i| m.items.contains(i))));
            }
            for (i, a) in max.iter().enumerate() {
                for b in &max[i + 1..] {
                    prop_assert!(!a.items.iter().all(|x| b.items.contains(x)) && !b.items.iter().all(|x| a.items.contains(x)));
                }
            }
        }
    }
}
