//! The integration tests, one test binary (issue 42 item 1: ~70 binaries, each linking the
//! core and its dependencies, cost more CPU to build than their tests to run).
//! Each tests/NAME.rs is a module here: `cargo test --test all NAME::` runs one file's tests
//! (`cargo test --test all NAME::TEST` one test). audit_captures.rs, the corpus auditor, stays
//! a test binary of its own (Cargo.toml [[test]]): it is run in release
//! (`cargo test --release --test audit_captures`), which need not build the rest in release.
//!
//! Cargo.toml sets `autotests = false`, so a tests/*.rs file is compiled only when listed
//! here (or as a [[test]]): `every_test_file_is_compiled` below fails for one that is not.
//! A new file: add `#[path = "NAME.rs"] mod NAME;` below, in name order. The helper
//! modules are declared once, here; a test file reaches them with `use crate::common;`
//! (`mod common;` in a file listed with #[path] also compiles, as a second copy).

#[allow(dead_code)] // each test file uses what it needs
mod common;
#[allow(dead_code)]
mod examples;
#[allow(dead_code)]
mod twin_sim;

#[path = "acked_resend.rs"]
mod acked_resend;
#[path = "analysis_doc.rs"]
mod analysis_doc;
#[path = "analysis_dump.rs"]
mod analysis_dump;
#[path = "analysis_rooms.rs"]
mod analysis_rooms;
#[path = "analysis_scale.rs"]
mod analysis_scale;
#[path = "capture_gaps.rs"]
mod capture_gaps;
#[path = "capture_gaps_once.rs"]
mod capture_gaps_once;
#[path = "capture_gaps_whole.rs"]
mod capture_gaps_whole;
#[path = "capture_loss_captures.rs"]
mod capture_loss_captures;
#[path = "compact_row.rs"]
mod compact_row;
#[path = "conformance.rs"]
mod conformance;
#[path = "connection_table.rs"]
mod connection_table;
#[path = "copy_classes.rs"]
mod copy_classes;
#[path = "corrupt_frames.rs"]
mod corrupt_frames;
#[path = "decode_captures.rs"]
mod decode_captures;
#[path = "decode_links.rs"]
mod decode_links;
#[path = "decode_malformed.rs"]
mod decode_malformed;
#[path = "decode_nflog.rs"]
mod decode_nflog;
#[path = "decode_synth.rs"]
mod decode_synth;
#[path = "decode_tunnels.rs"]
mod decode_tunnels;
#[path = "delayed_ack_captures.rs"]
mod delayed_ack_captures;
#[path = "diagnosis_examples.rs"]
mod diagnosis_examples;
#[path = "doc_paths.rs"]
mod doc_paths;
#[path = "ecn.rs"]
mod ecn;
#[path = "ending.rs"]
mod ending;
#[path = "ending_after_reset.rs"]
mod ending_after_reset;
#[path = "ending_fin_resent.rs"]
mod ending_fin_resent;
#[path = "episodes_blame.rs"]
mod episodes_blame;
#[path = "evidence_clocks.rs"]
mod evidence_clocks;
#[path = "evidence_counted_once.rs"]
mod evidence_counted_once;
#[path = "evidence_far_part_loaded.rs"]
mod evidence_far_part_loaded;
#[path = "evidence_review3.rs"]
mod evidence_review3;
#[path = "evidence_review3b.rs"]
mod evidence_review3b;
#[path = "evidence_review_ab.rs"]
mod evidence_review_ab;
#[path = "evidence_review_ab_lost_flight.rs"]
mod evidence_review_ab_lost_flight;
#[path = "evidence_review_ad_idle_echo.rs"]
mod evidence_review_ad_idle_echo;
#[path = "evidence_review_ad_reorder.rs"]
mod evidence_review_ad_reorder;
#[path = "evidence_review_ad_upload_answer.rs"]
mod evidence_review_ad_upload_answer;
#[path = "evidence_review_ad_window_queue.rs"]
mod evidence_review_ad_window_queue;
#[path = "evidence_review_af_back_to_back.rs"]
mod evidence_review_af_back_to_back;
#[path = "evidence_review_af_latency.rs"]
mod evidence_review_af_latency;
#[path = "evidence_review_af_segments.rs"]
mod evidence_review_af_segments;
#[path = "evidence_review_ah_loss_unsaid.rs"]
mod evidence_review_ah_loss_unsaid;
#[path = "evidence_review_aj_paced_gaps.rs"]
mod evidence_review_aj_paced_gaps;
#[path = "evidence_review_aj_start_up.rs"]
mod evidence_review_aj_start_up;
#[path = "evidence_review_ah_loss_rate.rs"]
mod evidence_review_ah_loss_rate;
#[path = "evidence_review_ah_timer_stall.rs"]
mod evidence_review_ah_timer_stall;
#[path = "evidence_review_al.rs"]
mod evidence_review_al;
#[path = "evidence_review_aj_delay_loss.rs"]
mod evidence_review_aj_delay_loss;
#[path = "evidence_review_ah_terminating_proxy.rs"]
mod evidence_review_ah_terminating_proxy;
#[path = "evidence_review_aj_turns_and_requests.rs"]
mod evidence_review_aj_turns_and_requests;
#[path = "evidence_review_h.rs"]
mod evidence_review_h;
#[path = "evidence_review_i_shares.rs"]
mod evidence_review_i_shares;
#[path = "evidence_review_l.rs"]
mod evidence_review_l;
#[path = "evidence_review_l_bursts.rs"]
mod evidence_review_l_bursts;
#[path = "evidence_review_l_first_answer.rs"]
mod evidence_review_l_first_answer;
#[path = "evidence_review_l_messages.rs"]
mod evidence_review_l_messages;
#[path = "evidence_review_l_tail.rs"]
mod evidence_review_l_tail;
#[path = "evidence_review_af_phase_mix.rs"]
mod evidence_review_af_phase_mix;
#[path = "evidence_review_n_input.rs"]
mod evidence_review_n_input;
#[path = "evidence_review_n_loss_headline.rs"]
mod evidence_review_n_loss_headline;
#[path = "evidence_review_n_rtt.rs"]
mod evidence_review_n_rtt;
#[path = "evidence_review_n_sws.rs"]
mod evidence_review_n_sws;
#[path = "evidence_review_o_episodes.rs"]
mod evidence_review_o_episodes;
#[path = "evidence_review_p_tail.rs"]
mod evidence_review_p_tail;
#[path = "evidence_review_q_saving.rs"]
mod evidence_review_q_saving;
#[path = "evidence_review_r_answer_waits.rs"]
mod evidence_review_r_answer_waits;
#[path = "evidence_review_r_loss.rs"]
mod evidence_review_r_loss;
#[path = "evidence_review_r_loss_rest.rs"]
mod evidence_review_r_loss_rest;
#[path = "evidence_review_q_turns.rs"]
mod evidence_review_q_turns;
#[path = "evidence_review_r_turns.rs"]
mod evidence_review_r_turns;
#[path = "evidence_review_t_bulk.rs"]
mod evidence_review_t_bulk;
#[path = "evidence_review_t_close.rs"]
mod evidence_review_t_close;
#[path = "evidence_review_t_small_window.rs"]
mod evidence_review_t_small_window;
#[path = "evidence_review_t_split_proxy.rs"]
mod evidence_review_t_split_proxy;
#[path = "evidence_review_t_two_senders.rs"]
mod evidence_review_t_two_senders;
#[path = "evidence_review_u_nagle_turns.rs"]
mod evidence_review_u_nagle_turns;
#[path = "evidence_review_u_timer_words.rs"]
mod evidence_review_u_timer_words;
#[path = "evidence_review_v_copies.rs"]
mod evidence_review_v_copies;
#[path = "evidence_review_v_handshake_push.rs"]
mod evidence_review_v_handshake_push;
#[path = "evidence_review_v_late_sightings.rs"]
mod evidence_review_v_late_sightings;
#[path = "evidence_review_v_queue_drain.rs"]
mod evidence_review_v_queue_drain;
#[path = "evidence_review_v_reset.rs"]
mod evidence_review_v_reset;
#[path = "evidence_review_v_timer_kinds.rs"]
mod evidence_review_v_timer_kinds;
#[path = "evidence_review_x_app_facts.rs"]
mod evidence_review_x_app_facts;
#[path = "evidence_review_x_holds.rs"]
mod evidence_review_x_holds;
#[path = "evidence_review_x_loaded_rtt.rs"]
mod evidence_review_x_loaded_rtt;
#[path = "evidence_review_x_nagle_holds.rs"]
mod evidence_review_x_nagle_holds;
#[path = "evidence_review_x_subthreshold.rs"]
mod evidence_review_x_subthreshold;
#[path = "evidence_review_z_answer_waits.rs"]
mod evidence_review_z_answer_waits;
#[path = "evidence_review_z_capture.rs"]
mod evidence_review_z_capture;
#[path = "evidence_review_z_waits.rs"]
mod evidence_review_z_waits;
#[path = "evidence_rtt_path_samples.rs"]
mod evidence_rtt_path_samples;
#[path = "evidence_shapes.rs"]
mod evidence_shapes;
#[path = "evidence_shapes_endings.rs"]
mod evidence_shapes_endings;
#[path = "evidence_shapes_handshake.rs"]
mod evidence_shapes_handshake;
#[path = "evidence_shapes_loss.rs"]
mod evidence_shapes_loss;
#[path = "evidence_shapes_review.rs"]
mod evidence_shapes_review;
#[path = "evidence_shapes_segments.rs"]
mod evidence_shapes_segments;
#[path = "evidence_stalls_i.rs"]
mod evidence_stalls_i;
#[path = "evidence_stalls_j.rs"]
mod evidence_stalls_j;
#[path = "evidence_stalls_k.rs"]
mod evidence_stalls_k;
#[path = "evidence_stalls_l.rs"]
mod evidence_stalls_l;
#[path = "hostile_corpus.rs"]
mod hostile_corpus;
#[path = "hostile_regressions.rs"]
mod hostile_regressions;
#[path = "icmp_errors.rs"]
mod icmp_errors;
#[path = "link_padding.rs"]
mod link_padding;
#[path = "mptcp.rs"]
mod mptcp;
#[path = "mptcp_subflow_words.rs"]
mod mptcp_subflow_words;
#[path = "one_direction.rs"]
mod one_direction;
#[path = "own_queue_and_flat_window.rs"]
mod own_queue_and_flat_window;
#[path = "pmtu_resends.rs"]
mod pmtu_resends;
#[path = "policer_words.rs"]
mod policer_words;
#[path = "public_links.rs"]
mod public_links;
#[path = "real_captures.rs"]
mod real_captures;
#[path = "receiver_stack_advice.rs"]
mod receiver_stack_advice;
#[path = "relay_chain.rs"]
mod relay_chain;
#[path = "report_lines.rs"]
mod report_lines;
#[path = "retrans_kinds_captures.rs"]
mod retrans_kinds_captures;
#[path = "rtt_idle_echo.rs"]
mod rtt_idle_echo;
#[path = "said_leftovers.rs"]
mod said_leftovers;
#[path = "scripted_story.rs"]
mod scripted_story;
#[path = "sender_inflight.rs"]
mod sender_inflight;
#[path = "sender_paced.rs"]
mod sender_paced;
#[path = "sharding.rs"]
mod sharding;
#[path = "share_extremes.rs"]
mod share_extremes;
#[path = "share_hostile.rs"]
mod share_hostile;
#[path = "share_links.rs"]
mod share_links;
#[path = "share_sizes.rs"]
mod share_sizes;
#[path = "share_twin.rs"]
mod share_twin;
#[path = "size_limits.rs"]
mod size_limits;
#[path = "slice.rs"]
mod slice;
#[path = "slow_start_ramp.rs"]
mod slow_start_ramp;
#[path = "time_backwards.rs"]
mod time_backwards;
#[path = "time_order.rs"]
mod time_order;
#[path = "transformed_captures.rs"]
mod transformed_captures;
#[path = "ts_clock_check.rs"]
mod ts_clock_check;
#[path = "twin_captures.rs"]
mod twin_captures;
#[path = "twin_interfaces.rs"]
mod twin_interfaces;
#[path = "twin_merge.rs"]
mod twin_merge;
#[path = "twin_placement.rs"]
mod twin_placement;
#[path = "twin_sequence.rs"]
mod twin_sequence;
#[path = "two_capture_points.rs"]
mod two_capture_points;
#[path = "unqueued_writes.rs"]
mod unqueued_writes;
#[path = "upstream_queue.rs"]
mod upstream_queue;
#[path = "vantage_lan.rs"]
mod vantage_lan;
#[path = "view_agreement.rs"]
mod view_agreement;
#[path = "view_at.rs"]
mod view_at;
#[path = "view_issue17.rs"]
mod view_issue17;
#[path = "view_issue46.rs"]
mod view_issue46;
#[path = "view_packed.rs"]
mod view_packed;
#[path = "view_packet_series.rs"]
mod view_packet_series;
#[path = "view_partial.rs"]
mod view_partial;
#[path = "view_query.rs"]
mod view_query;
#[path = "view_scale.rs"]
mod view_scale;
#[path = "view_wifi.rs"]
mod view_wifi;
#[path = "write_ends.rs"]
mod write_ends;

