//! Go's `sort.Sort` as kubectl v1.32 runs it (Go 1.23: pattern-defeating
//! quicksort, not stable). kustomize sorts its field-spec tables with it, and
//! the order it leaves elements that compare equal in is visible: it decides
//! which of two equal-GVK field specs comes first in a table. The steps
//! below (insertion sort up to 12 elements, pivot choice, partitions, the
//! pattern breaking with a length-seeded xorshift, heapsort fallback) follow
//! Go's algorithm so that every swap happens where Go's does.

/// Sorts `v` in place as Go's `sort.Sort` does with the given `less`.
pub fn sort<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let n = v.len();
    if n <= 1 {
        return;
    }
    let mut s = Sorter { v, less };
    s.pdqsort(0, n, bits_len(n));
}

/// Go's `bits.Len`: the number of bits needed to write `n`.
fn bits_len(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

struct Sorter<'a, T, F> {
    v: &'a mut [T],
    less: F,
}

impl<T, F: Fn(&T, &T) -> bool> Sorter<'_, T, F> {
    fn less(&self, i: usize, j: usize) -> bool {
        (self.less)(&self.v[i], &self.v[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.v.swap(i, j);
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.less(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    fn sift_down(&mut self, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                return;
            }
            if child + 1 < hi && self.less(first + child, first + child + 1) {
                child += 1;
            }
            if !self.less(first + root, first + child) {
                return;
            }
            self.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(&mut self, a: usize, b: usize) {
        let hi = b - a;
        for i in (0..=(hi - 1) / 2).rev() {
            self.sift_down(i, hi, a);
        }
        for i in (0..hi).rev() {
            self.swap(a, a + i);
            self.sift_down(0, i, a);
        }
    }

    fn pdqsort(&mut self, mut a: usize, mut b: usize, mut limit: u32) {
        const MAX_INSERTION: usize = 12;
        let mut was_balanced = true;
        let mut was_partitioned = true;
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                self.insertion_sort(a, b);
                return;
            }
            if limit == 0 {
                self.heap_sort(a, b);
                return;
            }
            if !was_balanced {
                self.break_patterns(a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = self.choose_pivot(a, b);
            if hint == Hint::Decreasing {
                self.reverse_range(a, b);
                pivot = (b - 1) - (pivot - a);
                hint = Hint::Increasing;
            }
            if was_balanced
                && was_partitioned
                && hint == Hint::Increasing
                && self.partial_insertion_sort(a, b)
            {
                return;
            }
            if a > 0 && !self.less(a - 1, pivot) {
                a = self.partition_equal(a, b, pivot);
                continue;
            }
            let (mid, already) = self.partition(a, b, pivot);
            was_partitioned = already;
            let (left, right) = (mid - a, b - mid);
            let threshold = length / 8;
            if left < right {
                was_balanced = left >= threshold;
                self.pdqsort(a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right >= threshold;
                self.pdqsort(mid + 1, b, limit);
                b = mid;
            }
        }
    }

    /// Moves the elements less than the pivot before it and the others
    /// after it; also tells whether nothing had to move.
    fn partition(&mut self, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        self.swap(a, pivot);
        // `i` and `j` bound what is left to look at (both inclusive); `j`
        // may step below `a + 1`, hence the signed arithmetic.
        let (mut i, mut j) = (a as isize + 1, b as isize - 1);
        let less = |s: &Self, x: isize| s.less(x as usize, a);
        while i <= j && less(self, i) {
            i += 1;
        }
        while i <= j && !less(self, j) {
            j -= 1;
        }
        if i > j {
            self.swap(j as usize, a);
            return (j as usize, true);
        }
        self.swap(i as usize, j as usize);
        i += 1;
        j -= 1;
        loop {
            while i <= j && less(self, i) {
                i += 1;
            }
            while i <= j && !less(self, j) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i as usize, j as usize);
            i += 1;
            j -= 1;
        }
        self.swap(j as usize, a);
        (j as usize, false)
    }

    /// Splits `[a, b)`, where nothing is less than the pivot, into the
    /// elements equal to it and those greater.
    fn partition_equal(&mut self, a: usize, b: usize, pivot: usize) -> usize {
        self.swap(a, pivot);
        let (mut i, mut j) = (a as isize + 1, b as isize - 1);
        loop {
            while i <= j && !self.less(a, i as usize) {
                i += 1;
            }
            while i <= j && self.less(a, j as usize) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i as usize, j as usize);
            i += 1;
            j -= 1;
        }
        i as usize
    }

    /// Fixes a few out-of-order neighbours; true when `[a, b)` ends sorted.
    fn partial_insertion_sort(&mut self, a: usize, b: usize) -> bool {
        const MAX_STEPS: usize = 5;
        const SHORTEST_SHIFTING: usize = 50;
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !self.less(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            self.swap(i, i - 1);
            // Go walks the smaller element left down to index 1 of the
            // whole slice, not of `[a, b)`.
            if i - a >= 2 {
                let mut j = i - 1;
                while j >= 1 {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j -= 1;
                }
            }
            if b - i >= 2 {
                for j in i + 1..b {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                }
            }
        }
        false
    }

    fn break_patterns(&mut self, a: usize, b: usize) {
        let length = b - a;
        if length < 8 {
            return;
        }
        // Go 1.23's xorshift (shifts 13, 17, 5), seeded with the length.
        let mut random = length as u64;
        let modulus = 1usize << bits_len(length);
        let start = a + (length / 4) * 2 - 1;
        for idx in start..=start + 2 {
            random ^= random << 13;
            random ^= random >> 17;
            random ^= random << 5;
            let mut other = (random as usize) & (modulus - 1);
            if other >= length {
                other -= length;
            }
            self.swap(idx, a + other);
        }
    }

    fn choose_pivot(&mut self, a: usize, b: usize) -> (usize, Hint) {
        const SHORTEST_NINTHER: usize = 50;
        const MAX_SWAPS: usize = 4 * 3;
        let l = b - a;
        let mut swaps = 0;
        let mut i = a + l / 4;
        let mut j = a + l / 4 * 2;
        let mut k = a + l / 4 * 3;
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = self.median(i - 1, i, i + 1, &mut swaps);
                j = self.median(j - 1, j, j + 1, &mut swaps);
                k = self.median(k - 1, k, k + 1, &mut swaps);
            }
            j = self.median(i, j, k, &mut swaps);
        }
        match swaps {
            0 => (j, Hint::Increasing),
            MAX_SWAPS => (j, Hint::Decreasing),
            _ => (j, Hint::Unknown),
        }
    }

    fn order2(&self, a: usize, b: usize, swaps: &mut usize) -> (usize, usize) {
        if self.less(b, a) {
            *swaps += 1;
            (b, a)
        } else {
            (a, b)
        }
    }

    fn median(&self, a: usize, b: usize, c: usize, swaps: &mut usize) -> usize {
        let (a, b) = self.order2(a, b, swaps);
        let (b, _c) = self.order2(b, c, swaps);
        let (_a, b) = self.order2(a, b, swaps);
        b
    }

    fn reverse_range(&mut self, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted_by_key(v: &[(u32, usize)]) -> Vec<(u32, usize)> {
        let mut w = v.to_vec();
        sort(&mut w, |a, b| a.0 < b.0);
        w
    }

    #[test]
    fn sorts() {
        // Pseudo-random keys of every length up to 300, many equal.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for n in 0..300 {
            let v: Vec<(u32, usize)> = (0..n)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    ((x % 17) as u32, i)
                })
                .collect();
            let w = sorted_by_key(&v);
            assert!(w.windows(2).all(|p| p[0].0 <= p[1].0), "length {n}");
            let mut a: Vec<usize> = w.iter().map(|p| p.1).collect();
            a.sort_unstable();
            assert_eq!(a, (0..n).collect::<Vec<_>>());
        }
        // Reversed and already sorted input, long enough for every path.
        for n in [13, 49, 50, 51, 200, 1000] {
            let v: Vec<(u32, usize)> = (0..n).map(|i| ((n - i) as u32, i)).collect();
            assert!(sorted_by_key(&v).windows(2).all(|p| p[0].0 <= p[1].0));
            let v: Vec<(u32, usize)> = (0..n).map(|i| ((i / 3) as u32, i)).collect();
            assert_eq!(sorted_by_key(&v), v);
        }
    }

    #[test]
    fn short_slices_keep_equal_elements_in_order() {
        // Up to 12 elements Go uses insertion sort, which is stable.
        let v: Vec<(u32, usize)> = (0..12).map(|i| ((i % 3) as u32, i)).collect();
        let w = sorted_by_key(&v);
        let mut want = v.clone();
        want.sort_by_key(|p| p.0);
        assert_eq!(w, want);
    }
}
