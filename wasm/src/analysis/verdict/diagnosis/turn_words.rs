//! The sentences of the `turns` headline (diagnosis.rs `headline`): request/response
//! turns, each a round trip of the path with everything acknowledged
//! (diagnosis_shares.rs "turns"), took the largest share of the time.

use super::*;
use crate::analysis::format::plural;

/// "3443 times the sender, with everything acknowledged, sent more only on the peer's
/// next message": the turns counted, with the count's grammar.
pub(super) fn turns_count_phrase(f: &Facts) -> String {
    format!("{} the sender, with everything acknowledged, sent more only on the peer's next message", plural(f.sh.turns, "time"))
}

/// Headline of a flow whose largest share of time was request/response turns: the
/// path's latency paid once per turn, not its capacity, the window or the application.
/// The shares are quoted as the bar shows them, so the first sentence, the shares and
/// the label say the same. Where the two ends' time to answer took more of a turn than
/// the network's round trip ([`TurnSplit`]), the wait is said as theirs, with numbers,
/// and no shorter round trip is promised to help.
pub(super) fn turns_text(f: &Facts) -> String {
    let s = f.shares;
    // The timers the loss cost, where it had any (the loss text's clause).
    let timeouts = timeouts_clause(f).map_or(String::new(), |c| format!(" ({c})"));
    let split = TurnSplit::of(f).filter(TurnSplit::ends_dominate);
    let long = long_message::LongMessages::of(f); // the peer's message still arriving: no turns to batch
    let (wait, remedy) = match &split {
        _ if long.is_some() => (String::new(), long.as_ref().map(|m| m.remedy(f)).unwrap_or_default()),
        Some(sp) => (format!("; {}", sp.words(f)), sp.remedy_words(f)),
        None => (
            format!(", each wait at least a round trip ({})", rtt_phrase(f)),
            "fewer turns (pipelining, batching requests) or a shorter round trip would make it faster, a faster link would not".to_string(),
        ),
    };
    let lead = long.map_or_else(|| format!("Request/response turns set the pace: {}, {} of the time", turns_count_phrase(f), format_percent(s.turns)), |m| m.lead(f));
    format!(
        "{lead}{wait}; \
         the congestion window or the path took {}, the receive window {}, loss {}{timeouts} and the application {}; \
         {}. Neither the window nor the link's capacity was the limit: {remedy}.{}{}",
        format_percent(s.other),
        crate::analysis::verdict::window_unjudged::share(f.sh.windows_trusted, s.receive_window),
        format_percent(s.loss),
        format_percent(s.application),
        rate_phrase(f),
        queue_phrase(f),
        // The application's idle stalls are in its share, quoted above.
        other_stalls_phrase(f, 3)
    )
}

/// A typical request/response turn split into the network's round trip and the two
/// ends' time to answer (docs/ANALYSIS.md "Turns: round trip and answer time"), s.
///
/// At the capture point a turn is the sender's answer time as seen there (A: the peer's
/// message → the sender's next data, which holds the round trip's part between the
/// capture and the sender) and the peer's (B: the sender's data → the peer's next
/// message, holding the other part). The network's share is the path RTT (the sum of
/// the two parts' minima, vantage.rs: handshake and ACK timing); each end's own time is
/// its A or B less its part. Only where the round trips show no standing queue
/// ([`rtt_queueing`]): the round trip is then taken at its minimum, while a queue would
/// lengthen A or B by time that is the path's, not an end's (PcapPlusPlus `example.pcap`
/// connection 6, median RTT 110 ms against 23 ms: its "31 ms answer" may be the queue).
/// A PLC answering each request after 3.3 ms on a 0.67 ms LAN
/// (ITI s7comm `libnodavedemo_bench.pcap`) waits on its cycle, not on the round trip:
/// "each wait at least a round trip … a shorter round trip would make it faster" said
/// the round trip where 84 % of each turn was the PLC's.
pub(super) struct TurnSplit {
    /// Median A and B at the capture point.
    pub sender_seen: f64,
    pub peer_seen: f64,
    /// The path RTT and its part between the capture point and the sender.
    pub rtt: f64,
    pub sender_part: f64,
    /// Each end's own time summed over every turn (each A or B less its part, at least
    /// 0), s: (the sender's answers, the peer's next messages). The end to speed up is
    /// the one that took more of the total time, not the one with the larger median: a
    /// few long answers can take most of the time behind a short typical one (issue 39
    /// review Q class C-TURN-MEDIAN-BLAME: an SMB server's two 6 ms Negotiate answers,
    /// 15.5 ms of 21, behind a 143 µs median, once read "a quicker answer from" the
    /// client).
    pub sums: (f64, f64),
}