/// Every tests/*.rs is compiled: listed above as `#[path = "NAME.rs"]`, or a `[[test]]`
/// of its own in Cargo.toml (`path = "tests/NAME.rs"`). With `autotests = false` a file
/// that is in neither is silently never built (as after a merge that adds a test file).
#[test]
fn every_test_file_is_compiled() {
    use std::path::Path;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let harness = std::fs::read_to_string(root.join("tests/all.rs")).expect("tests/all.rs");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let mut missing: Vec<String> = std::fs::read_dir(root.join("tests"))
        .expect("tests/")
        .map(|e| e.expect("a tests/ entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".rs") && name != "all.rs")
        .filter(|name| {
            !harness.contains(&format!("#[path = \"{name}\"]")) && !manifest.contains(&format!("path = \"tests/{name}\""))
        })
        .collect();
    missing.sort();
    let lines: Vec<String> = missing.iter().map(|n| format!("#[path = \"{n}\"]\nmod {};", n.trim_end_matches(".rs"))).collect();
    assert!(missing.is_empty(), "tests/ files that no test binary compiles: {missing:?}; add to tests/all.rs:\n{}", lines.join("\n"));
}

/// Every capture a test names with `common::corpus("…")` / `corpus_connection("…", …)` is
/// in `TCPSCOPE_CORPUS` when the corpus is given: a misspelt name otherwise skips its test
/// silently ("not found: skipped"), as three did until session 38 (a space or `&` in the
/// file name written as `_`; scripts/corpus/extract.py keeps both). Without the corpus
/// (CI) there is nothing to check.
#[test]
fn every_corpus_name_a_test_uses_is_in_the_corpus() {
    use std::path::Path;
    let Some(dir) = std::env::var_os("TCPSCOPE_CORPUS") else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&root).expect("tests/") {
        let path = entry.expect("a tests/ entry").path();
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("all.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a test file");
        for opener in ["corpus(\"", "corpus_connection(\"", "corpus_connections(\""] {
            for (at, _) in text.match_indices(opener) {
                let rest = &text[at + opener.len()..];
                let Some(end) = rest.find('"') else { continue };
                let name = &rest[..end];
                if !Path::new(&dir).join(name).exists() {
                    missing.push(format!("{}: {name}", path.file_name().unwrap().to_string_lossy()));
                }
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(missing.is_empty(), "corpus captures named by tests but not in TCPSCOPE_CORPUS: {missing:#?}");
}
