//! How the distributed runs write numbers, paths and counts into messages: unsigned
//! LEB128 numbers, lengths before sequences. Messages are written and read by the same
//! build (the handshake checks), so a message that does not read back is a bug.

use crate::explore::report::{Counts, StopReason};
use std::time::Duration;

/// Appends `b` to `out` as [`Writer::bytes`] writes it: its length, then itself.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    let mut v = b.len() as u64;
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out.extend_from_slice(b);
}

/// A message being written.
#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn new() -> Writer {
        Writer::default()
    }

    pub fn u64(&mut self, mut v: u64) -> &mut Self {
        while v >= 0x80 {
            self.bytes.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.bytes.push(v as u8);
        self
    }

    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        put_bytes(&mut self.bytes, b);
        self
    }

    pub fn path(&mut self, p: &[u32]) -> &mut Self {
        self.u64(p.len() as u64);
        for &i in p {
            self.u64(u64::from(i));
        }
        self
    }

    pub fn counts(&mut self, c: &Counts) -> &mut Self {
        self.u64(c.solutions)
            .u64(c.states)
            .u64(c.transitions)
            .u64(c.dead_ends)
    }

    /// A stop reason, or none (0).
    pub fn stop(&mut self, s: Option<StopReason>) -> &mut Self {
        match s {
            None => self.u64(0),
            Some(StopReason::MaxStates(n)) => self.u64(1).u64(n),
            Some(StopReason::MaxSolutions(n)) => self.u64(2).u64(n),
            Some(StopReason::Timeout(d)) => self.u64(3).u64(d.as_nanos() as u64),
            Some(StopReason::Interrupted) => self.u64(4),
            Some(StopReason::Memory(n)) => self.u64(5).u64(n),
            Some(StopReason::AddressSpace { used, limit }) => self.u64(6).u64(used).u64(limit),
        }
    }
}

/// A message being read.
pub struct Reader<'a> {
    bytes: &'a [u8],
    from: usize,
}

impl<'a> Reader<'a> {
    /// Reads `bytes`, a message from worker `from` (named if it does not read back).
    pub fn new(bytes: &'a [u8], from: usize) -> Reader<'a> {
        Reader { bytes, from }
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Bytes not read yet.
    pub fn rest(&self) -> usize {
        self.bytes.len()
    }

    fn corrupt(&self) -> ! {
        panic!("a message from worker {} does not read back", self.from)
    }

    pub fn u64(&mut self) -> u64 {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some((&b, rest)) = self.bytes.split_first() else {
                self.corrupt()
            };
            self.bytes = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return v;
            }
        }
        self.corrupt()
    }

    pub fn usize(&mut self) -> usize {
        self.u64() as usize
    }

    pub fn bytes(&mut self) -> &'a [u8] {
        let n = self.usize();
        if n > self.bytes.len() {
            self.corrupt()
        }
        let (b, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        b
    }

    pub fn path(&mut self) -> Vec<u32> {
        let n = self.usize();
        (0..n).map(|_| self.u64() as u32).collect()
    }

    pub fn counts(&mut self) -> Counts {
        Counts {
            solutions: self.u64(),
            states: self.u64(),
            transitions: self.u64(),
            dead_ends: self.u64(),
        }
    }

    pub fn stop(&mut self) -> Option<StopReason> {
        Some(match self.u64() {
            0 => return None,
            1 => StopReason::MaxStates(self.u64()),
            2 => StopReason::MaxSolutions(self.u64()),
            3 => StopReason::Timeout(Duration::from_nanos(self.u64())),
            4 => StopReason::Interrupted,
            5 => StopReason::Memory(self.u64()),
            6 => StopReason::AddressSpace {
                used: self.u64(),
                limit: self.u64(),
            },
            _ => self.corrupt(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back() {
        let counts = Counts {
            solutions: 1,
            states: 300,
            transitions: u64::MAX,
            dead_ends: 0,
        };
        let mut w = Writer::new();
        w.u64(127)
            .u64(128)
            .path(&[0, 5, 70000])
            .counts(&counts)
            .stop(Some(StopReason::Timeout(Duration::from_millis(1500))))
            .stop(None)
            .stop(Some(StopReason::AddressSpace {
                used: 1 << 33,
                limit: 9 << 30,
            }))
            .bytes(b"abc");
        let mut r = Reader::new(&w.bytes, 0);
        assert_eq!((r.u64(), r.u64()), (127, 128));
        assert_eq!(r.path(), vec![0, 5, 70000]);
        assert_eq!(r.counts(), counts);
        assert_eq!(
            r.stop(),
            Some(StopReason::Timeout(Duration::from_millis(1500)))
        );
        assert_eq!(r.stop(), None);
        assert_eq!(
            r.stop(),
            Some(StopReason::AddressSpace {
                used: 1 << 33,
                limit: 9 << 30,
            })
        );
        assert_eq!(r.bytes(), b"abc");
        assert!(r.is_empty());
    }
}