impl TurnSplit {
    /// From the data direction's rows; None without a path RTT, where the round trips
    /// show a standing queue, or with fewer than [`MIN_TURNS`] answers each way.
    pub fn of(f: &Facts) -> Option<TurnSplit> {
        let rtt = f.min_rtt;
        if !rtt.is_finite() || rtt <= 0.0 || rtt_queueing(f) {
            return None;
        }
        let d = f.conn.data_direction.min(1);
        let cols = f.rows.packets;
        let (mut answers, mut prompts) = (Vec::new(), Vec::new());
        // The peer's message (its time, and how long after the sender's data it came),
        // counted once the sender's answer follows: a message left unanswered (a
        // keep-alive after the last data) is no turn.
        let (mut message_at, mut data_at): (Option<(f64, f64)>, Option<f64>) = (None, None);
        // The transfer's turns: not the idle tail after its end, nor the peer's
        // silence (transfer_tail.rs, peer_silent.rs), whose keep-alives and last
        // message are no turn (a 120-s tail once summed to "next messages 30 s").
        // Nor the head of messages before it (diagnosis_shares/transfer_head.rs).
        let end = f.sh.ends_at().unwrap_or(f64::INFINITY);
        let start = f.sh.transfer_start.map_or(f64::NEG_INFINITY, |s| s.at);
        for i in (0..cols.t.len()).skip_while(|&i| cols.t[i] < start).take_while(|&i| cols.t[i] <= end) {
            if crate::analysis::stalls::is_data_segment(cols, i, d) {
                if let Some((m, prompt)) = message_at.take() {
                    answers.push(cols.t[i] - m);
                    prompts.push(prompt);
                }
                data_at = Some(cols.t[i]);
            } else if cols.dir[i] != d && cols.len[i] > 0 && message_at.is_none() {
                // The peer's first segment of a message after the sender's data.
                if let Some(a) = data_at.take() {
                    message_at = Some((cols.t[i], cols.t[i] - a));
                }
            }
        }
        if answers.len() < MIN_TURNS || prompts.len() < MIN_TURNS {
            return None;
        }
        let sender_part = (f.conn.sender_lag_ms / 1000.0).clamp(0.0, rtt);
        let own = |v: &[f64], part: f64| v.iter().map(|x| (x - part).max(0.0)).sum::<f64>();
        let sums = (own(&answers, sender_part), own(&prompts, rtt - sender_part));
        Some(TurnSplit { sender_seen: median(&mut answers), peer_seen: median(&mut prompts), rtt, sender_part, sums })
    }

    /// The sender took more of the turns' total time than the peer ([`TurnSplit::sums`]).
    pub fn sender_slower(&self) -> bool {
        self.sums.0 >= self.sums.1
    }

    /// Each end's own time: (the sender's, the peer's), s.
    pub fn ends(&self) -> (f64, f64) {
        ((self.sender_seen - self.sender_part).max(0.0), (self.peer_seen - (self.rtt - self.sender_part)).max(0.0))
    }

    /// The ends' time took more of a turn than the network's round trip.
    pub fn ends_dominate(&self) -> bool {
        let (s, p) = self.ends();
        s + p > self.rtt
    }

    fn turn(&self) -> f64 {
        let (s, p) = self.ends();
        self.rtt + s + p
    }

    /// "a typical turn took 4.1 ms: 192.168.1.40:102 answered each request after 3.3 ms,
    /// 192.168.1.10:4272 sent the next 26 µs after each answer, and the network's round
    /// trip was 674 µs (16 %)".
    pub fn words(&self, f: &Facts) -> String {
        let d = f.conn.data_direction.min(1) as usize;
        let (sender, peer) = (&f.conn.directions[d].from, &f.conn.directions[1 - d].from);
        let (s, p) = self.ends();
        format!(
            "a typical turn took {} (medians): {sender} answered each message after {}, {peer} sent its next {} after each answer, and the network's round trip (the path RTT) was {}, {} of the turn; in all, {sender}'s answers took {} and {peer}'s next messages {}",
            format_duration(self.turn()),
            format_duration(s),
            format_duration(p),
            format_duration(self.rtt),
            format_percent(self.rtt / self.turn()),
            format_duration(self.sums.0),
            format_duration(self.sums.1)
        )
    }

    /// What would make it faster: the end that took more of the turns' total time
    /// ([`TurnSplit::sums`]) sooner — the sender's answers, or the peer's next messages
    /// (its requests: no answer of the peer's).
    pub fn remedy_words(&self, f: &Facts) -> String {
        let d = f.conn.data_direction.min(1) as usize;
        let quicker = if self.sender_slower() {
            format!("a quicker answer from {}", f.conn.directions[d].from)
        } else {
            format!("a quicker next message from {}", f.conn.directions[1 - d].from)
        };
        format!(
            "{quicker} or fewer turns (pipelining, batching requests) would make it faster; a shorter round trip would save at most {} a turn, a faster link nothing",
            format_duration(self.rtt)
        )
    }
}

/// Fewest answers each way a typical turn is read from.
pub(super) const MIN_TURNS: usize = 10;

fn median(v: &mut [f64]) -> f64 {
    let k = v.len() / 2;
    *v.select_nth_unstable_by(k, f64::total_cmp).1
}
