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
