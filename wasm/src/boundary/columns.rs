//! The names of a connection's column copies (`WasmSession::columnF64/U32/U8`,
//! bindings.rs; read by web/worker/columns.ts for share snapshots of the legacy
//! format), each with its element type: one list for both sides.

/// Element type of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    F64,
    U32,
    U8,
}

impl Element {
    pub fn name(self) -> &'static str {
        match self {
            Element::F64 => "f64",
            Element::U32 => "u32",
            Element::U8 => "u8",
        }
    }
}

/// One column a session hands out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    PacketsT,
    PacketsDir,
    PacketsFrame,
    PacketsSeq,
    PacketsLen,
    PacketsWireLen,
    PacketsAck,
    PacketsWin,
    PacketsInFlight,
    PacketsFlags,
    SackT,
    SackDir,
    SackLeft,
    SackRight,
    RttT,
    RttDir,
    RttRttMs,
    RttKind,
}

/// Every column: its name (`table.field`, the field as in `ConnectionData`) and type.
pub const COLUMNS: [(Column, &str, Element); 18] = {
    use Column::*;
    use Element::*;
    [
        (PacketsT, "packets.t", F64),
        (PacketsDir, "packets.dir", U8),
        (PacketsFrame, "packets.frame", U32),
        (PacketsSeq, "packets.seq", F64),
        (PacketsLen, "packets.len", U32),
        (PacketsWireLen, "packets.wireLen", U32),
        (PacketsAck, "packets.ack", F64),
        (PacketsWin, "packets.win", F64),
        (PacketsInFlight, "packets.inFlight", F64),
        (PacketsFlags, "packets.flags", U32),
        (SackT, "sack.t", F64),
        (SackDir, "sack.dir", U8),
        (SackLeft, "sack.left", F64),
        (SackRight, "sack.right", F64),
        (RttT, "rtt.t", F64),
        (RttDir, "rtt.dir", U8),
        (RttRttMs, "rtt.rttMs", F64),
        (RttKind, "rtt.kind", U8),
    ]
};

impl Column {
    /// The column named `name` of element type `element`; None for any other name.
    pub fn parse(name: &str, element: Element) -> Option<Column> {
        COLUMNS.iter().find(|c| c.1 == name && c.2 == element).map(|c| c.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_once_and_parsed_by_its_type() {
        for (i, (c, name, e)) in COLUMNS.into_iter().enumerate() {
            assert_eq!(c as usize, i, "{name}");
            assert_eq!(Column::parse(name, e), Some(c));
            let other = if e == Element::F64 { Element::U8 } else { Element::F64 };
            assert_eq!(Column::parse(name, other), None);
        }
        assert_eq!(Column::parse("packets.nope", Element::F64), None);
    }
}
