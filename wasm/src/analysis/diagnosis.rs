//! STUB (owned by the stalls/diagnosis work).
use super::{ConnectionColumns, ConnectionSummary, Diagnosis, DiagnosisShares};

/// The headline limit of a connection and its explanation; `conn.diagnosis` is a
/// placeholder when this is called.
pub fn diagnose(conn: &ConnectionSummary, cols: &ConnectionColumns) -> Diagnosis {
    let _ = (conn, cols);
    Diagnosis { limit: "too-short".into(), text: String::new(), shares: DiagnosisShares::default() }
}
