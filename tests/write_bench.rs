//! The goodput benchmark's floors: 64 KiB WRITEs and SENDs at PMTU 4096 over the 100 Gb/s link
//! model reach at least 95 % of what the link allows, on one QP and on 16, every packet placed
//! by the receiving card (cycle counts from the simulator; the README has the whole tables from
//! `rnic sim bench write` and `rnic sim bench send`). And the latency benchmark's ceilings
//! (`rnic sim bench lat`).

use rnic_driver::bench::{goodput, latency};
use rnic_driver::perftest::BwResult;
use rnic_spec::desc::SendOp;

#[test]
fn writes_and_sends_of_64_kib_reach_95_percent_of_the_link() {
    for op in [SendOp::Write, SendOp::Send] {
        for qps in [1, 16] {
            let r = goodput(op, 64 << 10, 4096, qps, 2 << 20).unwrap();
            let what = format!("{op:?}, {qps} QPs");
            assert!(r.fraction() >= 0.95, "{what}: {:.2} Gb/s is {:.1} % of {:.2}", r.gbps(), 100.0 * r.fraction(), r.limit_gbps());
            assert!(r.limit_gbps() > 97.0 && r.limit_gbps() < 100.0, "the link limit counts headers and gaps");
            assert_eq!(r.packets, r.messages * 16);
            assert_eq!(r.placed, r.packets, "{what}: the receiver placed every packet");
            // perftest's reduction of the same run: from the first post to the last completion
            // it takes longer than the frames' own time on the wire, but not much at 64 KiB.
            let (bw, avg, peak) = (r.perftest, BwResult::gbps(r.perftest.avg_mbs), BwResult::gbps(r.perftest.peak_mbs));
            assert_eq!(bw.iters as usize, r.messages, "{what}: one completion per message");
            assert!(avg <= r.gbps() && avg >= 0.95 * r.gbps(), "{what}: BW average {avg:.2} Gb/s against {:.2} on the wire", r.gbps());
            assert!(peak >= avg, "{what}: BW peak {peak:.2} under the average {avg:.2}");
            let from_rate = bw.msg_rate_mpps * r.size as f64 * 8.0 / 1e3;
            assert!((from_rate - avg).abs() < 1e-6 * avg, "{what}: MsgRate {:.4} Mpps is not BW average / size", bw.msg_rate_mpps);
        }
    }
}

#[test]
fn back_to_back_sends_keep_up_with_writes_without_waiting_for_receive_wqes() {
    // Receive WQEs are fetched in batches of up to 32 per QP ahead of the SENDs: no SEND is
    // dropped for want of a buffer on the card, and the message rate is the WRITE's. Before
    // the batches (one WQE fetched at a time) 64-byte SENDs on one QP ran at 1.27 M/s against
    // the WRITE's 4.20, and 4 KiB ones resent 652 packets.
    for (size, qps) in [(64, 1), (64, 16), (4096, 1), (4096, 16)] {
        let what = format!("{size} B on {qps} QPs");
        let send = goodput(SendOp::Send, size, 4096, qps, 2 << 20).unwrap();
        let write = goodput(SendOp::Write, size, 4096, qps, 2 << 20).unwrap();
        assert_eq!((send.completed, send.placed, send.resent), (send.messages, send.packets, 0), "{what}: every SEND placed once");
        assert!(send.mmsgs() >= 0.97 * write.mmsgs(), "{what}: SENDs at {:.2} M/s, WRITEs at {:.2}", send.mmsgs(), write.mmsgs());
        // Floors under what is reached (2026-12-07: 64 B 16.5 M/s on one QP, 12.7 on 16, with
        // 64 WQEs per fetch — 9.5 and 9.3 with 16; 4 KiB 91.5 % of the link at PMTU 4096).
        match size {
            64 => {
                let floor = if qps == 1 { 15.5 } else { 12.0 };
                assert!(write.mmsgs() >= floor, "{what}: 64-byte WRITEs at {:.2} M/s", write.mmsgs())
            }
            _ => assert!(write.fraction() >= 0.90, "{what}: 4 KiB WRITEs at {:.1} % of the link", 100.0 * write.fraction()),
        }
        // The first batch lands before the first SEND arrives (posted before it), and each QP's
        // 512 WQEs are refilled (64 slots, two reads in flight) as fast as the SENDs take them.
        assert_eq!(send.rq_wait_cycles, 0, "{what}: cycles the responder waited for a receive WQE");
    }
}

