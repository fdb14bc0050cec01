//! STUB (owned by the decode work): deterministic writer of pcap/pcapng files of
//! scripted TCP exchanges, for fixture tests with known answers.
