//! The processes a capture names (Apple PKTAP headers, Darwin Process Information
//! Blocks in pcapng), interned once so that each packet carries a small index.
//! Memory is bounded: at most `MAX_PROCESSES` distinct (pid, name) pairs are kept;
//! packets of later ones carry no process.

use serde::Serialize;
use std::collections::HashMap;

/// Distinct processes kept per capture (a day of `tcpdump -k` on a busy Mac names a
/// few thousand).
pub const MAX_PROCESSES: usize = 65_536;

/// A process as the capture names it (docs/ANALYSIS.md "Process").
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Process {
    /// Command name (PKTAP: up to 19 bytes; DPIB: the process name option), lossy UTF-8.
    pub name: String,
    pub pid: u32,
}

#[derive(Clone, Debug, Default)]
pub struct ProcessTable {
    list: Vec<Process>,
    index: HashMap<Process, u32>,
    /// The last process interned: consecutive PKTAP packets mostly name the same one,
    /// and matching it needs no allocation.
    last: Option<u32>,
}

impl ProcessTable {
    /// The index of (pid, name), adding it if new; None once the table is full.
    pub fn intern(&mut self, pid: u32, name: &[u8]) -> Option<u32> {
        if let Some(i) = self.last.filter(|&i| self.list.get(i as usize).is_some_and(|p| p.pid == pid && p.name.as_bytes() == name)) {
            return Some(i);
        }
        let p = Process { name: String::from_utf8_lossy(name).into_owned(), pid };
        if let Some(&i) = self.index.get(&p) {
            self.last = Some(i);
            return Some(i);
        }
        if self.list.len() >= MAX_PROCESSES {
            return None;
        }
        let i = self.list.len() as u32;
        self.list.push(p.clone());
        self.index.insert(p, i);
        self.last = Some(i);
        Some(i)
    }

    pub fn get(&self, i: u32) -> Option<&Process> {
        self.list.get(i as usize)
    }

    pub fn list(&self) -> &[Process] {
        &self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_once() {
        let mut t = ProcessTable::default();
        assert_eq!(t.intern(10, b"curl"), Some(0));
        assert_eq!(t.intern(11, b"curl"), Some(1));
        assert_eq!(t.intern(10, b"curl"), Some(0));
        assert_eq!(t.get(1), Some(&Process { name: "curl".into(), pid: 11 }));
        assert_eq!(t.intern(1, &[0xff, b'a']).and_then(|i| t.get(i)).map(|p| p.name.as_str()), Some("\u{fffd}a"));
    }
}
