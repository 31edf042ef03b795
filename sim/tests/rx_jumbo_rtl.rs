//! Frames far beyond PMTU 4096 — jumbo and larger — go through the receive pipeline without
//! upsetting it: the verdicts match the model, nothing is delivered, frames before and after
//! are unaffected, and big not-RoCE frames leave whole on the host path.

use rnic_sim::bench::roce_frame;
use rnic_sim::rx::RxSim;
use rnic_spec::wire::rx::{classify, DropReason, RxConfig};

#[test]
fn jumbo_frames_are_dropped_cleanly() {
    let mut rx = RxSim::new(true).unwrap();
    let mut frames = Vec::new();
    for size in [1024usize, 9000, 16_384, 100_000, 1024] {
        frames.push(roce_frame(size, size as u32).0);
    }
    // A large frame that is not RoCE: an EtherType no one parses, with a valid FCS.
    let mut other = vec![0x5Au8; 20_000];
    other[12] = 0x88;
    other[13] = 0xB5;
    let fcs = rnic_spec::wire::fcs(&other);
    other.extend_from_slice(&fcs.to_le_bytes());
    frames.push(other.clone());
    for f in &frames {
        rx.send(f, |_| 0);
    }
    rx.drain(frames.len(), 100_000);
    assert!(!rx.fault());
    let records = rx.take_records();
    assert_eq!(records.len(), frames.len());
    for (i, (r, f)) in records.iter().zip(&frames).enumerate() {
        assert_eq!(r.drop, classify(f, RxConfig { fcs: true }).verdict.err(), "frame {i}");
    }
    assert_eq!(records[1].drop, Some(DropReason::PayloadTooLong));
    // 100 000 bytes do not fit the 16-bit IP length: the frame disagrees with its IP header.
    assert_eq!(records[3].drop, Some(DropReason::IpLength));
    // Only the two 1 KiB writes come out behind the commit point.
    assert_eq!(rx.delivered().len(), 2);
    let host = records[5].host.as_ref().expect("not-RoCE frame on the host path");
    assert_eq!((host.0.as_slice(), host.1), (&other[..other.len() - 4], false));
}