#[test]
fn reads_queued_back_to_back_share_the_host_round_trip() {
    // The responder reads ahead of the READ it answers, through the response queue: before,
    // each READ waited for its own host read (800 ns), 1.19 M 64-byte READs/s on 1 or 16 QPs
    // and 4 KiB READs at 24.9 % of the link. Floors under what is reached (2026-12-07: 64 B
    // 2.72 M/s on one QP with 8 outstanding, 6.89 on 16; 4 KiB on 16 QPs 100 %).
    let one = goodput(SendOp::Read, 64, 4096, 1, 2 << 20).unwrap();
    let many = goodput(SendOp::Read, 64, 4096, 16, 2 << 20).unwrap();
    let big = goodput(SendOp::Read, 4096, 4096, 16, 2 << 20).unwrap();
    for (what, r) in [("64 B, 1 QP", &one), ("64 B, 16 QPs", &many), ("4 KiB, 16 QPs", &big)] {
        assert_eq!((r.completed, r.placed, r.resent), (r.messages, r.packets, 0), "{what}: every response placed once");
    }
    assert!(one.mmsgs() >= 2.5, "64-byte READs on one QP at {:.2} M/s", one.mmsgs());
    assert!(many.mmsgs() >= 6.5, "64-byte READs on 16 QPs at {:.2} M/s", many.mmsgs());
    assert!(big.fraction() >= 0.95, "4 KiB READs on 16 QPs at {:.1} % of the link", 100.0 * big.fraction());
}

#[test]
fn small_messages_cross_within_the_latency_ceilings() {
    // Measured 2026-12-07 (single posts pushed through BAR0 with their doorbell, so no WQE
    // read): WRITE 8 B 1.252 µs half round trip, SEND 1.292, READ 1.580 round trip; inline
    // (the payload in the WQE, no payload read either) WRITE 0.476, SEND 0.512. Before the
    // push and inline data: 1.936 / 1.976 / 2.264. The ceilings hold what is reached, the
    // inline WRITE's is issue 11's goal (0.9 µs; ConnectX-class 0.93); the floor is the PCIe
    // model's 400 ns to a write's response, which every message's landing in host memory takes.
    let lat = |op, size, inline| latency(op, size, 5, inline).unwrap().result;
    let (w, s, r) = (lat(SendOp::Write, 8, false), lat(SendOp::Send, 8, false), lat(SendOp::Read, 8, false));
    let (wi, si) = (lat(SendOp::Write, 8, true), lat(SendOp::Send, 8, true));
    for (what, l, ceiling) in [("WRITE", w, 1.3), ("SEND", s, 1.35), ("READ", r, 1.65), ("WRITE inline", wi, 0.9), ("SEND inline", si, 0.9)] {
        assert!(l.typical <= ceiling && l.typical >= 0.4, "{what} 8 B: {:.3} µs", l.typical);
        assert_eq!(l.iters, 5);
    }
    assert!(r.typical > w.typical, "a READ's round trip takes longer than half a WRITE ping-pong");
    assert!(wi.typical + 0.5 < w.typical, "inline saves the payload read: {:.3} against {:.3} µs", wi.typical, w.typical);
    let big = lat(SendOp::Write, 4096, false);
    assert!(big.typical > w.typical + 0.5, "4 KiB take longer on a 100 Gb/s link than 8 B: {:.3} µs", big.typical);
}
