//! The one thing the decoder reads of a TCP payload: whether it starts with a TLS
//! alert record (RFC 8446 §5.1 record header, §6 alerts; RFC 5246 §6.2.1, §7.2), so
//! that the analysis can say a connection ended in an alert (analysis/track/ending.rs). The
//! payload is not kept; this looks at its first 7 bytes, and only when the first is 21.
//!
//! What can be seen: a TLS 1.2 (or older) alert, in the clear during the handshake or
//! encrypted after it (its record type stays 21 on the wire). A TLS 1.3 alert sent
//! after the handshake travels as `application_data` (type 23, RFC 8446 §5.2) and
//! cannot be told from data: none is reported.

/// A segment whose payload starts with a TLS alert record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlsAlert {
    /// A plaintext alert (record length 2): its level (1 warning, 2 fatal) and
    /// description (RFC 8446 §6: 0 close_notify, 40 handshake_failure, ...).
    Plain { level: u8, description: u8 },
    /// An encrypted alert (record length above 2), or one whose two bytes the
    /// snaplen cut: an alert, of unknown kind.
    Unreadable,
}

/// Content type of an alert record (RFC 8446 §5.1 `ContentType.alert`).
pub const ALERT: u8 = 21;
/// Largest record payload a TLS 1.2 peer may send: 2^14 + 2048 (RFC 5246 §6.2.3);
/// TLS 1.3's limit, 2^14 + 256 (RFC 8446 §5.2), is below it.
const MAX_RECORD: usize = (1 << 14) + 2048;

/// The alert at the start of a payload of `payload_len` bytes (as the IP length says)
/// of which `captured` are in the capture. A record header is valid when its type is
/// 21, its version 3.0–3.4 (SSL 3.0 to TLS 1.3's legacy value), its length at least 2
/// and within the limit, and the record fits in the segment: random data passes this
/// about once in 10^8 segments, and the analysis looks only at a side's last data.
/// Not inlined: the decoder calls it only for a payload whose first byte is 21.
#[inline(never)]
pub fn alert_at_start(captured: &[u8], payload_len: u32) -> Option<TlsAlert> {
    if captured.first() != Some(&ALERT) {
        return None;
    }
    let &[_, major, minor, hi, lo, ..] = captured else { return None };
    let len = usize::from(u16::from_be_bytes([hi, lo]));
    if major != 3 || minor > 4 || !(2..=MAX_RECORD).contains(&len) || 5 + len > payload_len as usize {
        return None;
    }
    if len > 2 {
        return Some(TlsAlert::Unreadable);
    }
    match captured.get(5..7) {
        // RFC 8446 §6: AlertLevel is warning(1) or fatal(2); anything else is no alert.
        Some(&[level, description]) if level == 1 || level == 2 => Some(TlsAlert::Plain { level, description }),
        Some(_) => None,
        None => Some(TlsAlert::Unreadable),
    }
}

/// The name RFC 8446 §6 (and RFC 5246 §7.2 for the older ones) gives a description.
pub fn alert_name(description: u8) -> Option<&'static str> {
    Some(match description {
        0 => "close_notify",
        10 => "unexpected_message",
        20 => "bad_record_mac",
        21 => "decryption_failed",
        22 => "record_overflow",
        30 => "decompression_failure",
        40 => "handshake_failure",
        41 => "no_certificate",
        42 => "bad_certificate",
        43 => "unsupported_certificate",
        44 => "certificate_revoked",
        45 => "certificate_expired",
        46 => "certificate_unknown",
        47 => "illegal_parameter",
        48 => "unknown_ca",
        49 => "access_denied",
        50 => "decode_error",
        51 => "decrypt_error",
        60 => "export_restriction",
        70 => "protocol_version",
        71 => "insufficient_security",
        80 => "internal_error",
        86 => "inappropriate_fallback",
        90 => "user_canceled",
        100 => "no_renegotiation",
        109 => "missing_extension",
        110 => "unsupported_extension",
        111 => "certificate_unobtainable",
        112 => "unrecognized_name",
        113 => "bad_certificate_status_response",
        114 => "bad_certificate_hash_value",
        115 => "unknown_psk_identity",
        116 => "certificate_required",
        120 => "no_application_protocol",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plaintext_and_encrypted_alerts_are_told_apart() {
        // A fatal handshake_failure in the clear: 15 03 03 00 02 02 28.
        assert_eq!(alert_at_start(&[21, 3, 3, 0, 2, 2, 40], 7), Some(TlsAlert::Plain { level: 2, description: 40 }));
        // A TLS 1.2 AES-GCM alert: 8 bytes of nonce + 2 + 16 of tag = 26 (0x1a).
        assert_eq!(alert_at_start(&[21, 3, 3, 0, 0x1a, 0x9f, 0x31], 31), Some(TlsAlert::Unreadable));
        // The snaplen cut the two bytes of a plaintext alert.
        assert_eq!(alert_at_start(&[21, 3, 1, 0, 2], 7), Some(TlsAlert::Unreadable));
    }

    #[test]
    fn what_is_not_an_alert_record() {
        assert_eq!(alert_at_start(&[23, 3, 3, 0, 2, 2, 40], 7), None); // application_data
        assert_eq!(alert_at_start(&[21, 2, 0, 0, 2, 2, 40], 7), None); // version 2.0
        assert_eq!(alert_at_start(&[21, 3, 5, 0, 2, 2, 40], 7), None); // version 3.5
        assert_eq!(alert_at_start(&[21, 3, 3, 0, 1, 2], 6), None); // shorter than an alert
        assert_eq!(alert_at_start(&[21, 3, 3, 0, 2, 3, 40], 7), None); // level 3
        assert_eq!(alert_at_start(&[21, 3, 3, 0, 0x1a], 20), None); // longer than the segment
        assert_eq!(alert_at_start(&[21, 3, 3, 0x48, 0x01], 20_000), None); // beyond 2^14 + 2048
        assert_eq!(alert_at_start(&[21, 3], 7), None); // header cut
        assert_eq!(alert_at_start(&[], 0), None);
    }

    #[test]
    fn names() {
        assert_eq!(alert_name(0), Some("close_notify"));
        assert_eq!(alert_name(40), Some("handshake_failure"));
        assert_eq!(alert_name(7), None);
    }
}
