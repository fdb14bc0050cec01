//! The TTL families of one direction (two_senders.rs), stored for the common case: one
//! TTL per direction is held inline, and only a second TTL allocates (issue 43 item 4:
//! a `Vec<Family>` made at each direction's first packet cost 224 B per direction on
//! the heap, 0.45 KB per connection, for one family nearly always).

/// What one TTL value of a direction sent.
#[derive(Clone, Copy, Debug)]
pub(super) struct Family {
    pub ttl: u8,
    pub packets: u32,
    pub frames: [u32; 2],
    /// The byte after its highest byte sent, a FIN counted (relative).
    pub high: i64,
    /// Its first FIN's time since the file's first packet (ns), valid where `fin_frame`
    /// is not 0 (frame numbers start at 1).
    fin_ns: i64,
    fin_frame: u32,
}

impl Family {
    /// Its first FIN: (time since the file's first packet, ns; frame).
    pub fn fin(&self) -> Option<(i64, u32)> {
        (self.fin_frame != 0).then_some((self.fin_ns, self.fin_frame))
    }
}

/// At most `max` families in the order their TTLs first came: the first inline, the
/// others on the heap.
#[derive(Clone, Debug, Default)]
pub(super) struct Families {
    first: Option<Family>,
    more: Vec<Family>,
}

impl Families {
    pub fn iter(&self) -> impl Iterator<Item = &Family> {
        self.first.iter().chain(self.more.iter())
    }

    /// Counts a packet with `ttl` (frame `frame`, ending at `end`, its FIN `fin`), or
    /// starts the TTL's family while fewer than `max` are followed.
    pub fn add(&mut self, ttl: u8, frame: u32, end: i64, fin: Option<(i64, u32)>, max: usize) {
        if let Some(f) = self.first.iter_mut().chain(self.more.iter_mut()).find(|f| f.ttl == ttl) {
            f.packets += 1;
            f.frames[1] = frame;
            f.high = f.high.max(end);
            if f.fin_frame == 0 {
                if let Some((ns, frame)) = fin {
                    (f.fin_ns, f.fin_frame) = (ns, frame);
                }
            }
            return;
        }
        let (fin_ns, fin_frame) = fin.unwrap_or((0, 0));
        let new = Family { ttl, packets: 1, frames: [frame, frame], high: end, fin_ns, fin_frame };
        if self.first.is_none() {
            self.first = Some(new);
        } else if 1 + self.more.len() < max {
            self.more.push(new);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_keep_first_come_order_first_fin_and_the_cap() {
        let mut f = Families::default();
        f.add(64, 1, 100, None, 4);
        f.add(64, 3, 80, Some((7, 3)), 4); // lower end: the high stays 100; its first FIN
        f.add(64, 5, 120, Some((9, 5)), 4); // a later FIN does not replace the first
        for (i, ttl) in [50u8, 51, 52, 53].into_iter().enumerate() {
            f.add(ttl, 10 + i as u32, 1, None, 4);
        }
        let got: Vec<(u8, u32, [u32; 2], i64, Option<(i64, u32)>)> = f.iter().map(|x| (x.ttl, x.packets, x.frames, x.high, x.fin())).collect();
        // 4 TTLs at most: 53 came after the cap.
        assert_eq!(got, vec![(64, 3, [1, 5], 120, Some((7, 3))), (50, 1, [10, 10], 1, None), (51, 1, [11, 11], 1, None), (52, 1, [12, 12], 1, None)]);
    }

    #[test]
    fn one_ttl_allocates_nothing() {
        let mut f = Families::default();
        f.add(64, 1, 100, None, 4);
        f.add(64, 2, 200, None, 4);
        assert_eq!(f.more.capacity(), 0);
        // Inline: the family and an empty Vec, not 4 × 56 B on the heap per direction.
        assert!(std::mem::size_of::<Families>() <= 72, "{}", std::mem::size_of::<Families>());
    }
}
