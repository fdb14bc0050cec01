//! STUB (owned by the decode work).
