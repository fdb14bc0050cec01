//! Auditor rule 17 (audit.rs lists every rule): the head cut the text says is the one the
//! report holds (`diagnosis.transferStart`, diagnosis_shares/transfer_head.rs), and the
//! stall list shows its premise: the head's pauses were the applications' own — every
//! stall of the data direction before the bulk phase is `application-idle` (nothing
//! outstanding, RFC 9293 §3.10.7: the sender had nothing to send), and one of them ended
//! at the bulk phase's first segment (the pause before it).

use crate::analysis::format::format_timestamp;
use crate::analysis::report::ConnectionSummary;
use crate::analysis::stalls::cause::StallCause;

/// Rule 17: the transfer's start against the text and the stall list.
pub(super) fn check_transfer_start(c: &ConnectionSummary) -> Vec<String> {
    let text = c.diagnosis.text.as_str();
    let Some(s) = &c.diagnosis.transfer_start else {
        return if text.contains("The transfer began at ") { vec!["the text says where the transfer began, but the report has no transferStart".to_string()] } else { Vec::new() };
    };
    let mut out = Vec::new();
    let want = format!("The transfer began at {} (frame {})", format_timestamp(s.at), s.frame);
    if !text.contains(&want) {
        out.push(format!("the text does not quote the transfer's start ({want})"));
    }
    let sender = &c.directions[c.data_direction.min(1) as usize];
    if let Some(x) = sender.stalls.iter().find(|x| x.start < s.at && x.cause != StallCause::ApplicationIdle) {
        out.push(format!("the head before the transfer's start holds a {:?} stall at {}", x.cause, format_timestamp(x.start)));
    }
    if !sender.stalls.iter().any(|x| x.cause == StallCause::ApplicationIdle && x.frame_after == s.frame) {
        out.push(format!("no application-idle stall ends at the transfer's start (frame {})", s.frame));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::report::{Diagnosis, TransferStart};
    use crate::analysis::stalls::cause::Stall;

    #[test]
    fn the_head_cut_needs_its_quote_and_its_idle_pause() {
        let mut c = crate::analysis::stalls::testkit::summary(Vec::new(), None);
        c.diagnosis = Box::new(Diagnosis { text: "The transfer began at 19.018 s (frame 1700) and carried 99 % …".into(), ..Default::default() });
        // No transferStart: the sentence has no evidence.
        assert_eq!(check_transfer_start(&c).len(), 1);
        c.diagnosis.transfer_start = Some(TransferStart { at: 19.017_9, frame: 1700, ..Default::default() });
        // No idle stall ends at frame 1700: the head's last pause is not in the stall list.
        assert_eq!(check_transfer_start(&c), vec!["no application-idle stall ends at the transfer's start (frame 1700)".to_string()]);
        c.directions[c.data_direction.min(1) as usize].stalls.push(Stall { start: 18.5, duration: 0.5179, cause: StallCause::ApplicationIdle, frame_before: 1690, frame_after: 1700, ended_by: String::new() });
        assert!(check_transfer_start(&c).is_empty());
    }
}
