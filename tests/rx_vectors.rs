//! The scapy-built vectors against the receive path: the `spec` reference model must give the
//! manifest's verdict and reason for every frame.

use rnic_spec::wire::rx::{classify, RxConfig};

fn verdict_name(v: &Result<(), rnic_spec::wire::rx::DropReason>) -> (&'static str, &'static str) {
    match v {
        Ok(()) => ("accepted", "-"),
        Err(r) => ("dropped", r.name()),
    }
}

#[test]
fn reference_model_matches_manifest() {
    let vectors = rnic_e2e::load();
    assert!(vectors.len() >= 20, "manifest lists {} files", vectors.len());
    let mut frames = 0;
    for v in &vectors {
        for (i, f) in v.frames.iter().enumerate() {
            let r = classify(&rnic_spec::wire::as_on_wire(f, v.fcs), RxConfig { fcs: v.fcs });
            assert_eq!(
                verdict_name(&r.verdict),
                (v.verdict.as_str(), v.reason.as_str()),
                "{} frame {i}",
                v.file.display()
            );
            frames += 1;
        }
    }
    assert!(frames > 300, "only {frames} frames");
}

/// `rnic sim rx`'s engine — the RTL receive pipeline in Verilator — gives the manifest's verdict
/// and reason for every frame of every committed vector, and its counters agree.
#[test]
fn rtl_matches_manifest() {
    for v in rnic_e2e::load() {
        let (records, counters) = rnic_sim::rx::replay(&v.frames, v.fcs, None).expect("replay");
        assert_eq!(records.len(), v.frames.len());
        for (i, r) in records.iter().enumerate() {
            let got = match r.drop {
                None => ("accepted", "-"),
                Some(reason) => ("dropped", reason.name()),
            };
            assert_eq!(got, (v.verdict.as_str(), v.reason.as_str()), "{} frame {i}", v.file.display());
        }
        let accepted = records.iter().filter(|r| r.drop.is_none()).count() as u64;
        assert_eq!(counters.accepted, accepted, "{}", v.file.display());
        let dropped: u64 = counters.dropped.iter().map(|(_, n)| n).sum();
        assert_eq!(dropped + accepted, records.len() as u64, "{}", v.file.display());
    }
}
